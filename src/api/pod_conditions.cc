#include "api/pod_conditions.h"

namespace dralloc::api {

PodCondition& ConditionOf(Pod& pod, std::string_view type) {
  for (PodCondition& condition : pod.status.conditions) {
    if (condition.type == type) return condition;
  }
  pod.status.conditions.push_back({.type = std::string(type)});
  return pod.status.conditions.back();
}

void MarkBound(Pod& pod, std::string_view node, const std::string& now) {
  pod.spec.node_name = std::string(node);
  PodCondition& scheduled = ConditionOf(pod, "PodScheduled");
  scheduled.status = "True";
  scheduled.reason.clear();
  scheduled.message.clear();
  scheduled.last_transition_time = now;
}

}  // namespace dralloc::api
