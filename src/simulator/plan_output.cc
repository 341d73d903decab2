#include "simulator/plan_output.h"

#include <fmt/format.h>

namespace dralloc::simulator {
namespace {

api::Json NullableString(const std::string& value) {
  return value.empty() ? api::Json(nullptr) : api::Json(value);
}

}  // namespace

api::Json ScaleUpPlanJson(const ScaleUpPlan& plan) {
  api::Json scale_up = api::Json::array();
  for (const auto& [group, count] : plan.scale_up) {
    scale_up.push_back({{"nodeGroup", group}, {"count", count}});
  }
  api::Json placements = api::Json::array();
  for (const PodPlacementResult& placement : plan.placements) {
    placements.push_back({{"pod", placement.pod},
                          {"node", placement.node},
                          {"nodeGroup", NullableString(placement.group)}});
  }
  api::Json unschedulable = api::Json::array();
  for (const UnschedulablePod& pod : plan.unschedulable) {
    unschedulable.push_back({{"pod", pod.pod}, {"reason", pod.reason}});
  }
  return {{"scaleUp", std::move(scale_up)},
          {"placements", std::move(placements)},
          {"unschedulable", std::move(unschedulable)}};
}

api::Json ScaleDownPlanJson(const ScaleDownPlan& plan) {
  api::Json blocked = api::Json::array();
  for (const BlockedNode& node : plan.blocked) {
    blocked.push_back({{"node", node.node},
                       {"pod", NullableString(node.pod)},
                       {"reason", node.reason}});
  }
  return {{"removable", plan.removable}, {"blocked", std::move(blocked)}};
}

std::string ScaleUpPlanTable(const ScaleUpPlan& plan) {
  std::string out = fmt::format("{:<24} {}\n", "NODE GROUP", "NEW NODES");
  for (const auto& [group, count] : plan.scale_up) {
    out += fmt::format("{:<24} {}\n", group, count);
  }
  if (plan.scale_up.empty()) out += "(no new nodes)\n";
  out += fmt::format("\n{:<40} {:<24} {}\n", "POD", "NODE", "NODE GROUP");
  for (const PodPlacementResult& placement : plan.placements) {
    out += fmt::format("{:<40} {:<24} {}\n", placement.pod, placement.node,
                       placement.group.empty() ? "-" : placement.group);
  }
  if (plan.placements.empty()) out += "(none)\n";
  if (!plan.unschedulable.empty()) out += "\nUNSCHEDULABLE\n";
  for (const UnschedulablePod& pod : plan.unschedulable) {
    if (pod.by_group.empty()) {
      out += fmt::format("{}: {}\n", pod.pod, pod.reason);
      continue;
    }
    out += pod.pod + '\n';
    for (const auto& [group, reason] : pod.by_group) {
      out += fmt::format("  node group {}: {}\n", group, reason);
    }
  }
  return out;
}

std::string ScaleDownPlanTable(const ScaleDownPlan& plan) {
  std::string out = "REMOVABLE (in removal order)\n";
  for (const std::string& node : plan.removable) out += node + '\n';
  if (plan.removable.empty()) out += "(none)\n";
  if (!plan.blocked.empty()) out += "\nBLOCKED\n";
  for (const BlockedNode& node : plan.blocked) {
    out += fmt::format("{}: {}: {}\n", node.node,
                       node.pod.empty() ? "-" : node.pod, node.reason);
  }
  return out;
}

}  // namespace dralloc::simulator
