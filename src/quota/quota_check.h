// CheckAgainstQuota: one step of upstream's quota admission
// (k8s.io/apiserver/pkg/admission/plugin/resourcequota CheckRequest) for a
// new object and one quota of its namespace.
#ifndef DRALLOC_QUOTA_QUOTA_CHECK_H_
#define DRALLOC_QUOTA_QUOTA_CHECK_H_

#include <string>
#include <vector>

#include "api/types/core.h"
#include "api/types/resource_quota.h"
#include "quota/resource_claim_evaluator.h"

namespace dralloc::quota {

struct QuotaCheck {
  enum class Outcome {
    kNotConstrained,  // the quota does not limit anything the object uses
    kCharged,         // fits: `new_used` is status.used plus the object
    kRefused,         // over the limit or status unknown: see `refusal`
  };
  Outcome outcome = Outcome::kNotConstrained;
  api::ResourceList new_used;
  // Upstream's reason, without the "<resource> \"<name>\" is forbidden: "
  // prefix the API error adds:
  //   exceeded quota: Q, requested: R=1, used: R=2, limited: R=2
  //   status unknown for quota: Q, resources: R
  //   failed quota: Q: must specify requests.cpu for: c
  std::string refusal;
};

// `usage` is the object's usage by its evaluator; `constrained` the names of
// the quota's status.hard that evaluator charges, empty when the evaluator
// does not match the quota (a scope excludes the object). The usage is
// charged under every name of status.hard it has. A quota whose status.used
// lacks a constrained name has not been computed yet and refuses.
QuotaCheck CheckAgainstQuota(const api::ResourceQuota& quota,
                             const api::ResourceList& usage,
                             const std::vector<std::string>& constrained);

// CheckAgainstQuota with the claim evaluator's matching.
QuotaCheck CheckClaimAgainstQuota(
    const api::ResourceQuota& quota, const api::ResourceList& usage,
    const ResourceClaimEvaluator::IsMapped& is_mapped);

// CheckAgainstQuota with the pod evaluator's matching, after its rule that
// containers state the cpu and memory the quota constrains.
QuotaCheck CheckPodAgainstQuota(const api::ResourceQuota& quota,
                                const api::Pod& pod,
                                const api::ResourceList& usage);

}  // namespace dralloc::quota

#endif  // DRALLOC_QUOTA_QUOTA_CHECK_H_
