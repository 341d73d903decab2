#include "scheduler/node_plugins.h"

#include <fmt/format.h>

#include <algorithm>

namespace dralloc::scheduler {
namespace {

bool ToleratedByPod(const api::Pod& pod, const api::Taint& taint) {
  return std::any_of(
      pod.spec.tolerations.begin(), pod.spec.tolerations.end(),
      [&](const api::Toleration& t) { return Tolerates(t, taint); });
}

bool MatchesNodeSelector(const api::Pod& pod, const allocator::NodeInfo& node) {
  for (const auto& [key, value] : pod.spec.node_selector) {
    auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) return false;
  }
  if (!pod.spec.affinity || !pod.spec.affinity->node_affinity) return true;
  const auto& required =
      pod.spec.affinity->node_affinity
          ->required_during_scheduling_ignored_during_execution;
  return !required || allocator::NodeSelectorMatches(*required, node);
}

}  // namespace

bool Tolerates(const api::Toleration& toleration, const api::Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) {
    return false;
  }
  if (toleration.operator_ == "Exists") {
    return toleration.key.empty() || toleration.key == taint.key;
  }
  // "Equal" is the default operator.
  return toleration.key == taint.key && toleration.value == taint.value;
}

FilterCode NodeUnschedulable::Filter(const api::Pod& pod, const NodeEntry& node,
                                     UnschedulableReasons& reasons) const {
  if (!node.node->spec.unschedulable) return FilterCode::kFits;
  const api::Taint unschedulable{.key = "node.kubernetes.io/unschedulable",
                                 .effect = "NoSchedule"};
  if (ToleratedByPod(pod, unschedulable)) return FilterCode::kFits;
  reasons.Add("node(s) were unschedulable");
  return FilterCode::kUnfit;
}

FilterCode TaintToleration::Filter(const api::Pod& pod, const NodeEntry& node,
                                   UnschedulableReasons& reasons) const {
  for (const api::Taint& taint : node.node->spec.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (!ToleratedByPod(pod, taint)) {
      reasons.Add(fmt::format("node(s) had untolerated taint {{{}: {}}}",
                              taint.key, taint.value));
      return FilterCode::kUnfit;
    }
  }
  return FilterCode::kFits;
}

FilterCode NodeAffinity::Filter(const api::Pod& pod, const NodeEntry& node,
                                UnschedulableReasons& reasons) const {
  if (MatchesNodeSelector(pod, node.info)) return FilterCode::kFits;
  reasons.Add("node(s) didn't match Pod's node affinity/selector");
  return FilterCode::kUnfit;
}

}  // namespace dralloc::scheduler
