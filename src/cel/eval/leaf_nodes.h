// Plan nodes without control flow: constants, folded constants, variables,
// locals, errors, and field selection (`a.b`, `a["k"]`, a path of both
// rooted at a variable).
#ifndef DRALLOC_CEL_EVAL_LEAF_NODES_H_
#define DRALLOC_CEL_EVAL_LEAF_NODES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cel/common/value.h"
#include "cel/eval/plan_node.h"

namespace dralloc::cel {

// One `.key` or `["key"]` of a PathNode, outermost last.
struct PathStep {
  std::string_view key;   // aliases program storage
  bool index;             // `["key"]` rather than `.key`
  const std::string* id;  // Intern(key), or null
};

// `v` aliases program-owned storage.
PlanNodePtr MakeConstNode(Value v);
// The value of a node made by MakeConstNode, or null for any other node.
const Value* ConstNodeValue(const PlanNode& node);
// A value computed at plan time that still charges `cost` when evaluated.
PlanNodePtr MakeFoldedNode(Value v, uint64_t cost);
PlanNodePtr MakeVariableNode(int slot);
PlanNodePtr MakeLocalNode(int slot);
PlanNodePtr MakeErrorNode(std::string message);
// `steps` are in evaluation order (innermost first).
PlanNodePtr MakePathNode(int slot, bool local, std::vector<PathStep> steps);
PlanNodePtr MakeSelectNode(PlanNodePtr operand, std::string field,
                           bool test_only, uint64_t cost);
// `operand["key"]`; `key` aliases program storage.
PlanNodePtr MakeIndexConstStringNode(PlanNodePtr operand, std::string_view key);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_EVAL_LEAF_NODES_H_
