#include "quota/quota_check.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "quota/pod_evaluator.h"
#include "quota/resource_claim_evaluator.h"
#include "quota/usage_math.h"

namespace dralloc::quota {
namespace {

// upstream hasUsageStats: every constrained resource has a used entry.
bool HasUsageStats(const api::ResourceQuota& quota,
                   const std::vector<std::string>& constrained) {
  for (const std::string& name : constrained) {
    if (!quota.status.used.contains(name)) return false;
  }
  return true;
}

QuotaCheck Refuse(std::string refusal) {
  QuotaCheck check;
  check.outcome = QuotaCheck::Outcome::kRefused;
  check.refusal = std::move(refusal);
  return check;
}

}  // namespace

QuotaCheck CheckAgainstQuota(const api::ResourceQuota& quota,
                             const api::ResourceList& usage,
                             const std::vector<std::string>& constrained) {
  if (constrained.empty()) return {};
  const std::string& name = quota.metadata.name;
  if (!HasUsageStats(quota, constrained)) {
    return Refuse(fmt::format("status unknown for quota: {}, resources: {}",
                              name, PrettyPrintNames(constrained)));
  }
  const std::vector<std::string> hard_names = ResourceNames(quota.status.hard);
  const api::ResourceList requested = Mask(RemoveZeros(usage), hard_names);
  if (requested.empty()) return {};
  const api::ResourceList new_used = Add(quota.status.used, requested);
  const std::vector<std::string> exceeded =
      Exceeded(Mask(new_used, ResourceNames(requested)), quota.status.hard);
  if (!exceeded.empty()) {
    return Refuse(
        fmt::format("exceeded quota: {}, requested: {}, used: {}, limited: {}",
                    name, PrettyPrint(Mask(requested, exceeded)),
                    PrettyPrint(Mask(quota.status.used, exceeded)),
                    PrettyPrint(Mask(quota.status.hard, exceeded))));
  }
  QuotaCheck check;
  check.outcome = QuotaCheck::Outcome::kCharged;
  check.new_used = new_used;
  return check;
}

QuotaCheck CheckClaimAgainstQuota(
    const api::ResourceQuota& quota, const api::ResourceList& usage,
    const ResourceClaimEvaluator::IsMapped& is_mapped) {
  if (!ResourceClaimEvaluator::Matches(quota, is_mapped)) return {};
  return CheckAgainstQuota(quota, usage,
                           ResourceClaimEvaluator::MatchingResources(
                               ResourceNames(quota.status.hard), is_mapped));
}

QuotaCheck CheckPodAgainstQuota(const api::ResourceQuota& quota,
                                const api::Pod& pod,
                                const api::ResourceList& usage) {
  if (!PodEvaluator::Matches(quota, pod)) return {};
  const std::vector<std::string> constrained =
      PodEvaluator::MatchingResources(ResourceNames(quota.status.hard));
  if (std::optional<std::string> missing =
          PodEvaluator::MissingRequests(constrained, pod)) {
    return Refuse(
        fmt::format("failed quota: {}: {}", quota.metadata.name, *missing));
  }
  return CheckAgainstQuota(quota, usage, constrained);
}

}  // namespace dralloc::quota
