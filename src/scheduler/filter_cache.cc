#include "scheduler/filter_cache.h"

#include <algorithm>

namespace dralloc::scheduler {
namespace {

// Beyond this many distinct claim shapes the cache starts over, so that a
// stream of one-off shapes cannot grow it without bound.
constexpr size_t kMaxShapes = 64;

bool HasShareId(const std::vector<api::AllocationResult>& results) {
  for (const api::AllocationResult& allocation : results) {
    for (const auto& result : allocation.devices.results) {
      if (result.share_id) return true;
    }
  }
  return false;
}

}  // namespace

FilterCache::FilterCache(const ClusterSnapshot& snapshot)
    : snapshot_(snapshot) {}

void FilterCache::Clear() {
  nodes_.clear();
  shapes_.clear();
}

void FilterCache::BeginCycle(
    const std::vector<const api::ResourceClaim*>& to_allocate) {
  if (!initialized_ ||
      inventory_generation_ != snapshot_.inventory_generation() ||
      nodes_generation_ != snapshot_.nodes_generation()) {
    Clear();
    inventory_generation_ = snapshot_.inventory_generation();
    nodes_generation_ = snapshot_.nodes_generation();
    initialized_ = true;
  }
  nodes_.resize(snapshot_.node_slots());
  auto same = [&](const std::vector<api::DeviceClaim>& shape) {
    if (shape.size() != to_allocate.size()) return false;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (!(shape[i] == to_allocate[i]->spec.devices)) return false;
    }
    return true;
  };
  auto it = std::find_if(shapes_.begin(), shapes_.end(), same);
  if (it != shapes_.end()) {
    shape_ = static_cast<size_t>(it - shapes_.begin());
    return;
  }
  if (shapes_.size() >= kMaxShapes) {
    Clear();
    nodes_.resize(snapshot_.node_slots());
  }
  std::vector<api::DeviceClaim> shape;
  shape.reserve(to_allocate.size());
  for (const api::ResourceClaim* claim : to_allocate) {
    shape.push_back(claim->spec.devices);
  }
  shapes_.push_back(std::move(shape));
  shape_ = shapes_.size() - 1;
}

uint64_t FilterCache::PoolStamp(size_t node) {
  NodeSlot& slot = nodes_[snapshot_.nodes()[node].cache_slot];
  if (!slot.pools_known) {
    const allocator::DeviceInventory& inventory = snapshot_.inventory();
    auto view = inventory.ViewFor(snapshot_.nodes()[node].info);
    for (const allocator::GatheredPool& gathered : view->pools) {
      const allocator::InventoryPool& pool = inventory.pools()[gathered.pool];
      slot.pool_generations.push_back(
          snapshot_.PoolGeneration(pool.driver, pool.name));
    }
    slot.pools_known = true;
  }
  uint64_t stamp = 0;
  for (const uint64_t* generation : slot.pool_generations) stamp += *generation;
  return stamp;
}

const CachedFilterVerdict* FilterCache::Find(size_t node) {
  NodeSlot& slot = nodes_[snapshot_.nodes()[node].cache_slot];
  for (const Entry& entry : slot.entries) {
    if (entry.shape != shape_) continue;
    if (entry.pool_stamp != PoolStamp(node)) return nullptr;
    ++hits_;
    return &entry.verdict;
  }
  return nullptr;
}

void FilterCache::Store(size_t node, FilterCode code,
                        const std::vector<api::AllocationResult>& results) {
  if (code != FilterCode::kFits && code != FilterCode::kUnfit) return;
  if (code == FilterCode::kFits && HasShareId(results)) return;
  NodeSlot& slot = nodes_[snapshot_.nodes()[node].cache_slot];
  Entry entry{shape_, PoolStamp(node), {code, {}}};
  if (code == FilterCode::kFits) {
    entry.verdict.results =
        std::make_shared<const std::vector<api::AllocationResult>>(results);
  }
  for (Entry& existing : slot.entries) {
    if (existing.shape == shape_) {
      existing = std::move(entry);
      return;
    }
  }
  slot.entries.push_back(std::move(entry));
}

}  // namespace dralloc::scheduler
