#include "scheduler/node_filter.h"

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

std::string NodeMismatch(const api::Pod& pod, const api::Node& node,
                         const allocator::NodeInfo& info) {
  if (node.spec.unschedulable) {
    const api::Taint unschedulable{.key = "node.kubernetes.io/unschedulable",
                                   .effect = "NoSchedule"};
    if (!ToleratedByPod(pod, unschedulable)) {
      return "node(s) were unschedulable";
    }
  }
  for (const api::Taint& taint : node.spec.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (!ToleratedByPod(pod, taint)) {
      return fmt::format("node(s) had untolerated taint {{{}: {}}}", taint.key,
                         taint.value);
    }
  }
  if (!MatchesNodeSelector(pod, info)) {
    return "node(s) didn't match Pod's node affinity/selector";
  }
  return "";
}

}  // namespace dralloc::scheduler
