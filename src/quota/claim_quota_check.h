// CheckClaimAgainstQuota: one step of upstream's quota admission
// (k8s.io/apiserver/pkg/admission/plugin/resourcequota CheckRequest) for a
// new ResourceClaim and one quota of its namespace.
#ifndef DRALLOC_QUOTA_CLAIM_QUOTA_CHECK_H_
#define DRALLOC_QUOTA_CLAIM_QUOTA_CHECK_H_

#include <string>

#include "api/types/resource_quota.h"

namespace dralloc::quota {

struct ClaimQuotaCheck {
  enum class Outcome {
    kNotConstrained,  // the quota does not limit anything the claim uses
    kCharged,         // fits: `new_used` is status.used plus the claim
    kRefused,         // over the limit or status unknown: see `refusal`
  };
  Outcome outcome = Outcome::kNotConstrained;
  api::ResourceList new_used;
  // Upstream's reason, without the "<resource> \"<name>\" is forbidden: "
  // prefix the API error adds:
  //   exceeded quota: Q, requested: R=1, used: R=2, limited: R=2
  //   status unknown for quota: Q, resources: R
  std::string refusal;
};

// `usage` is ResourceClaimEvaluator::Usage of the claim. Only resources in
// the quota's status.hard are charged and checked; a quota whose status.hard
// names a claim resource that status.used lacks has not been computed yet
// and refuses.
ClaimQuotaCheck CheckClaimAgainstQuota(const api::ResourceQuota& quota,
                                       const api::ResourceList& usage);

}  // namespace dralloc::quota

#endif  // DRALLOC_QUOTA_CLAIM_QUOTA_CHECK_H_
