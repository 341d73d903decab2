#include "scheduler/node_resources_balanced_allocation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace dralloc::scheduler {
namespace {

// The pod's cpu (millicores) and memory requests.
struct BalancedState {
  bool computed = false;
  int64_t milli_cpu = 0;
  int64_t memory = 0;
};

BalancedState PodCpuAndMemory(const api::Pod& pod) {
  const ResourceAmounts requests = PodRequests(pod);
  return {.computed = true,
          .milli_cpu = requests.milli_cpu,
          .memory = requests.memory};
}

}  // namespace

int64_t BalancedResourceScore(std::span<const int64_t> requested,
                              std::span<const int64_t> allocatable) {
  std::vector<double> fractions;
  double total = 0;
  for (size_t i = 0; i < requested.size() && i < allocatable.size(); ++i) {
    if (allocatable[i] == 0) continue;
    const double fraction =
        std::min(1.0, static_cast<double>(requested[i]) /
                          static_cast<double>(allocatable[i]));
    fractions.push_back(fraction);
    total += fraction;
  }
  double deviation = 0;
  if (fractions.size() == 2) {
    deviation = std::abs((fractions[0] - fractions[1]) / 2);
  } else if (fractions.size() > 2) {
    const double mean = total / static_cast<double>(fractions.size());
    double squares = 0;
    for (double fraction : fractions) {
      squares += (fraction - mean) * (fraction - mean);
    }
    deviation = std::sqrt(squares / static_cast<double>(fractions.size()));
  }
  return static_cast<int64_t>((1 - deviation) *
                              static_cast<double>(kMaxNodeScore));
}

void NodeResourcesBalancedAllocation::PreScore(
    CycleState& state, const ClusterView& cluster,
    std::span<const NodeEntry* const> feasible) const {
  (void)cluster, (void)feasible;
  state.Data<BalancedState>(this) = PodCpuAndMemory(state.pod());
}

int64_t NodeResourcesBalancedAllocation::Score(const CycleState& state,
                                               const NodeEntry& node) const {
  const BalancedState* computed = state.Find<BalancedState>(this);
  const BalancedState pod = computed != nullptr && computed->computed
                                ? *computed
                                : PodCpuAndMemory(state.pod());
  if (pod.milli_cpu == 0 && pod.memory == 0) return 0;
  const ResourceAmounts& allocatable = node.usage.allocatable();
  const ResourceAmounts& requested = node.usage.requested();
  const std::array<int64_t, 2> wanted = {requested.milli_cpu + pod.milli_cpu,
                                         requested.memory + pod.memory};
  const std::array<int64_t, 2> available = {allocatable.milli_cpu,
                                            allocatable.memory};
  return BalancedResourceScore(wanted, available);
}

}  // namespace dralloc::scheduler
