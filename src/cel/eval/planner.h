// The planner: turns a parsed (and, when available, checked) expression into
// the tree of PlanNodes a Program evaluates. Constant subtrees are folded,
// name chains resolved to variable slots, calls bound to their candidate
// overloads, and the all()/exists() loops recognised.
#ifndef DRALLOC_CEL_EVAL_PLANNER_H_
#define DRALLOC_CEL_EVAL_PLANNER_H_

#include "cel/check/checker.h"
#include "cel/check/environment.h"
#include "cel/eval/plan.h"
#include "cel/syntax/ast.h"
#include "cel/syntax/source.h"
#include "common/status.h"

namespace dralloc::cel {

// Plans `root` into `plan` (root, locals and the storage the nodes borrow).
// `checked` is null when the expression was not type-checked; then unknown
// names and overload mismatches become runtime errors. Plan-time failures
// (e.g. an invalid constant regular expression) are kInvalidArgument,
// located in `source`.
Status BuildPlan(const Expr& root, const Source& source, const Environment& env,
                 const CheckResult* checked, Plan& plan);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_EVAL_PLANNER_H_
