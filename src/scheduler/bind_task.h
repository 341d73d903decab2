// The hand-over from the scheduling cycle to the binding cycle: what
// Reserve decided for a pod, and what a successful binding wrote.
#ifndef DRALLOC_SCHEDULER_BIND_TASK_H_
#define DRALLOC_SCHEDULER_BIND_TASK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/types/core.h"
#include "api/v1alpha2/types.h"
#include "client/api_client.h"

namespace dralloc::scheduler {

// One claim PreBind must write.
struct ClaimWrite {
  std::string key;
  client::ObjectPtr base;     // the claim as scheduled against
  client::ObjectPtr assumed;  // with allocation and reservation
  bool allocate = false;      // base had no allocation
};

// KEP-5004: the special claim for the pod's DRA-served extended resources,
// which PreBind creates under the name Reserve chose.
struct ExtendedClaimWrite {
  std::string key;
  client::ObjectPtr create;   // the claim to create (no status)
  client::ObjectPtr assumed;  // with allocation and reservation
  api::PodExtendedResourceClaimStatus pod_status;
};

// A resource.k8s.io/v1alpha2 claim PreBind reserves for the pod: one its
// driver allocated, or (1.30's structured parameters) one the scheduler
// allocates now, writing `allocation` with the builtin finalizer.
struct ClassicClaimReservation {
  std::string key;
  client::ObjectPtr base;  // the claim as scheduled against
  std::optional<api::v1alpha2::AllocationResult> allocation;
  std::string driver_name;  // with `allocation`: status.driverName
};

struct BindTask {
  client::ObjectPtr pod;
  std::string node;
  std::vector<ClaimWrite> claims;
  // KEP-5517: what the pod's claims add to its node allocatable resources
  // there, for pod.status.nodeAllocatableResourceClaimStatuses (empty when
  // nothing).
  std::vector<api::NodeAllocatableResourceClaimStatus> node_allocatable;
  std::optional<ExtendedClaimWrite> extended_claim;
  // Classic DRA: the claims to reserve, and whether the pod has a
  // PodSchedulingContext that PostBind deletes.
  std::vector<ClassicClaimReservation> classic_claims;
  bool delete_scheduling_context = false;
};

// Claim writes that succeeded: claim key and the revision written.
using WrittenClaims = std::vector<std::pair<std::string, int64_t>>;

// A binding that succeeded, booked by the scheduling thread later.
struct BoundPod {
  std::string pod_key;
  WrittenClaims written;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_BIND_TASK_H_
