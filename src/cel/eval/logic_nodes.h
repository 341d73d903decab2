// Plan nodes of the logical operators, with cel-spec's error absorption:
// `!`, `&&`, `||`, `?:` and the comprehension guard @not_strictly_false.
#ifndef DRALLOC_CEL_EVAL_LOGIC_NODES_H_
#define DRALLOC_CEL_EVAL_LOGIC_NODES_H_

#include "cel/eval/plan_node.h"

namespace dralloc::cel {

PlanNodePtr MakeNotNode(PlanNodePtr arg);
// `lhs && rhs` (is_and) or `lhs || rhs`; chains of the same operator become
// one node.
PlanNodePtr MakeAndOrNode(PlanNodePtr lhs, PlanNodePtr rhs, bool is_and);
PlanNodePtr MakeNotStrictlyFalseNode(PlanNodePtr arg);
PlanNodePtr MakeConditionalNode(PlanNodePtr cond, PlanNodePtr then_branch,
                                PlanNodePtr else_branch);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_EVAL_LOGIC_NODES_H_
