// TaintToleration: upstream's plugin of that name. Filter: every NoSchedule
// and NoExecute taint of the node must be tolerated. Score (weight 3): the
// number of PreferNoSchedule taints the pod does not tolerate, normalised
// in reverse so the node with the fewest scores highest.
#ifndef DRALLOC_SCHEDULER_TAINT_TOLERATION_H_
#define DRALLOC_SCHEDULER_TAINT_TOLERATION_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "api/types/core.h"
#include "scheduler/node_plugin.h"

namespace dralloc::scheduler {

// core/v1 toleration matching: an empty effect matches every effect; an
// empty key with operator Exists matches every taint.
bool Tolerates(const api::Toleration& toleration, const api::Taint& taint);
// Whether any of the pod's tolerations tolerates `taint`.
bool PodToleratesTaint(const api::Pod& pod, const api::Taint& taint);

class TaintToleration final : public NodePlugin {
 public:
  std::string_view Name() const override { return "TaintToleration"; }
  FilterCode Filter(const CycleState& state, const NodeEntry& node,
                    UnschedulableReasons& reasons) const override;
  int64_t ScoreWeight() const override { return 3; }
  int64_t Score(const CycleState& state, const NodeEntry& node) const override;
  void NormalizeScore(const CycleState& state,
                      std::span<int64_t> scores) const override;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_TAINT_TOLERATION_H_
