// ResourceClaimEvaluator: what a ResourceClaim costs in quota, as upstream's
// claim evaluator (pkg/quota/v1/evaluator/core/resource_claims.go) counts:
//
//   count/resourceclaims.resource.k8s.io          1 per claim
//   <class>.deviceclass.resource.k8s.io/devices   devices requested of the
//                                                 class, summed over requests
//   requests.deviceclass.resource.kubernetes.io/<class>
//                                                 the same, when > 0
//   requests.<extendedResourceName>               the same, when > 0 and
//                                                 the class names one
//                                                 (KEP-5004)
//
// Upstream's evaluator leaves out of the scheduler's claim for a pod's
// extended resources the name the pod itself requests, because its pod
// evaluator charges the pod's requests. dralloc has no pod evaluator, so
// that claim is charged under both names: the totals of pods served by DRA
// are upstream's.
//
// A request for ExactCount devices costs its count; an `All` request the
// worst case, AllocationResultsMaxSize (32); a request of an unknown mode
// costs 0 (the class still appears, at 0). A `firstAvailable` request costs,
// per class, the maximum over its subrequests of that class. Requests with
// adminAccess are charged like any other: upstream's evaluator does not
// exempt admins ("Admins are *not* exempt from quota").
//
// Only quotas whose status.hard names one of these resources (and that have
// no scopes, which never match claims) constrain claims.
#ifndef DRALLOC_QUOTA_RESOURCE_CLAIM_EVALUATOR_H_
#define DRALLOC_QUOTA_RESOURCE_CLAIM_EVALUATOR_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types/resource_claim.h"
#include "api/types/resource_quota.h"

namespace dralloc::quota {

class ResourceClaimEvaluator {
 public:
  // A DeviceClass's spec.extendedResourceName; nullopt when the class is
  // unknown or names none.
  using ExtendedNameOf =
      std::function<std::optional<std::string>(std::string_view)>;
  // The usage of one claim (its spec; status plays no part). Without
  // `extended_name_of`, no class names an extended resource.
  static api::ResourceList Usage(const api::ResourceClaim& claim,
                                 const ExtendedNameOf& extended_name_of = {});
  // The names among `names` that this evaluator charges, in input order.
  static std::vector<std::string> MatchingResources(
      const std::vector<std::string>& names);
  // Whether `quota` constrains claims: its status.hard names a claim
  // resource and it has no scopes or scope selector.
  static bool Matches(const api::ResourceQuota& quota);
};

}  // namespace dralloc::quota

#endif  // DRALLOC_QUOTA_RESOURCE_CLAIM_EVALUATOR_H_
