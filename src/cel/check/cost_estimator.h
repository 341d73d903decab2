// Static cost estimation with cel-go's unit costs (as Kubernetes uses them to
// reject selectors that are "too complex, exceeds cost limit").
#ifndef DRALLOC_CEL_CHECK_COST_ESTIMATOR_H_
#define DRALLOC_CEL_CHECK_COST_ESTIMATOR_H_

#include "cel/check/checker.h"
#include "cel/check/environment.h"
#include "cel/common/function_registry.h"
#include "cel/syntax/ast.h"

namespace dralloc::cel {

CostEstimate EstimateCost(const Expr& root, const CheckResult& checked,
                          const Environment& env);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_CHECK_COST_ESTIMATOR_H_
