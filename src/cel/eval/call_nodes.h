// Plan nodes of function calls: overload dispatch with the runtime checks
// the checker could not prove, the single-overload fast path, the integer
// relations evaluated without dispatch and `x == "const"` on strings.
#ifndef DRALLOC_CEL_EVAL_CALL_NODES_H_
#define DRALLOC_CEL_EVAL_CALL_NODES_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cel/common/function_registry.h"
#include "cel/common/types.h"
#include "cel/eval/plan_node.h"

namespace dralloc::cel {

// A parameter the checker could not prove for a candidate, tested on the
// argument at runtime with ParamAccepts' rule.
struct ParamCheck {
  size_t arg;
  const Type* param;
  // For opaque parameters: the type name, preferably the library's own
  // constant so that the usual match is one pointer comparison.
  std::string_view opaque_name;
};

struct Candidate {
  const Overload* overload;
  const void* prepared;
  std::vector<ParamCheck> checks;  // the parameters to test at runtime
};

// A CallNode, or a SingleOverloadCallNode where that applies.
PlanNodePtr MakeCallNode(std::string function, std::vector<PlanNodePtr> args,
                         std::vector<Candidate> candidates, bool exact);
// `operand == constant` (or `!=` when `negate`); `constant` aliases program
// storage.
PlanNodePtr MakeEqualsConstStringNode(PlanNodePtr operand,
                                      std::string_view constant, bool negate);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_EVAL_CALL_NODES_H_
