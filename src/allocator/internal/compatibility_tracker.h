// Device compatibility groups (KEP-5963): devices drawing from one counter
// set may be allocated together only when all of them leave
// `compatibilityGroups` empty, or all of them share at least one group. The
// tracker keeps, per counter set, the rolling intersection of the groups of
// the devices allocated there (by earlier claims and by this call).
#ifndef DRALLOC_ALLOCATOR_INTERNAL_COMPATIBILITY_TRACKER_H_
#define DRALLOC_ALLOCATOR_INTERNAL_COMPATIBILITY_TRACKER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "allocator/device_inventory.h"

namespace dralloc::allocator {

class CompatibilityTracker {
 public:
  // `in_use(device)`: whether a claim outside this call holds the device.
  CompatibilityTracker(const DeviceInventory& inventory, const NodeView& view,
                       std::function<bool(uint32_t)> in_use);

  // Whether `device` (of pool position `pool_pos`) is compatible with the
  // devices on each of its counter sets; if so it joins them.
  bool TryAdd(uint32_t pool_pos, uint32_t device);
  // Undoes the most recent TryAdd of `device` that returned true (LIFO).
  void Remove(uint32_t pool_pos, uint32_t device);

 private:
  // The devices on one counter set: none yet, all ungrouped, or grouped with
  // `common` (sorted) the groups every one of them declares.
  struct GroupState {
    bool any = false;
    bool ungrouped = false;
    std::vector<std::string_view> common;
  };
  using Key = std::pair<uint32_t, std::string_view>;  // pool position, set

  bool PoolUsesGroups(uint32_t pool_pos);
  // The state of `key` before this call placed anything there.
  GroupState InitialState(uint32_t pool_pos, std::string_view counter_set);
  static bool Admits(const GroupState& state,
                     const std::vector<std::string_view>& groups);
  static GroupState Join(const GroupState& state,
                         const std::vector<std::string_view>& groups);

  const DeviceInventory& inventory_;
  const NodeView& view_;
  std::function<bool(uint32_t)> in_use_;
  std::vector<int8_t> pool_uses_groups_;  // -1 unknown, 0 no, 1 yes
  // Per counter set: the initial state, then one state per device placed.
  std::map<Key, std::vector<GroupState>> states_;
};

}  // namespace dralloc::allocator

#endif  // DRALLOC_ALLOCATOR_INTERNAL_COMPATIBILITY_TRACKER_H_
