#include "scheduler/node_affinity.h"

namespace dralloc::scheduler {
namespace {

const api::NodeAffinity* PodNodeAffinity(const api::Pod& pod) {
  if (!pod.spec.affinity || !pod.spec.affinity->node_affinity) return nullptr;
  return &*pod.spec.affinity->node_affinity;
}

bool MatchesNodeSelector(const api::Pod& pod, const allocator::NodeInfo& node) {
  for (const auto& [key, value] : pod.spec.node_selector) {
    auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) return false;
  }
  const api::NodeAffinity* affinity = PodNodeAffinity(pod);
  if (affinity == nullptr) return true;
  const auto& required =
      affinity->required_during_scheduling_ignored_during_execution;
  return !required || allocator::NodeSelectorMatches(*required, node);
}

}  // namespace

FilterCode NodeAffinity::Filter(const CycleState& state, const NodeEntry& node,
                                UnschedulableReasons& reasons) const {
  if (MatchesNodeSelector(state.pod(), node.info)) return FilterCode::kFits;
  reasons.Add("node(s) didn't match Pod's node affinity/selector");
  return FilterCode::kUnfit;
}

int64_t NodeAffinity::Score(const CycleState& state,
                            const NodeEntry& node) const {
  const api::NodeAffinity* affinity = PodNodeAffinity(state.pod());
  if (affinity == nullptr) return 0;
  int64_t sum = 0;
  for (const api::PreferredSchedulingTerm& term :
       affinity->preferred_during_scheduling_ignored_during_execution) {
    if (term.weight == 0) continue;
    if (allocator::NodeSelectorTermMatches(term.preference, node.info)) {
      sum += term.weight;
    }
  }
  return sum;
}

void NodeAffinity::NormalizeScore(const CycleState& state,
                                  std::span<int64_t> scores) const {
  (void)state;
  DefaultNormalizeScore(scores, /*reverse=*/false);
}

}  // namespace dralloc::scheduler
