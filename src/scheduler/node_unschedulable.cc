#include "scheduler/node_unschedulable.h"

#include "scheduler/taint_toleration.h"

namespace dralloc::scheduler {

FilterCode NodeUnschedulable::Filter(const CycleState& state,
                                     const NodeEntry& node,
                                     UnschedulableReasons& reasons) const {
  if (!node.node->spec.unschedulable) return FilterCode::kFits;
  const api::Taint unschedulable{.key = "node.kubernetes.io/unschedulable",
                                 .effect = "NoSchedule"};
  if (PodToleratesTaint(state.pod(), unschedulable)) return FilterCode::kFits;
  reasons.Add("node(s) were unschedulable");
  return FilterCode::kUnfit;
}

}  // namespace dralloc::scheduler
