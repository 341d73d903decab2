// The evaluation plan of one Program: the root PlanNode and the storage its
// nodes borrow from (constant strings, prepared call state, folded subtrees).
#ifndef DRALLOC_CEL_EVAL_PLAN_H_
#define DRALLOC_CEL_EVAL_PLAN_H_

#include <memory>
#include <string>
#include <vector>

#include "cel/common/value.h"

namespace dralloc::cel {

class PlanNode;

struct Plan {
  Plan();
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan();

  std::unique_ptr<PlanNode> root;
  int max_locals = 0;  // local slots (comprehension variables) needed
  std::vector<std::shared_ptr<const void>> keep_alive;  // prepared state
  std::vector<std::unique_ptr<HeapObject>> constants;   // borrowed by plan
  std::vector<std::unique_ptr<std::string>> strings;    // borrowed by plan
};

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_EVAL_PLAN_H_
