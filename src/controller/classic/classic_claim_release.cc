#include "controller/classic/classic_claim_release.h"

#include <algorithm>
#include <utility>

#include "api/claim_helpers.h"

namespace dralloc::controller::classic {
namespace {

namespace v1alpha2 = api::v1alpha2;

void ClearAllocation(v1alpha2::ResourceClaim& claim) {
  claim.status.allocation.reset();
  claim.status.driver_name.clear();
}

}  // namespace

ClassicClaimRelease ReleaseConsumers(v1alpha2::ResourceClaim& claim,
                                     const std::vector<bool>& still_used) {
  ClassicClaimRelease out;
  std::vector<v1alpha2::ResourceClaimConsumerReference> kept;
  const auto& reserved = claim.status.reserved_for;
  for (size_t i = 0; i < reserved.size(); ++i) {
    if (i >= still_used.size() || still_used[i]) kept.push_back(reserved[i]);
  }
  const bool builtin =
      api::HasFinalizer(claim.metadata, v1alpha2::kBuiltinFinalizer);
  const bool deleting = claim.metadata.deletion_timestamp.has_value();
  const bool waits_for_consumer = claim.spec.allocation_mode ==
                                  v1alpha2::kAllocationModeWaitForFirstConsumer;
  if (kept.size() < reserved.size()) {
    claim.status.reserved_for = std::move(kept);
    out.write_status = true;
    if (!claim.status.reserved_for.empty()) return out;
    if (builtin) {
      if (waits_for_consumer || deleting) {
        ClearAllocation(claim);
        out.remove_builtin_finalizer = true;
      }
    } else if (waits_for_consumer && claim.status.allocation) {
      claim.status.deallocation_requested = true;
    }
    return out;
  }
  if (builtin && deleting && reserved.empty()) {
    out.write_status = claim.status.allocation.has_value();
    ClearAllocation(claim);
    out.remove_builtin_finalizer = true;
  }
  return out;
}

}  // namespace dralloc::controller::classic
