#include "simulator/scale_down_planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace dralloc::simulator {

using client::As;

namespace {

// One node-local pool: its devices, its shared counters, what is in use.
struct PoolUse {
  std::string node;
  std::map<std::string, const api::Device*> devices;  // by name
  // Counter set → counter → capacity (partitionable pools only).
  std::map<std::string, std::map<std::string, double>> capacity;
  std::set<std::string> used;  // devices allocated (adminAccess aside)
};

// Upstream's pool utilization: allocated/total devices, or for pools with
// shared counters the average over counter sets of each set's most used
// counter.
double PoolUtilization(const PoolUse& pool) {
  if (pool.capacity.empty()) {
    return pool.devices.empty() ? 0
                                : static_cast<double>(pool.used.size()) /
                                      static_cast<double>(pool.devices.size());
  }
  std::map<std::string, std::map<std::string, double>> consumed;
  for (const std::string& name : pool.used) {
    for (const auto& consumption : pool.devices.at(name)->consumes_counters) {
      for (const auto& [counter, amount] : consumption.counters) {
        consumed[consumption.counter_set][counter] +=
            amount.value.AsApproximateDouble();
      }
    }
  }
  double sum = 0;
  for (const auto& [set, counters] : pool.capacity) {
    double highest = 0;
    for (const auto& [counter, capacity] : counters) {
      if (capacity <= 0) continue;
      highest = std::max(highest, consumed[set][counter] / capacity);
    }
    sum += highest;
  }
  return sum / static_cast<double>(pool.capacity.size());
}

}  // namespace

std::map<std::string, double> DeviceUtilizationByNode(
    ClusterSimulation& simulation) {
  const std::vector<client::ObjectPtr> slices = simulation.Slices();
  std::map<std::pair<std::string, std::string>, PoolUse> pools;
  for (const client::ObjectPtr& object : slices) {
    const auto* slice = As<api::ResourceSlice>(object);
    if (slice == nullptr || !slice->spec.node_name) continue;
    PoolUse& pool = pools[{slice->spec.driver, slice->spec.pool.name}];
    pool.node = *slice->spec.node_name;
    for (const api::Device& device : slice->spec.devices) {
      pool.devices[device.name] = &device;
    }
    for (const api::CounterSet& set : slice->spec.shared_counters) {
      for (const auto& [name, counter] : set.counters) {
        pool.capacity[set.name][name] = counter.value.AsApproximateDouble();
      }
    }
  }
  for (const client::ObjectPtr& object : simulation.Claims()) {
    const auto* claim = As<api::ResourceClaim>(object);
    if (claim == nullptr || !claim->status.allocation) continue;
    for (const auto& r : claim->status.allocation->devices.results) {
      if (r.admin_access.value_or(false)) continue;  // upstream leaves out
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
    node = std::max(node, PoolUtilization(pool));
  }
  return highest;
}

bool GoesWithItsNode(const client::ObjectPtr& object) {
  const auto* pod = As<api::Pod>(object);
  if (pod == nullptr) return false;
  if (pod->metadata.annotations.contains("kubernetes.io/config.mirror")) {
    return true;
  }
  for (const auto& owner : pod->metadata.owner_references) {
    if (owner.controller.value_or(false) && owner.kind == "DaemonSet") {
      return true;
    }
  }
  return false;
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
    if (GoesWithItsNode(simulation_.Pod(pod))) continue;
    SimulatedPlacement placed = simulation_.SchedulePod(pod);
    if (!placed.scheduled && simulation_.NodeNames().empty()) {
      return blocked(pod, "no other node would be left to run it");
    }
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
