// Plan nodes that build or walk aggregates: list and map literals,
// comprehensions, and the accumulator updates the planner recognises in
// comprehension steps (append to a list, insert into a map).
#ifndef DRALLOC_CEL_EVAL_AGGREGATE_NODES_H_
#define DRALLOC_CEL_EVAL_AGGREGATE_NODES_H_

#include <cstdint>
#include <vector>

#include "cel/eval/plan_node.h"

namespace dralloc::cel {

struct MapEntryNodes {
  PlanNodePtr key;
  PlanNodePtr value;
  bool optional;
};

// The loop conditions of all() and exists(), recognised by the planner and
// evaluated inline (same result and cost as the expanded expression).
enum class ComprehensionCondition : uint8_t {
  kGeneric,
  kUntilFalse,  // @not_strictly_false(@result)
  kUntilTrue,   // @not_strictly_false(!@result)
};

// `optional[i]`: element i is `?e` (absent when e is none).
PlanNodePtr MakeListNode(std::vector<PlanNodePtr> elements,
                         std::vector<bool> optional);
PlanNodePtr MakeMapNode(std::vector<MapEntryNodes> entries);
// The slots are locals; iter2_slot is -1 for one-variable comprehensions.
PlanNodePtr MakeComprehensionNode(PlanNodePtr range, PlanNodePtr init,
                                  PlanNodePtr cond, PlanNodePtr step,
                                  PlanNodePtr result, int iter_slot,
                                  int iter2_slot, int accu_slot,
                                  ComprehensionCondition condition);
// `accu + [element]` on the accumulator in `accu_slot`, appending in place
// when the accumulator is not shared; `generic` evaluates otherwise.
PlanNodePtr MakeAppendNode(int accu_slot, PlanNodePtr element,
                           PlanNodePtr generic);
// cel.@mapInsert(map, key, value) or cel.@mapInsert(map, entries).
PlanNodePtr MakeMapInsertNode(std::vector<PlanNodePtr> args);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_EVAL_AGGREGATE_NODES_H_
