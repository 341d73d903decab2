// The pod status side of device health (KEP-4680), as the kubelet's DRA
// manager writes it (UpdateAllocatedResourcesStatus): pure functions of a
// pod, the prepared claims and the health cache.
//
// For each containerStatuses[] entry whose container (spec.containers)
// uses claims, allocatedResourcesStatus gets one entry per container claim
// reference, named "claim:<pod claim name>" or "claim:<pod claim
// name>/<request>", listing each device of the prepared claim that serves
// that request: resourceID = "<driver>/<pool>/<device>" (the documented
// KEP-4680 shape; some kubelet versions use the device's first CDI ID
// instead, which collapses devices that share a common CDI device);
// health = Healthy | Unhealthy | Unknown; message when the driver gave one.
// Entries without devices are left out; entries of other names are kept.
#ifndef DRALLOC_NODE_DEVICE_HEALTH_STATUS_H_
#define DRALLOC_NODE_DEVICE_HEALTH_STATUS_H_

#include <set>
#include <string>
#include <vector>

#include "api/types/core.h"
#include "node/claim_info.h"
#include "node/device_health_cache.h"

namespace dralloc::node {

// Rewrites containerStatuses[].allocatedResourcesStatus in `status` (an
// unknown field, as SimulatedRuntime writes containerStatuses) for `pod`.
// `claims` are the node's prepared claims (ClaimInfoCache::List()).
void SetAllocatedResourcesStatus(const api::Pod& pod,
                                 const std::vector<ClaimInfo>& claims,
                                 const DeviceHealthCache& health,
                                 api::PodStatus& status);

// UIDs of the pods whose prepared claims hold one of `devices`.
std::set<std::string> PodsUsingDevices(const std::vector<ClaimInfo>& claims,
                                       const std::vector<DeviceKey>& devices);

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_DEVICE_HEALTH_STATUS_H_
