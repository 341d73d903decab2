#include "simulator/scale_down_planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace dralloc::simulator {

using client::As;

std::map<std::string, double> DeviceUtilizationByNode(
    ClusterSimulation& simulation) {
  using PoolKey = std::pair<std::string, std::string>;  // driver, pool
  struct PoolDevices {
    std::string node;
    std::set<std::string> devices, used;
  };
  // Pools published for one node: the devices of their node-local slices.
  std::map<PoolKey, PoolDevices> pools;
  for (const client::ObjectPtr& object : simulation.Slices()) {
    const auto* slice = As<api::ResourceSlice>(object);
    if (slice == nullptr || !slice->spec.node_name) continue;
    PoolDevices& pool = pools[{slice->spec.driver, slice->spec.pool.name}];
    pool.node = *slice->spec.node_name;
    for (const api::Device& device : slice->spec.devices) {
      pool.devices.insert(device.name);
    }
  }
  for (const client::ObjectPtr& object : simulation.Claims()) {
    const auto* claim = As<api::ResourceClaim>(object);
    if (claim == nullptr || !claim->status.allocation) continue;
    for (const auto& r : claim->status.allocation->devices.results) {
      auto pool = pools.find({r.driver, r.pool});
      if (pool != pools.end() && pool->second.devices.contains(r.device)) {
        pool->second.used.insert(r.device);
      }
    }
  }
  std::map<std::string, double> highest;
  for (const std::string& node : simulation.NodeNames()) highest[node] = 0;
  for (const auto& [key, pool] : pools) {
    if (pool.devices.empty()) continue;
    double& node = highest[pool.node];
    node = std::max(node, static_cast<double>(pool.used.size()) /
                              static_cast<double>(pool.devices.size()));
  }
  return highest;
}

double DeviceUtilization(ClusterSimulation& simulation,
                         const std::string& node) {
  const std::map<std::string, double> all = DeviceUtilizationByNode(simulation);
  auto it = all.find(node);
  return it == all.end() ? 0 : it->second;
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
  for (const auto& [node, utilization] : DeviceUtilizationByNode(simulation_)) {
    if (simulation_.Node(node) != nullptr)
      order.emplace_back(utilization, node);
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
