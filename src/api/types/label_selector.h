// meta/v1 LabelSelector, used by pod (anti-)affinity and topology spread.
#ifndef DRALLOC_API_TYPES_LABEL_SELECTOR_H_
#define DRALLOC_API_TYPES_LABEL_SELECTOR_H_

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"

namespace dralloc::api {

struct LabelSelectorRequirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
  friend bool operator==(const LabelSelectorRequirement&,
                         const LabelSelectorRequirement&) = default;
};
constexpr auto FieldsOf(const LabelSelectorRequirement*) {
  using T = LabelSelectorRequirement;
  return std::tuple{Field("key", &T::key, kAlways).Proto(1),
                    Field("operator", &T::operator_, kAlways).Proto(2),
                    Field("values", &T::values).Proto(3).ListAtomic()};
}

// The requirements are ANDed; an empty selector matches every object. A
// field holding an optional<LabelSelector> that is unset matches nothing.
struct LabelSelector {
  std::map<std::string, std::string> match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
};
constexpr auto FieldsOf(const LabelSelector*) {
  using T = LabelSelector;
  return std::tuple{
      Field("matchLabels", &T::match_labels).Proto(1),
      Field("matchExpressions", &T::match_expressions).Proto(2).ListAtomic()};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_LABEL_SELECTOR_H_
