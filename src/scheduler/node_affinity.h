// NodeAffinity: upstream's plugin of that name. Filter: spec.nodeSelector
// and the required node affinity must match the node's labels and fields.
// Score (weight 2): the sum of the weights of the preferred terms the node
// matches, normalised so the best node scores kMaxNodeScore.
#ifndef DRALLOC_SCHEDULER_NODE_AFFINITY_H_
#define DRALLOC_SCHEDULER_NODE_AFFINITY_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "scheduler/node_plugin.h"

namespace dralloc::scheduler {

class NodeAffinity final : public NodePlugin {
 public:
  std::string_view Name() const override { return "NodeAffinity"; }
  FilterCode Filter(const CycleState& state, const NodeEntry& node,
                    UnschedulableReasons& reasons) const override;
  int64_t ScoreWeight() const override { return 2; }
  int64_t Score(const CycleState& state, const NodeEntry& node) const override;
  void NormalizeScore(const CycleState& state,
                      std::span<int64_t> scores) const override;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_NODE_AFFINITY_H_
