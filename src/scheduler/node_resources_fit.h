// NodeResourcesFit: upstream's plugin of that name with its default
// arguments. Filter: the node must have room for the pod's requests (cpu,
// memory, ephemeral-storage, every extended resource) next to what the pods
// on it request, and for one more pod. Score (weight 1): strategy
// LeastAllocated over cpu and memory (weights 1 and 1), counting requests
// with the scoring defaults (NonZeroPodRequests). A node without
// status.allocatable passes Filter (dralloc's choice for hypothetical
// nodes; upstream would admit no pod) and scores 0.
#ifndef DRALLOC_SCHEDULER_NODE_RESOURCES_FIT_H_
#define DRALLOC_SCHEDULER_NODE_RESOURCES_FIT_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/node_plugin.h"

namespace dralloc::scheduler {

// upstream's reasons, in the order Filter reports them: "Too many pods",
// "Insufficient cpu", "Insufficient memory", "Insufficient
// ephemeral-storage", then "Insufficient <name>" for each other resource in
// name order. Empty when the pod fits. A resource in `dra_served` that the
// node lists with no positive allocatable amount is left to DRA (KEP-5004)
// and not checked.
std::vector<std::string> InsufficientResources(
    const ResourceAmounts& pod, const NodeUsage& node,
    std::span<const std::string> dra_served = {});

class NodeResourcesFit final : public NodePlugin {
 public:
  std::string_view Name() const override { return "NodeResourcesFit"; }
  // Computes the pod's requests once for the cycle.
  FilterCode PreFilter(CycleState& state, const ClusterView& cluster,
                       std::string& message) const override;
  // Records every insufficient resource as a reason.
  FilterCode Filter(const CycleState& state, const NodeEntry& node,
                    UnschedulableReasons& reasons) const override;

  int64_t ScoreWeight() const override { return 1; }
  void PreScore(CycleState& state, const ClusterView& cluster,
                std::span<const NodeEntry* const> feasible) const override;
  int64_t Score(const CycleState& state, const NodeEntry& node) const override;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_NODE_RESOURCES_FIT_H_
