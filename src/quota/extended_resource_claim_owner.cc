#include "quota/extended_resource_claim_owner.h"

#include <string>

#include "api/well_known.h"

namespace dralloc::quota {
namespace {

// Whether `other` was created before `claim` (upstream compares creation
// times, then names). RFC 3339 UTC timestamps of one format order as text.
bool CreatedBefore(const api::ResourceClaim& other,
                   const api::ResourceClaim& claim) {
  const std::optional<api::Time>& mine = claim.metadata.creation_timestamp;
  const std::optional<api::Time>& theirs = other.metadata.creation_timestamp;
  if (!theirs.has_value()) return false;
  if (!mine.has_value()) return true;
  if (*theirs != *mine) return *theirs < *mine;
  return other.metadata.name < claim.metadata.name;
}

}  // namespace

const api::OwnerReference* ExtendedResourceClaimOwner(
    const api::ResourceClaim& claim) {
  auto annotation = claim.metadata.annotations.find(
      std::string(api::kExtendedResourceClaimAnnotation));
  if (annotation == claim.metadata.annotations.end() ||
      annotation->second != "true") {
    return nullptr;
  }
  for (const api::OwnerReference& owner : claim.metadata.owner_references) {
    if (!owner.controller.value_or(false)) continue;
    return owner.kind == "Pod" && owner.api_version == "v1" ? &owner : nullptr;
  }
  return nullptr;
}

bool IsVerifiedExtendedResourceClaim(
    const api::ResourceClaim& claim, const api::Pod& pod,
    const std::vector<const api::ResourceClaim*>& pod_claims) {
  const api::OwnerReference* owner = ExtendedResourceClaimOwner(claim);
  if (owner == nullptr || owner->uid != pod.metadata.uid) return false;
  const auto& status = pod.status.extended_resource_claim_status;
  if (status.has_value()) {
    return status->resource_claim_name == claim.metadata.name;
  }
  for (const api::ResourceClaim* other : pod_claims) {
    if (other->metadata.name == claim.metadata.name) continue;
    if (CreatedBefore(*other, claim)) return false;
  }
  return true;
}

}  // namespace dralloc::quota
