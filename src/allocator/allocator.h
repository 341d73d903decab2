// Allocator: the structured-parameters device allocator.
//
// Given a node, the device inventory, what is already allocated and an
// ordered list of claims, Allocate finds devices for every claim (all or
// nothing) or says that they do not fit on this node and why. With default
// options the choice is exactly upstream Kubernetes' first fit: pools by
// driver then pool name, slices by name, devices in listed order, requests
// in order, combinations (not permutations) within a request. Pruning only
// cuts branches that cannot succeed, so it never changes the answer; a step
// budget bounds pathological searches.
#ifndef DRALLOC_ALLOCATOR_ALLOCATOR_H_
#define DRALLOC_ALLOCATOR_ALLOCATOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "allocator/allocated_state.h"
#include "allocator/device_inventory.h"
#include "allocator/node_info.h"
#include "api/types/resource_claim.h"
#include "common/status.h"

namespace dralloc::allocator {

// Upstream's limit on results per claim.
inline constexpr int kMaxDevicesPerClaim = 32;

struct AllocatorOptions {
  // Search steps (device placement attempts) before giving up with
  // kResourceExhausted "search limit reached".
  uint64_t max_steps = 2'000'000;
  // Collect per-request diagnostics even when allocation succeeds.
  bool explain = false;
  // Produces shareIDs for shares of shareable devices; default: random UUIDs.
  std::function<std::string()> share_id_generator;
  // Checked at every step; when set, Allocate stops with kCancelled.
  const std::atomic<bool>* cancelled = nullptr;
};

struct AllocationStats {
  uint64_t steps = 0;            // device placement attempts
  uint64_t pruned = 0;           // branches cut by feasibility checks
  uint64_t cel_evaluations = 0;  // CEL constraint evaluations
};

struct Allocation {
  // True: `results` holds one AllocationResult per claim, in input order.
  // False: the claims do not fit on this node; `explanation` says why.
  bool allocated = false;
  std::vector<api::AllocationResult> results;
  // Human-readable lines (each names claim and request); filled when
  // unsatisfiable, or always with AllocatorOptions::explain.
  std::vector<std::string> explanation;
  // When unsatisfiable: the first `num_reasons` lines say what blocks the
  // claims; the rest are details.
  size_t num_reasons = 0;
  AllocationStats stats;
};

class Allocator {
 public:
  // `inventory` and `state` must outlive the allocator and not change while
  // Allocate runs.
  Allocator(const DeviceInventory& inventory, const AllocatedState& state,
            AllocatorOptions options = {});

  // Errors: kInvalidArgument for claims the allocator cannot handle (unknown
  // class, too many devices, bad CEL), kFailedPrecondition for node-specific
  // fatal conditions (invalid pools, All on a pool being updated, a CEL
  // runtime error), kResourceExhausted when the step budget is used up,
  // kCancelled when cancelled.
  StatusOr<Allocation> Allocate(
      const NodeInfo& node,
      std::span<const api::ResourceClaim* const> claims) const;

 private:
  const DeviceInventory& inventory_;
  const AllocatedState& state_;
  AllocatorOptions options_;
};

}  // namespace dralloc::allocator

#endif  // DRALLOC_ALLOCATOR_ALLOCATOR_H_
