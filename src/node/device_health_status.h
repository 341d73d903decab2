// The pod status side of device health (KEP-4680), as the kubelet's DRA
// manager writes it (UpdateAllocatedResourcesStatus): pure functions of a
// pod, the prepared claims and the health cache.
//
// For each containerStatuses[] entry whose container (spec.containers)
// uses claims, allocatedResourcesStatus gets one entry per container claim
// reference, named "claim:<pod claim name>" or "claim:<pod claim
// name>/<request>", listing each device of the prepared claim that serves
// that request: resourceID = the device's first CDI device ID, or
// "<driver>/<pool>/<device>" when it has none (as the kubelet does);
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
