#include "api/claim_helpers.h"

#include <algorithm>

#include "api/validation/limits.h"

namespace dralloc::api {

const PodResourceClaimStatus* ClaimStatusFor(const Pod& pod,
                                             std::string_view name) {
  for (const PodResourceClaimStatus& status :
       pod.status.resource_claim_statuses) {
    if (status.name == name) return &status;
  }
  return nullptr;
}

PodClaimName ClaimNameFor(const Pod& pod, const PodResourceClaim& entry) {
  if (entry.resource_claim_name) {
    return {PodClaimName::Kind::kDirect, *entry.resource_claim_name};
  }
  const PodResourceClaimStatus* status = ClaimStatusFor(pod, entry.name);
  if (status == nullptr) return {PodClaimName::Kind::kNotCreated, {}};
  if (!status->resource_claim_name) return {PodClaimName::Kind::kNotNeeded, {}};
  return {PodClaimName::Kind::kGenerated, *status->resource_claim_name};
}

std::vector<std::string> PodClaimNames(const Pod& pod) {
  std::vector<std::string> names;
  for (const PodResourceClaim& entry : pod.spec.resource_claims) {
    const PodClaimName name = ClaimNameFor(pod, entry);
    if (name.kind == PodClaimName::Kind::kDirect ||
        name.kind == PodClaimName::Kind::kGenerated) {
      names.emplace_back(name.name);
    }
  }
  if (const auto& extended = pod.status.extended_resource_claim_status) {
    names.push_back(extended->resource_claim_name);
  }
  return names;
}

bool IsReservedFor(const ResourceClaim& claim, std::string_view uid) {
  return std::any_of(claim.status.reserved_for.begin(),
                     claim.status.reserved_for.end(),
                     [&](const ResourceClaimConsumerReference& ref) {
                       return ref.uid == uid;
                     });
}

bool IsReservedForPod(const ResourceClaim& claim, std::string_view uid) {
  return std::any_of(claim.status.reserved_for.begin(),
                     claim.status.reserved_for.end(),
                     [&](const ResourceClaimConsumerReference& ref) {
                       return ref.resource == "pods" && ref.uid == uid;
                     });
}

bool CanBeReserved(const ResourceClaim& claim) {
  return static_cast<int64_t>(claim.status.reserved_for.size()) <
         kResourceClaimReservedForMaxSize;
}

bool IsForPod(const ResourceClaim& claim, std::string_view pod_uid) {
  return IsControlledBy(claim.metadata, pod_uid);
}

bool IsControlledBy(const ObjectMeta& meta, std::string_view uid) {
  return std::any_of(meta.owner_references.begin(), meta.owner_references.end(),
                     [&](const OwnerReference& owner) {
                       return owner.uid == uid &&
                              owner.controller.value_or(false);
                     });
}

ResourceClaimConsumerReference PodConsumerRef(const Pod& pod) {
  return {.api_group = "",
          .resource = "pods",
          .name = pod.metadata.name,
          .uid = pod.metadata.uid};
}

bool HasFinalizer(const ObjectMeta& meta, std::string_view finalizer) {
  return std::find(meta.finalizers.begin(), meta.finalizers.end(), finalizer) !=
         meta.finalizers.end();
}

bool DeviceTolerationMatches(const DeviceToleration& toleration,
                             const DeviceTaint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) {
    return false;
  }
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.operator_ == "Exists") return true;
  if (toleration.operator_.empty() || toleration.operator_ == "Equal") {
    return toleration.value == taint.value;
  }
  return false;
}

}  // namespace dralloc::api
