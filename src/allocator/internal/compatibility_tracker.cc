#include "allocator/internal/compatibility_tracker.h"

#include <algorithm>

namespace dralloc::allocator {
namespace {

std::vector<std::string_view> SortedGroups(
    const api::DeviceCounterConsumption& consumption) {
  std::vector<std::string_view> groups(consumption.compatibility_groups.begin(),
                                       consumption.compatibility_groups.end());
  std::sort(groups.begin(), groups.end());
  return groups;
}

}  // namespace

CompatibilityTracker::CompatibilityTracker(const DeviceInventory& inventory,
                                           const NodeView& view,
                                           std::function<bool(uint32_t)> in_use)
    : inventory_(inventory),
      view_(view),
      in_use_(std::move(in_use)),
      pool_uses_groups_(view.pools.size(), -1) {}

bool CompatibilityTracker::PoolUsesGroups(uint32_t pool_pos) {
  int8_t& known = pool_uses_groups_[pool_pos];
  if (known < 0) {
    known = 0;
    for (uint32_t d : view_.pools[pool_pos].all_devices) {
      for (const auto& c : inventory_.devices()[d].device->consumes_counters) {
        if (!c.compatibility_groups.empty()) known = 1;
      }
    }
  }
  return known == 1;
}

CompatibilityTracker::GroupState CompatibilityTracker::InitialState(
    uint32_t pool_pos, std::string_view counter_set) {
  GroupState state;
  for (uint32_t d : view_.pools[pool_pos].all_devices) {
    if (!in_use_(d)) continue;
    for (const auto& c : inventory_.devices()[d].device->consumes_counters) {
      if (c.counter_set == counter_set) state = Join(state, SortedGroups(c));
    }
  }
  return state;
}

bool CompatibilityTracker::Admits(const GroupState& state,
                                  const std::vector<std::string_view>& groups) {
  if (!state.any) return true;
  if (state.ungrouped || groups.empty())
    return state.ungrouped && groups.empty();
  for (std::string_view group : groups) {
    if (std::binary_search(state.common.begin(), state.common.end(), group)) {
      return true;
    }
  }
  return false;
}

CompatibilityTracker::GroupState CompatibilityTracker::Join(
    const GroupState& state, const std::vector<std::string_view>& groups) {
  GroupState out;
  out.any = true;
  if (!state.any) {
    out.ungrouped = groups.empty();
    out.common = groups;
    return out;
  }
  out.ungrouped = state.ungrouped;
  std::set_intersection(state.common.begin(), state.common.end(),
                        groups.begin(), groups.end(),
                        std::back_inserter(out.common));
  return out;
}

bool CompatibilityTracker::TryAdd(uint32_t pool_pos, uint32_t device) {
  if (!PoolUsesGroups(pool_pos)) return true;
  const auto& consumptions =
      inventory_.devices()[device].device->consumes_counters;
  for (const auto& c : consumptions) {
    auto [it, inserted] = states_.try_emplace(Key{pool_pos, c.counter_set});
    if (inserted) it->second.push_back(InitialState(pool_pos, c.counter_set));
    if (!Admits(it->second.back(), SortedGroups(c))) return false;
  }
  for (const auto& c : consumptions) {
    auto& stack = states_.at(Key{pool_pos, c.counter_set});
    stack.push_back(Join(stack.back(), SortedGroups(c)));
  }
  return true;
}

void CompatibilityTracker::Remove(uint32_t pool_pos, uint32_t device) {
  if (!PoolUsesGroups(pool_pos)) return;
  for (const auto& c : inventory_.devices()[device].device->consumes_counters) {
    states_.at(Key{pool_pos, c.counter_set}).pop_back();
  }
}

}  // namespace dralloc::allocator
