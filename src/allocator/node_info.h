// The node an allocation is evaluated for, and node selector matching.
#ifndef DRALLOC_ALLOCATOR_NODE_INFO_H_
#define DRALLOC_ALLOCATOR_NODE_INFO_H_

#include <map>
#include <string>

#include "api/types/core.h"
#include "api/types/node_selector.h"

namespace dralloc::allocator {

// What selectors can see of a node: its name (field metadata.name) and
// labels; and whether its kubelet skips node operations a slice declares
// unneeded (status.declaredFeatures has DRAOptionalNodeOperations, KEP-5945).
struct NodeInfo {
  std::string name;
  std::map<std::string, std::string> labels;
  bool optional_node_operations = false;

  static NodeInfo FromNode(const api::Node& node);
  friend bool operator==(const NodeInfo&, const NodeInfo&) = default;
};

// core/v1 semantics: the terms are ORed, the requirements of a term ANDed;
// an empty selector or a term without requirements matches nothing.
// matchFields supports metadata.name with In/NotIn (like the scheduler).
bool NodeSelectorMatches(const api::NodeSelector& selector,
                         const NodeInfo& node);
bool NodeSelectorTermMatches(const api::NodeSelectorTerm& term,
                             const NodeInfo& node);

}  // namespace dralloc::allocator

#endif  // DRALLOC_ALLOCATOR_NODE_INFO_H_
