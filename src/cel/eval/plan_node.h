// The evaluation plan: a tree of nodes built once per Program by the planner
// and evaluated many times. Internal to the CEL engine.
#ifndef DRALLOC_CEL_EVAL_PLAN_NODE_H_
#define DRALLOC_CEL_EVAL_PLAN_NODE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cel/common/eval_context.h"
#include "cel/common/value.h"
#include "cel/eval/activation.h"

namespace dralloc::cel {

struct Frame {
  const Activation& activation;
  EvalContext& ctx;
  Value* locals;
};

class PlanNode {
 public:
  virtual ~PlanNode() = default;
  virtual Value Eval(Frame& frame) const = 0;
  // Non-null for constant nodes (used by the planner to prepare calls).
  virtual const Value* constant() const { return nullptr; }
};

using PlanNodePtr = std::unique_ptr<PlanNode>;

// Charges `units` to the evaluation; false once the cost limit is exceeded.
inline bool Charge(Frame& f, uint64_t units) { return f.ctx.AddCost(units); }

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_EVAL_PLAN_NODE_H_
