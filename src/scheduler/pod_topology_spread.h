// PodTopologySpread: upstream's plugin of that name. Filter enforces the
// pod's whenUnsatisfiable=DoNotSchedule constraints (skew of matching pods
// between topology domains, minDomains, nodeAffinityPolicy,
// nodeTaintsPolicy, matchLabelKeys); Score prefers nodes whose domains hold
// fewer matching pods for the ScheduleAnyway constraints.
//
// Not implemented: upstream's system default constraints (hostname maxSkew 3,
// zone maxSkew 5) for pods without constraints, since their selector comes
// from the Services, ReplicaSets, StatefulSets and ReplicationControllers
// selecting the pod, which the scheduler does not watch. A pod without
// constraints is therefore neither filtered nor scored by this plugin.
#ifndef DRALLOC_SCHEDULER_POD_TOPOLOGY_SPREAD_H_
#define DRALLOC_SCHEDULER_POD_TOPOLOGY_SPREAD_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "scheduler/node_plugin.h"

namespace dralloc::scheduler {

class PodTopologySpread final : public NodePlugin {
 public:
  static constexpr std::string_view kName = "PodTopologySpread";
  static constexpr char kReasonConstraintsNotMatch[] =
      "node(s) didn't match pod topology spread constraints";
  static constexpr char kReasonNodeLabelNotMatch[] =
      "node(s) didn't match pod topology spread constraints (missing "
      "required label)";

  std::string_view Name() const override { return kName; }
  FilterCode PreFilter(CycleState& state, const ClusterView& cluster,
                       std::string& message) const override;
  FilterCode Filter(const CycleState& state, const NodeEntry& node,
                    UnschedulableReasons& reasons) const override;

  // upstream's default weight of PodTopologySpread in the profile.
  int64_t ScoreWeight() const override { return 2; }
  void PreScore(CycleState& state, const ClusterView& cluster,
                std::span<const NodeEntry* const> feasible) const override;
  int64_t Score(const CycleState& state, const NodeEntry& node) const override;
  void NormalizeScore(const CycleState& state,
                      std::span<int64_t> scores) const override;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_POD_TOPOLOGY_SPREAD_H_
