// ClaimInfo: what the node agent knows about one ResourceClaim it prepares
// (the kubelet's ClaimInfo): identity, per driver whether the driver
// finished preparing it and the devices it returned, and the pods on this
// node that use it.
#ifndef DRALLOC_NODE_CLAIM_INFO_H_
#define DRALLOC_NODE_CLAIM_INFO_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "node/prepared_device.h"

namespace dralloc::node {

struct DriverClaimState {
  // False from before NodePrepareResources is called until it succeeds:
  // the driver may or may not have prepared the claim ("preparing").
  bool prepared = false;
  std::vector<PreparedDevice> devices;
  // KEP-5945: every device of this driver in the claim skips the call
  // (ResourceSlice skipNodeOperations), so it is never made; a driver that
  // skips preparation is recorded prepared, with no devices.
  bool skip_prepare = false;
  bool skip_unprepare = false;
  friend bool operator==(const DriverClaimState&,
                         const DriverClaimState&) = default;
};

struct ClaimInfo {
  std::string uid;
  std::string namespace_;
  std::string name;
  // Every driver of the claim's allocation.
  std::map<std::string, DriverClaimState> drivers;
  // Pods on this node that reference the claim. Empty: to be unprepared.
  std::set<std::string> pod_uids;

  // Every driver has prepared it.
  bool prepared() const;
  DraClaimRef ref() const { return {namespace_, uid, name}; }
  friend bool operator==(const ClaimInfo&, const ClaimInfo&) = default;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_CLAIM_INFO_H_
