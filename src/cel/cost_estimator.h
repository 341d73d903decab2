// Static cost estimation with cel-go's unit costs (as Kubernetes uses them to
// reject selectors that are "too complex, exceeds cost limit").
#ifndef DRALLOC_CEL_COST_ESTIMATOR_H_
#define DRALLOC_CEL_COST_ESTIMATOR_H_

#include "cel/ast.h"
#include "cel/checker.h"
#include "cel/environment.h"
#include "cel/function_registry.h"

namespace dralloc::cel {

CostEstimate EstimateCost(const Expr& root, const CheckResult& checked,
                          const Environment& env);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_COST_ESTIMATOR_H_
