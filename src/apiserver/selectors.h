// Label and field selectors with Kubernetes' query-string grammar.
#ifndef DRALLOC_APISERVER_SELECTORS_H_
#define DRALLOC_APISERVER_SELECTORS_H_

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dralloc::apiserver {

// `a=b,c!=d,e in (f,g),h notin (i),j,!k`: comma means AND. `!=` and `notin`
// match objects without the key.
class LabelSelector {
 public:
  // kInvalidArgument with a message naming the bad term.
  static StatusOr<LabelSelector> Parse(std::string_view text);
  bool Matches(const std::map<std::string, std::string>& labels) const;
  bool empty() const { return requirements_.empty(); }

 private:
  enum class Op { kIn, kNotIn, kExists, kNotExists };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };
  std::vector<Requirement> requirements_;
};

// `metadata.name=x,spec.nodeName!=y`: only `=`, `==` and `!=`; values may
// escape `\,`, `\=` and `\\`.
class FieldSelector {
 public:
  // `supported` lists the field labels the resource allows besides
  // metadata.name and metadata.namespace; others are an error
  // ("field label not supported: spec.foo").
  static StatusOr<FieldSelector> Parse(
      std::string_view text, std::span<const std::string_view> supported);
  // `field_value` returns the object's value for a field label.
  bool Matches(const std::function<std::string(std::string_view field)>&
                   field_value) const;
  bool empty() const { return requirements_.empty(); }
  // The value required by an `=` term on `field`, if any (for indexing).
  std::optional<std::string> RequiredValue(std::string_view field) const;

 private:
  struct Requirement {
    std::string field;
    bool equals;
    std::string value;
  };
  std::vector<Requirement> requirements_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_SELECTORS_H_
