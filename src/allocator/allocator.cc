#include "allocator/allocator.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>

#include "allocator/internal/allocation_search.h"
#include "cel/dra/dra_environment.h"

namespace dralloc::allocator {

Allocator::Allocator(const DeviceInventory& inventory,
                     const AllocatedState& state, AllocatorOptions options)
    : inventory_(inventory), state_(state), options_(std::move(options)) {}

StatusOr<Allocation> Allocator::Allocate(
    const NodeInfo& node,
    std::span<const api::ResourceClaim* const> claims) const {
  std::shared_ptr<const NodeView> view = inventory_.ViewFor(node);
  AllocationSearch search(inventory_, state_, options_, *view, claims);
  RETURN_IF_ERROR(search.Prepare());
  return search.Run();
}

}  // namespace dralloc::allocator
