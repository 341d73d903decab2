#include "scheduler/taint_toleration.h"

#include <fmt/format.h>

#include <algorithm>

namespace dralloc::scheduler {

bool Tolerates(const api::Toleration& toleration, const api::Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) {
    return false;
  }
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.operator_ == "Exists") return true;
  // "Equal" is the default operator.
  return toleration.value == taint.value;
}

bool PodToleratesTaint(const api::Pod& pod, const api::Taint& taint) {
  return std::ranges::any_of(pod.spec.tolerations,
                             [&](const api::Toleration& toleration) {
                               return Tolerates(toleration, taint);
                             });
}

FilterCode TaintToleration::Filter(const CycleState& state,
                                   const NodeEntry& node,
                                   UnschedulableReasons& reasons) const {
  for (const api::Taint& taint : node.node->spec.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (PodToleratesTaint(state.pod(), taint)) continue;
    reasons.Add(fmt::format("node(s) had untolerated taint {{{}: {}}}",
                            taint.key, taint.value));
    return FilterCode::kUnfit;
  }
  return FilterCode::kFits;
}

int64_t TaintToleration::Score(const CycleState& state,
                               const NodeEntry& node) const {
  return std::ranges::count_if(node.node->spec.taints,
                               [&](const api::Taint& taint) {
                                 return taint.effect == "PreferNoSchedule" &&
                                        !PodToleratesTaint(state.pod(), taint);
                               });
}

void TaintToleration::NormalizeScore(const CycleState& state,
                                     std::span<int64_t> scores) const {
  (void)state;
  DefaultNormalizeScore(scores, /*reverse=*/true);
}

}  // namespace dralloc::scheduler
