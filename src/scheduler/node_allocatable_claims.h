// Node allocatable resources through claims (KEP-5517, the 1.37 shape):
// what a pod's allocated claims add to its cpu, memory, ephemeral-storage
// and hugepages, from the devices' `nodeAllocatableResources`. The
// scheduler records it in pod.status.nodeAllocatableResourceClaimStatuses,
// which NodeUsage counts (PodRequests).
#ifndef DRALLOC_SCHEDULER_NODE_ALLOCATABLE_CLAIMS_H_
#define DRALLOC_SCHEDULER_NODE_ALLOCATABLE_CLAIMS_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types/core.h"
#include "api/types/resource_claim.h"
#include "api/types/resource_slice.h"
#include "common/status.h"

namespace dralloc::scheduler {

// The published device an allocation result names, or null.
using AllocatedDeviceLookup = std::function<const api::Device*(
    const api::DeviceRequestAllocationResult&)>;

// The pod's containers (and init containers) that reference its claim
// entry `pod_claim_name`, in spec order.
std::vector<std::string> ContainersReferencing(const api::Pod& pod,
                                               std::string_view pod_claim_name);

// The status entry of claim `claim_name` (the pod's entry `pod_claim_name`)
// for `pod`, from its allocation: per resource, the mapped amount summed
// over the devices (deviceMultiplier per device, or the consumed capacity
// of capacityKey x capacityMultiplier; a result that consumed none of the
// key adds nothing) and the overheads summed over the devices. nullopt
// when no allocated device maps a node allocatable resource. A capacity
// mapping of a result without consumed capacity (a dedicated device) is an
// error, with upstream's message.
StatusOr<std::optional<api::NodeAllocatableResourceClaimStatus>>
NodeAllocatableStatusFor(const api::Pod& pod, std::string_view pod_claim_name,
                         const std::string& claim_name,
                         const api::AllocationResult& allocation,
                         const AllocatedDeviceLookup& lookup);

// upstream validatePodLevelResourcesCoverDRA, for a pod whose status
// carries its claims' entries: pod-level requests (spec.resources) must
// cover the containers' aggregate with the claims' additions, and a
// pod-level limit each regular container's own limit plus what the claims
// listing it add (for hugepages-*: the containers' aggregated limits plus
// the claims' additions). The reasons, upstream's messages; empty when the
// pod sets no pod-level resources or they suffice.
std::vector<std::string> PodLevelResourcesShortfalls(
    const api::Pod& with_claims);

// Whether some allocated device of `allocation` has a `mapping` (upstream
// refuses to share such a claim between pods; overheads may be shared).
bool HasNodeAllocatableMapping(const api::AllocationResult& allocation,
                               const AllocatedDeviceLookup& lookup);

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_NODE_ALLOCATABLE_CLAIMS_H_
