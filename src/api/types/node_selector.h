// core/v1 NodeSelector and Toleration, used by Pods, Nodes and DRA objects.
#ifndef DRALLOC_API_TYPES_NODE_SELECTOR_H_
#define DRALLOC_API_TYPES_NODE_SELECTOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"

namespace dralloc::api {

struct NodeSelectorRequirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
  friend bool operator==(const NodeSelectorRequirement&,
                         const NodeSelectorRequirement&) = default;
};
constexpr auto FieldsOf(const NodeSelectorRequirement*) {
  using T = NodeSelectorRequirement;
  return std::tuple{Field("key", &T::key, kAlways).Proto(1),
                    Field("operator", &T::operator_, kAlways).Proto(2),
                    Field("values", &T::values).Proto(3)};
}

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
  friend bool operator==(const NodeSelectorTerm&,
                         const NodeSelectorTerm&) = default;
};
constexpr auto FieldsOf(const NodeSelectorTerm*) {
  using T = NodeSelectorTerm;
  return std::tuple{Field("matchExpressions", &T::match_expressions).Proto(1),
                    Field("matchFields", &T::match_fields).Proto(2)};
}

struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms;
  friend bool operator==(const NodeSelector&, const NodeSelector&) = default;
};
constexpr auto FieldsOf(const NodeSelector*) {
  return std::tuple{
      Field("nodeSelectorTerms", &NodeSelector::node_selector_terms, kAlways)
          .Proto(1)};
}

struct Toleration {
  std::string key;
  std::string operator_;  // Exists, Equal
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
  std::optional<int64_t> toleration_seconds;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};
constexpr auto FieldsOf(const Toleration*) {
  using T = Toleration;
  return std::tuple{
      Field("key", &T::key).Proto(1), Field("operator", &T::operator_).Proto(2),
      Field("value", &T::value).Proto(3), Field("effect", &T::effect).Proto(4),
      Field("tolerationSeconds", &T::toleration_seconds).Proto(5)};
}

struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  std::optional<std::string> time_added;
  friend bool operator==(const Taint&, const Taint&) = default;
};
constexpr auto FieldsOf(const Taint*) {
  using T = Taint;
  return std::tuple{
      Field("key", &T::key, kAlways).Proto(1),
      Field("value", &T::value).Proto(2),
      Field("effect", &T::effect, kAlways).Proto(3),
      Field("timeAdded", &T::time_added).Proto(4, ProtoType::kTime)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_NODE_SELECTOR_H_
