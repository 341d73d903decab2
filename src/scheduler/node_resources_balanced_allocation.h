// NodeResourcesBalancedAllocation: upstream's plugin of that name with its
// default arguments. Score (weight 1): how evenly the node's cpu and memory
// would be used with the pod placed: (1 - std) * kMaxNodeScore, where std
// is the standard deviation of the requested/allocatable fractions (each
// capped at 1). Like upstream (useRequested) it counts the actual requests
// (PodRequests, no scoring defaults); a pod requesting neither cpu nor
// memory scores 0 everywhere (upstream skips the plugin for it).
#ifndef DRALLOC_SCHEDULER_NODE_RESOURCES_BALANCED_ALLOCATION_H_
#define DRALLOC_SCHEDULER_NODE_RESOURCES_BALANCED_ALLOCATION_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "scheduler/node_plugin.h"

namespace dralloc::scheduler {

// upstream balancedResourceScorer over parallel lists of requested and
// allocatable amounts; entries with allocatable 0 are left out.
int64_t BalancedResourceScore(std::span<const int64_t> requested,
                              std::span<const int64_t> allocatable);

class NodeResourcesBalancedAllocation final : public NodePlugin {
 public:
  std::string_view Name() const override {
    return "NodeResourcesBalancedAllocation";
  }
  int64_t ScoreWeight() const override { return 1; }
  // Computes the pod's requests once for the cycle.
  void PreScore(CycleState& state, const ClusterView& cluster,
                std::span<const NodeEntry* const> feasible) const override;
  int64_t Score(const CycleState& state, const NodeEntry& node) const override;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_NODE_RESOURCES_BALANCED_ALLOCATION_H_
