#include "simulator/scale_down_planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace dralloc::simulator {

using client::As;

double DeviceUtilization(ClusterSimulation& simulation,
                         const std::string& node) {
  // Pools published for this node: devices per (driver, pool).
  std::map<std::pair<std::string, std::string>, std::set<std::string>> pools;
  for (const client::ObjectPtr& object : simulation.Slices()) {
    const auto* slice = As<api::ResourceSlice>(object);
    if (slice == nullptr || !slice->spec.node_name ||
        *slice->spec.node_name != node) {
      continue;
    }
    auto& devices = pools[{slice->spec.driver, slice->spec.pool.name}];
    for (const api::Device& device : slice->spec.devices) {
      devices.insert(device.name);
    }
  }
  if (pools.empty()) return 0;
  std::map<std::pair<std::string, std::string>, std::set<std::string>> used;
  for (const client::ObjectPtr& object : simulation.Claims()) {
    const auto* claim = As<api::ResourceClaim>(object);
    if (claim == nullptr || !claim->status.allocation) continue;
    for (const auto& r : claim->status.allocation->devices.results) {
      auto pool = pools.find({r.driver, r.pool});
      if (pool != pools.end() && pool->second.contains(r.device)) {
        used[pool->first].insert(r.device);
      }
    }
  }
  double highest = 0;
  for (const auto& [pool, devices] : pools) {
    if (devices.empty()) continue;
    highest = std::max(highest, static_cast<double>(used[pool].size()) /
                                    static_cast<double>(devices.size()));
  }
  return highest;
}

BlockedNode ScaleDownPlanner::TryRemove(const std::string& node) {
  const size_t mark = simulation_.StartSimulation();
  const std::vector<std::string> pods = simulation_.PodsOnNode(node);
  auto blocked = [&](const std::string& pod, std::string reason) {
    simulation_.Revert(mark);
    return BlockedNode{node, pod, std::move(reason)};
  };
  for (const std::string& pod : pods) {
    if (Status evicted = simulation_.SimulateEvictPod(pod); !evicted.ok()) {
      return blocked(pod, std::string(evicted.message()));
    }
  }
  if (Status removed = simulation_.SimulateRemoveNode(node); !removed.ok()) {
    return blocked("", std::string(removed.message()));
  }
  for (const std::string& pod : pods) {
    SimulatedPlacement placed = simulation_.SchedulePod(pod);
    if (!placed.scheduled) return blocked(pod, placed.reason);
  }
  simulation_.Commit(mark);
  return {};
}

ScaleDownPlan ScaleDownPlanner::Plan() {
  std::vector<std::pair<double, std::string>> order;
  for (const std::string& node : simulation_.NodeNames()) {
    order.emplace_back(DeviceUtilization(simulation_, node), node);
  }
  std::sort(order.begin(), order.end());
  ScaleDownPlan plan;
  for (const auto& [utilization, node] : order) {
    BlockedNode blocked = TryRemove(node);
    if (blocked.node.empty()) {
      plan.removable.push_back(node);
    } else {
      plan.blocked.push_back(std::move(blocked));
    }
  }
  return plan;
}

}  // namespace dralloc::simulator
