#include "scheduler/label_selector_matcher.h"

#include <algorithm>

namespace dralloc::scheduler {
namespace {

bool Contains(const std::vector<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

bool RequirementMatches(const api::LabelSelectorRequirement& requirement,
                        const Labels& labels) {
  auto it = labels.find(requirement.key);
  const bool present = it != labels.end();
  if (requirement.operator_ == "In") {
    return present && Contains(requirement.values, it->second);
  }
  if (requirement.operator_ == "NotIn") {
    return !present || !Contains(requirement.values, it->second);
  }
  if (requirement.operator_ == "Exists") return present;
  if (requirement.operator_ == "DoesNotExist") return !present;
  return false;
}

}  // namespace

bool LabelSelectorMatches(const api::LabelSelector& selector,
                          const Labels& labels) {
  for (const auto& [key, value] : selector.match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return std::all_of(selector.match_expressions.begin(),
                     selector.match_expressions.end(),
                     [&](const api::LabelSelectorRequirement& requirement) {
                       return RequirementMatches(requirement, labels);
                     });
}

bool LabelSelectorMatches(const std::optional<api::LabelSelector>& selector,
                          const Labels& labels) {
  return selector.has_value() && LabelSelectorMatches(*selector, labels);
}

std::optional<api::LabelSelector> MergeMatchLabelKeys(
    const std::optional<api::LabelSelector>& selector,
    std::span<const std::string> match_label_keys, const Labels& pod_labels) {
  api::LabelSelector merged;
  bool any = false;
  for (const std::string& key : match_label_keys) {
    auto it = pod_labels.find(key);
    if (it == pod_labels.end()) continue;
    merged.match_expressions.push_back(
        {.key = key, .operator_ = "In", .values = {it->second}});
    any = true;
  }
  if (!any) return selector;
  if (selector) {
    merged.match_labels = selector->match_labels;
    merged.match_expressions.insert(merged.match_expressions.end(),
                                    selector->match_expressions.begin(),
                                    selector->match_expressions.end());
  }
  return merged;
}

}  // namespace dralloc::scheduler
