// NodeClaim: a ResourceClaim as the node agent prepares it, whatever its
// API family: its identity and the drivers to call. A resource.k8s.io/v1
// claim names its drivers in status.allocation.devices.results; a classic
// (resource.k8s.io/v1alpha2, Kubernetes 1.27-1.30) claim in
// status.allocation.resourceHandles[].driverName, or status.driverName when
// the driver wrote no handle (as the 1.30 kubelet read it). Either way the
// driver is called with the claim's namespace, name and uid and reads the
// claim itself.
#ifndef DRALLOC_NODE_NODE_CLAIM_H_
#define DRALLOC_NODE_NODE_CLAIM_H_

#include <map>
#include <string>
#include <string_view>

#include "api/types/resource_claim.h"
#include "api/v1alpha2/types.h"
#include "node/claim_info.h"

namespace dralloc::node {

struct NodeClaim {
  std::string uid;
  std::string namespace_;
  std::string name;
  // The drivers of the allocation; a driver whose every device skips
  // NodePrepareResources (KEP-5945) starts out prepared.
  std::map<std::string, DriverClaimState> drivers;
  // Whether status.allocation is set.
  bool allocated = false;
  // Whether status.reservedFor names the pod being checked (see Of).
  bool reserved_for_pod = false;
  // Whether the pod being checked is the claim's controlling owner.
  bool owned_by_pod = false;

  // The claim as seen by pod `pod_uid` ("" = no pod).
  static NodeClaim Of(const api::ResourceClaim& claim,
                      std::string_view pod_uid = {});
  static NodeClaim Of(const api::v1alpha2::ResourceClaim& claim,
                      std::string_view pod_uid = {});
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_NODE_CLAIM_H_
