// AllocatedState: what claims that are already allocated hold.
#ifndef DRALLOC_ALLOCATOR_ALLOCATED_STATE_H_
#define DRALLOC_ALLOCATOR_ALLOCATED_STATE_H_

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "api/types/resource_claim.h"
#include "common/quantity.h"
#include "common/string_hash.h"

namespace dralloc::allocator {

// Device keys are "<driver>/<pool>/<device>". Admin-access results hold no
// device (upstream: they are not counted as allocated). Results with a
// shareID are shares of a shareable device and add their consumed capacity.
class AllocatedState {
 public:
  void AddAllocation(const api::AllocationResult& allocation);
  void RemoveAllocation(const api::AllocationResult& allocation);

  // Exclusively allocated to some claim.
  bool IsAllocated(std::string_view device) const {
    return allocated_.find(device) != allocated_.end();
  }
  // Allocated exclusively or shared (counts for shared counters).
  bool IsInUse(std::string_view device) const {
    return IsAllocated(device) || consumed_.find(device) != consumed_.end();
  }
  // Capacity consumed by shares of a shareable device; nullptr if none.
  const std::map<std::string, Quantity>* ConsumedCapacity(
      std::string_view device) const {
    auto it = consumed_.find(device);
    return it == consumed_.end() ? nullptr : &it->second.capacity;
  }
  size_t num_allocated() const { return allocated_.size(); }

 private:
  struct Shares {
    int count = 0;
    std::map<std::string, Quantity> capacity;
  };
  std::unordered_multiset<std::string, StringHash, std::equal_to<>> allocated_;
  std::unordered_map<std::string, Shares, StringHash, std::equal_to<>>
      consumed_;
};

}  // namespace dralloc::allocator

#endif  // DRALLOC_ALLOCATOR_ALLOCATED_STATE_H_
