// Which pod a claim the scheduler created for extended resources (KEP-5004)
// belongs to, as upstream's claim evaluator verifies it
// (getVerifiedPodUsage in pkg/quota/v1/evaluator/core/resource_claims.go)
// before exempting the claim from what the pod is charged already.
#ifndef DRALLOC_QUOTA_EXTENDED_RESOURCE_CLAIM_OWNER_H_
#define DRALLOC_QUOTA_EXTENDED_RESOURCE_CLAIM_OWNER_H_

#include <vector>

#include "api/types/core.h"
#include "api/types/object_meta.h"
#include "api/types/resource_claim.h"

namespace dralloc::quota {

// The controlling owner reference of `claim` when the claim carries the
// extended-resource-claim annotation ("true") and that owner is a v1 Pod;
// null otherwise. The pod is looked up by the reference's name in the
// claim's namespace.
const api::OwnerReference* ExtendedResourceClaimOwner(
    const api::ResourceClaim& claim);

// Whether `pod` (found by ExtendedResourceClaimOwner's name) owns `claim` as
// its one special claim: the reference's uid is the pod's, and
// status.extendedResourceClaimStatus names the claim, or names none and no
// claim in `pod_claims` (the other annotated claims the pod controls) was
// created before it (in the same second: none with a smaller name). A claim
// without a creationTimestamp (one being created) comes after every stored
// claim.
bool IsVerifiedExtendedResourceClaim(
    const api::ResourceClaim& claim, const api::Pod& pod,
    const std::vector<const api::ResourceClaim*>& pod_claims);

}  // namespace dralloc::quota

#endif  // DRALLOC_QUOTA_EXTENDED_RESOURCE_CLAIM_OWNER_H_
