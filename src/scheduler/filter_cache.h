// FilterCache: the allocator's verdicts of DraPlugin::Filter per (node,
// specs of the pod's claims to allocate), reused while nothing they depend
// on has changed.
//
// The allocator's answer for node N depends only on the claims' specs
// (their names appear in explanations only), the device inventory (slices,
// patches, taint rules, classes), N's name and labels, and the allocation
// state of the devices of the pools N can see (ViewFor(N).pools, including
// counter consumption by devices of those pools on other nodes). So a
// verdict stays valid while the snapshot's inventory_generation and
// nodes_generation are unchanged, N's entry is the same (verdicts are kept
// per NodeEntry::cache_slot, so nodes added or removed one at a time leave
// the others' verdicts valid) and the sum of the PoolGenerations of N's
// pools is unchanged (each only grows, so the sum grows iff one does).
//
// Cached: kFits with its AllocationResults, and kUnfit without its reason
// (explanations name the claim): a cycle that ends with no feasible node
// after a kUnfit hit must evaluate again without the cache to report the
// reasons. Not cached: kError, results holding a shareID (those are fresh
// per allocation).
//
// Thread-compatible; used by one SchedulingFramework under its caller's
// lock.
#ifndef DRALLOC_SCHEDULER_FILTER_CACHE_H_
#define DRALLOC_SCHEDULER_FILTER_CACHE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "api/types/resource_claim.h"
#include "scheduler/cluster_snapshot.h"
#include "scheduler/filter_code.h"

namespace dralloc::scheduler {

struct CachedFilterVerdict {
  FilterCode code = FilterCode::kUnfit;  // kFits or kUnfit
  // For kFits; shared with the Candidates that take it.
  std::shared_ptr<const std::vector<api::AllocationResult>> results;
};

class FilterCache {
 public:
  // `snapshot` must outlive the cache.
  explicit FilterCache(const ClusterSnapshot& snapshot);

  // Starts a cycle for the claims `to_allocate` (not empty): drops what
  // an inventory or node rebuild made stale and picks the claims' shape.
  void BeginCycle(const std::vector<const api::ResourceClaim*>& to_allocate);
  // The still valid verdict for node `node` (index into snapshot.nodes())
  // and this cycle's claims, or null.
  const CachedFilterVerdict* Find(size_t node);
  // Remembers the allocator's verdict for `node` in this cycle.
  void Store(size_t node, FilterCode code,
             const std::vector<api::AllocationResult>& results);

  uint64_t hits() const { return hits_; }

 private:
  struct Entry {
    size_t shape = 0;
    uint64_t pool_stamp = 0;
    CachedFilterVerdict verdict;
  };
  struct NodeSlot {
    bool pools_known = false;
    std::vector<const uint64_t*> pool_generations;
    std::vector<Entry> entries;  // at most one per shape
  };
  // Sum of the generations of the pools `node` can see.
  uint64_t PoolStamp(size_t node);
  void Clear();

  const ClusterSnapshot& snapshot_;
  uint64_t inventory_generation_ = 0;
  uint64_t nodes_generation_ = 0;
  bool initialized_ = false;
  std::vector<NodeSlot> nodes_;  // by NodeEntry::cache_slot
  // The distinct claim spec lists seen, by shape id.
  std::vector<std::vector<api::DeviceClaim>> shapes_;
  size_t shape_ = 0;  // this cycle's
  uint64_t hits_ = 0;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_FILTER_CACHE_H_
