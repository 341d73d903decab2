// The renderings of ScaleUpPlan and ScaleDownPlan shared by
// `dralloc simulate` and the simulation endpoints of `dralloc serve`, so both
// print the same documents.
//
// Scale-up JSON:   {"scaleUp": [{"nodeGroup": G, "count": N}],
//                   "placements": [{"pod": "ns/name", "node": NODE,
//                                   "nodeGroup": G or null}],
//                   "unschedulable": [{"pod": "ns/name", "reason": TEXT}]}
// Scale-down JSON: {"removable": [NODE...],
//                   "blocked": [{"node": NODE, "pod": "ns/name" or null,
//                                "reason": TEXT}]}
#ifndef DRALLOC_SIMULATOR_PLAN_OUTPUT_H_
#define DRALLOC_SIMULATOR_PLAN_OUTPUT_H_

#include <string>

#include "api/struct_codec.h"
#include "simulator/scale_down_planner.h"
#include "simulator/scale_up_planner.h"

namespace dralloc::simulator {

api::Json ScaleUpPlanJson(const ScaleUpPlan& plan);
api::Json ScaleDownPlanJson(const ScaleDownPlan& plan);

// The human-readable tables, each line ending in '\n'.
std::string ScaleUpPlanTable(const ScaleUpPlan& plan);
std::string ScaleDownPlanTable(const ScaleDownPlan& plan);

}  // namespace dralloc::simulator

#endif  // DRALLOC_SIMULATOR_PLAN_OUTPUT_H_
