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
// The claim the scheduler creates for a pod's extended resources
// (quota/extended_resource_claim_owner.h) is charged under the two
// requests.* names only for what exceeds the owning pod's own usage of
// them: the pod evaluator already charges the pod's requests, so a pod
// asking for `example.com/gpu: 1` costs requests.example.com/gpu=1, not 2.
// Where two classes name the same extended resource their devices add up
// (upstream's newest evaluator keeps one class's count, whichever its map
// iteration visits last).
//
// A request for ExactCount devices costs its count; an `All` request the
// worst case, AllocationResultsMaxSize (32); a request of an unknown mode
// costs 0 (the class still appears, at 0). A `firstAvailable` request costs,
// per class, the maximum over its subrequests of that class. Requests with
// adminAccess are charged like any other: upstream's evaluator does not
// exempt admins ("Admins are *not* exempt from quota").
//
// Only quotas whose status.hard names one of these resources (and that have
// no scopes, which never match claims) constrain claims. The two requests.*
// names count only while some DeviceClass maps them (upstream's
// MatchingResources with its device class mapping): the implicit name of
// every existing class, and each extendedResourceName some class sets. A
// quota on a name no class maps is left to the pod evaluator, so creating a
// claim is never refused because such a name's usage is not computed yet.
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
  // `owner_pod_usage` is PodEvaluator::Usage of the pod whose verified
  // special claim this is, or null for any other claim.
  static api::ResourceList Usage(
      const api::ResourceClaim& claim,
      const ExtendedNameOf& extended_name_of = {},
      const api::ResourceList* owner_pod_usage = nullptr);
  // Whether some DeviceClass maps extended resource `name` (upstream's
  // ExtendedResourceCache.GetDeviceClass): true for
  // "deviceclass.resource.kubernetes.io/<class>" while the class exists and
  // for any name some class sets as spec.extendedResourceName. An empty
  // function maps nothing.
  using IsMapped = std::function<bool(std::string_view)>;
  // The names among `names` that this evaluator charges, in input order.
  static std::vector<std::string> MatchingResources(
      const std::vector<std::string>& names, const IsMapped& is_mapped);
  // Whether `quota` constrains claims: its status.hard names a claim
  // resource and it has no scopes or scope selector.
  static bool Matches(const api::ResourceQuota& quota,
                      const IsMapped& is_mapped);
};

}  // namespace dralloc::quota

#endif  // DRALLOC_QUOTA_RESOURCE_CLAIM_EVALUATOR_H_
