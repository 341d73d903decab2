#include "allocator/allocated_state.h"

namespace dralloc::allocator {
namespace {

std::string DeviceKey(const api::DeviceRequestAllocationResult& result) {
  return result.driver + "/" + result.pool + "/" + result.device;
}

}  // namespace

void AllocatedState::AddAllocation(const api::AllocationResult& allocation) {
  for (const auto& result : allocation.devices.results) {
    if (result.admin_access.value_or(false)) continue;
    if (!result.share_id) {
      allocated_.insert(DeviceKey(result));
      continue;
    }
    Shares& shares = consumed_[DeviceKey(result)];
    ++shares.count;
    for (const auto& [name, amount] : result.consumed_capacity) {
      auto [it, inserted] = shares.capacity.try_emplace(name, amount);
      if (!inserted) {
        auto sum = it->second.Add(amount);
        if (sum.ok()) it->second = *sum;
      }
    }
  }
}

void AllocatedState::RemoveAllocation(const api::AllocationResult& allocation) {
  for (const auto& result : allocation.devices.results) {
    if (result.admin_access.value_or(false)) continue;
    const std::string key = DeviceKey(result);
    if (!result.share_id) {
      auto it = allocated_.find(key);
      if (it != allocated_.end()) allocated_.erase(it);
      continue;
    }
    auto it = consumed_.find(key);
    if (it == consumed_.end()) continue;
    for (const auto& [name, amount] : result.consumed_capacity) {
      auto c = it->second.capacity.find(name);
      if (c == it->second.capacity.end()) continue;
      auto difference = c->second.Sub(amount);
      if (difference.ok()) c->second = *difference;
    }
    if (--it->second.count <= 0) consumed_.erase(it);
  }
}

}  // namespace dralloc::allocator
