#include "quota/claim_quota_check.h"

#include <fmt/format.h>

#include <string>
#include <vector>

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

ClaimQuotaCheck Refuse(std::string refusal) {
  ClaimQuotaCheck check;
  check.outcome = ClaimQuotaCheck::Outcome::kRefused;
  check.refusal = std::move(refusal);
  return check;
}

}  // namespace

ClaimQuotaCheck CheckClaimAgainstQuota(const api::ResourceQuota& quota,
                                       const api::ResourceList& usage) {
  if (!ResourceClaimEvaluator::Matches(quota)) return {};
  const std::vector<std::string> hard_names = ResourceNames(quota.status.hard);
  const std::vector<std::string> constrained =
      ResourceClaimEvaluator::MatchingResources(hard_names);
  const std::string& name = quota.metadata.name;
  if (!HasUsageStats(quota, constrained)) {
    return Refuse(fmt::format("status unknown for quota: {}, resources: {}",
                              name, PrettyPrintNames(constrained)));
  }
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
  ClaimQuotaCheck check;
  check.outcome = ClaimQuotaCheck::Outcome::kCharged;
  check.new_used = new_used;
  return check;
}

}  // namespace dralloc::quota
