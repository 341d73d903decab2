#include "allocator/node_info.h"

#include <algorithm>
#include <charconv>

#include "api/well_known.h"

namespace dralloc::allocator {
namespace {

bool ParseInt(const std::string& text, int64_t& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

bool Contains(const std::vector<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// One requirement against a value that is present (`value` non-null) or not.
bool RequirementMatches(const api::NodeSelectorRequirement& requirement,
                        const std::string* value) {
  const std::string& op = requirement.operator_;
  if (op == "In")
    return value != nullptr && Contains(requirement.values, *value);
  if (op == "NotIn") {
    return value == nullptr || !Contains(requirement.values, *value);
  }
  if (op == "Exists") return value != nullptr;
  if (op == "DoesNotExist") return value == nullptr;
  if (op == "Gt" || op == "Lt") {
    int64_t have = 0, want = 0;
    if (value == nullptr || requirement.values.size() != 1 ||
        !ParseInt(*value, have) || !ParseInt(requirement.values[0], want)) {
      return false;
    }
    return op == "Gt" ? have > want : have < want;
  }
  return false;
}

}  // namespace

NodeInfo NodeInfo::FromNode(const api::Node& node) {
  return NodeInfo{node.metadata.name,
                  {node.metadata.labels.begin(), node.metadata.labels.end()},
                  Contains(node.status.declared_features,
                           std::string(api::kDeclaredFeatureOptionalNodeOps))};
}

bool NodeSelectorTermMatches(const api::NodeSelectorTerm& term,
                             const NodeInfo& node) {
  if (term.match_expressions.empty() && term.match_fields.empty()) {
    return false;
  }
  for (const auto& requirement : term.match_expressions) {
    auto it = node.labels.find(requirement.key);
    if (!RequirementMatches(requirement,
                            it == node.labels.end() ? nullptr : &it->second)) {
      return false;
    }
  }
  for (const auto& requirement : term.match_fields) {
    if (requirement.key != "metadata.name") return false;
    if (requirement.operator_ != "In" && requirement.operator_ != "NotIn") {
      return false;
    }
    if (!RequirementMatches(requirement, &node.name)) return false;
  }
  return true;
}

bool NodeSelectorMatches(const api::NodeSelector& selector,
                         const NodeInfo& node) {
  return std::any_of(selector.node_selector_terms.begin(),
                     selector.node_selector_terms.end(),
                     [&](const api::NodeSelectorTerm& term) {
                       return NodeSelectorTermMatches(term, node);
                     });
}

}  // namespace dralloc::allocator
