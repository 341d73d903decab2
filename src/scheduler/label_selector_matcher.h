// meta/v1 label selector matching for pod affinity and topology spread.
#ifndef DRALLOC_SCHEDULER_LABEL_SELECTOR_MATCHER_H_
#define DRALLOC_SCHEDULER_LABEL_SELECTOR_MATCHER_H_

#include <map>
#include <optional>
#include <span>
#include <string>

#include "api/types/label_selector.h"

namespace dralloc::scheduler {

using Labels = std::map<std::string, std::string>;

// Whether `labels` satisfy every matchLabels entry and every
// matchExpressions requirement (In, NotIn, Exists, DoesNotExist; NotIn and
// DoesNotExist hold when the key is absent). An empty selector matches
// everything; a requirement with an unknown operator matches nothing.
bool LabelSelectorMatches(const api::LabelSelector& selector,
                          const Labels& labels);

// An unset selector matches nothing (upstream LabelSelectorAsSelector(nil)).
bool LabelSelectorMatches(const std::optional<api::LabelSelector>& selector,
                          const Labels& labels);

// upstream's matchLabelKeys merging of topology spread constraints: for each
// key in `match_label_keys` that `pod_labels` has, the selector also requires
// key=<the pod's value>. When the pod has none of the keys the selector is
// returned unchanged; when it has some and `selector` is unset, the result
// selects by those labels alone (as upstream merges into Nothing).
std::optional<api::LabelSelector> MergeMatchLabelKeys(
    const std::optional<api::LabelSelector>& selector,
    std::span<const std::string> match_label_keys, const Labels& pod_labels);

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_LABEL_SELECTOR_MATCHER_H_
