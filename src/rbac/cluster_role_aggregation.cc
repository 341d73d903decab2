#include "rbac/cluster_role_aggregation.h"

#include <algorithm>

namespace dralloc::rbac {
namespace {

bool RequirementMatches(const api::LabelSelectorRequirement& requirement,
                        const api::StringMap& labels) {
  auto it = labels.find(requirement.key);
  const bool has = it != labels.end();
  const auto& values = requirement.values;
  const bool in_values = has && std::find(values.begin(), values.end(),
                                          it->second) != values.end();
  if (requirement.operator_ == "In") return in_values;
  if (requirement.operator_ == "NotIn") return !in_values;
  if (requirement.operator_ == "Exists") return has;
  if (requirement.operator_ == "DoesNotExist") return !has;
  return false;
}

}  // namespace

bool SelectorMatches(const api::LabelSelector& selector,
                     const api::StringMap& labels) {
  for (const auto& [key, value] : selector.match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  for (const auto& requirement : selector.match_expressions) {
    if (!RequirementMatches(requirement, labels)) return false;
  }
  return true;
}

std::vector<api::PolicyRule> AggregatedRules(
    const api::ClusterRole& role, const std::vector<api::ClusterRole>& all) {
  std::vector<const api::ClusterRole*> sources;
  for (const api::ClusterRole& candidate : all) {
    if (candidate.metadata.name == role.metadata.name) continue;
    for (const auto& selector : role.aggregation_rule->cluster_role_selectors) {
      if (SelectorMatches(selector, candidate.metadata.labels)) {
        sources.push_back(&candidate);
        break;
      }
    }
  }
  std::sort(sources.begin(), sources.end(), [](const auto* a, const auto* b) {
    return a->metadata.name < b->metadata.name;
  });
  std::vector<api::PolicyRule> rules;
  for (const api::ClusterRole* source : sources) {
    for (const api::PolicyRule& rule : source->rules) {
      if (std::find(rules.begin(), rules.end(), rule) == rules.end()) {
        rules.push_back(rule);
      }
    }
  }
  return rules;
}

}  // namespace dralloc::rbac
