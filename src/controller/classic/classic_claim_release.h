// What Kubernetes 1.30's resource claim controller did when consumers of a
// resource.k8s.io/v1alpha2 claim were gone (issue #27, syncClaim), as a pure
// function: the claim is updated in place and the caller writes it.
//
// The claim controller calls it for v1alpha2 claims (docs/classic-dra.md).
#ifndef DRALLOC_CONTROLLER_CLASSIC_CLASSIC_CLAIM_RELEASE_H_
#define DRALLOC_CONTROLLER_CLASSIC_CLASSIC_CLAIM_RELEASE_H_

#include <vector>

#include "api/v1alpha2/types.h"

namespace dralloc::controller::classic {

// What the caller writes after ReleaseConsumers.
struct ClassicClaimRelease {
  bool write_status = false;  // UpdateStatus of the changed claim
  // Then an Update without the scheduler's finalizer
  // (dra.k8s.io/delete-protection), once the allocation is gone.
  bool remove_builtin_finalizer = false;
};

// Keeps the consumers `still_used[i]` says are valid. When none remain:
//   - a claim the scheduler allocated (1.30's structured parameters: it
//     carries the builtin finalizer) that waits for its first consumer or
//     is being deleted loses its allocation at once;
//   - a driver's WaitForFirstConsumer claim gets deallocationRequested, and
//     its driver deallocates it;
//   - a driver's Immediate claim stays allocated.
// A deleted claim of the scheduler's with no consumers left loses its
// allocation and the finalizer even when no consumer was dropped now.
ClassicClaimRelease ReleaseConsumers(api::v1alpha2::ResourceClaim& claim,
                                     const std::vector<bool>& still_used);

}  // namespace dralloc::controller::classic

#endif  // DRALLOC_CONTROLLER_CLASSIC_CLASSIC_CLAIM_RELEASE_H_
