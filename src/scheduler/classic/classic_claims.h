// ClassicClaims: the decisions Kubernetes 1.30's `dynamicresources` plugin
// made for a pod's resource.k8s.io/v1alpha2 claims (KEP-3063, issue #27),
// as pure functions of the objects it read: which pods wait and why, which
// nodes pass Filter, which potential nodes and which selected node go into
// the pod's PodSchedulingContext, and which claim PostFilter deallocates.
// Reading and writing objects is the caller's (the scheduler's) part.
//
// Claims of a class with `structuredParameters: true` (1.30's structured
// model) are allocated by dralloc's allocator, not by a driver: here they
// only count where 1.30 counted them (Reserve's node selection).
//
// ClassicPlugin (classic_plugin.h) runs them in the scheduling cycle
// (docs/classic-dra.md §6).
#ifndef DRALLOC_SCHEDULER_CLASSIC_CLASSIC_CLAIMS_H_
#define DRALLOC_SCHEDULER_CLASSIC_CLASSIC_CLAIMS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "allocator/node_info.h"
#include "api/types/core.h"
#include "api/types/node_selector.h"
#include "api/v1alpha2/types.h"

namespace dralloc::scheduler::classic {

// The outcome of one step for the pod: go on, or stop with 1.30's reason.
struct Verdict {
  enum class Code {
    kOk,
    kUnschedulable,  // UnschedulableAndUnresolvable: waits for an event
    kPending,        // waits for a driver (PodSchedulingContext status)
    kError,          // retried with backoff
  };
  Code code = Code::kOk;
  std::string reason;

  bool ok() const { return code == Code::kOk; }
  static Verdict Ok() { return {}; }
  static Verdict Unschedulable(std::string reason) {
    return {Code::kUnschedulable, std::move(reason)};
  }
  static Verdict Pending(std::string reason) {
    return {Code::kPending, std::move(reason)};
  }
  static Verdict Error(std::string reason) {
    return {Code::kError, std::move(reason)};
  }
};

// One claim of the pod: pod.spec.resourceClaims[i].name and its claim.
struct PodClaim {
  std::string pod_claim_name;
  const api::v1alpha2::ResourceClaim* claim = nullptr;
};

// The ResourceClass named by a claim, or null when it does not exist.
using ClassLookup =
    std::function<const api::v1alpha2::ResourceClass*(std::string_view name)>;

// What Reserve decided to publish in the PodSchedulingContext.
struct ReserveOutcome {
  Verdict verdict;
  std::optional<std::string> selected_node;
  std::optional<std::vector<std::string>> potential_nodes;
};

// Which claim PostFilter deallocates, and how.
struct Deallocation {
  size_t claim = 0;  // index into the pod's claims
  // A classic claim gets deallocationRequested (its driver deallocates); a
  // structured one has its allocation cleared by the scheduler.
  bool classic = true;
  // The PodSchedulingContext's selectedNode is cleared first, so that the
  // driver does not allocate for that node again.
  bool clear_selected_node = false;
};

class ClassicClaims {
 public:
  // PreFilter. `context` is the pod's PodSchedulingContext (named like the
  // pod), or null. On a verdict other than kOk the pod stops.
  Verdict PreFilter(const api::Pod& pod, std::vector<PodClaim> claims,
                    const ClassLookup& classes,
                    const api::v1alpha2::PodSchedulingContext* context);

  // Filter for one node (after PreFilter returned kOk). Allocated claims not
  // available on the node are remembered for PostFilter.
  Verdict Filter(const allocator::NodeInfo& node);

  // PreScore: the potential nodes to publish, or nullopt when the context
  // already lists every feasible node or no classic claim is pending. At
  // most 128, a random subset (from `seed`) when more are feasible, sorted.
  std::optional<std::vector<std::string>> PotentialNodes(
      const std::vector<std::string>& feasible, uint64_t seed) const;

  // Reserve on `node`. `potential_nodes` is what PreScore chose (nullopt
  // when PreScore did not run or published nothing).
  ReserveOutcome Reserve(
      const std::string& node,
      const std::optional<std::vector<std::string>>& potential_nodes) const;

  // PostFilter when no node fits: the claim to deallocate, or nullopt with
  // the reason in `verdict`.
  std::optional<Deallocation> PostFilter(const api::Pod& pod,
                                         Verdict& verdict) const;

  // PreBind: the claims (indices) that are allocated but not yet reserved
  // for the pod; each gets {resource: pods, name, uid} in reservedFor.
  std::vector<size_t> ClaimsToReserve(const api::Pod& pod) const;

  // Whether the pod has unallocated claims a driver must allocate.
  bool HasPendingClassicClaims() const;

 private:
  struct ClaimState {
    PodClaim pod_claim;
    bool allocated = false;
    bool structured = false;
    bool immediate = false;
    // availableOnNodes of an allocated claim, suitableNodes of the class of
    // an unallocated one.
    const api::NodeSelector* node_filter = nullptr;
    // The driver's answer for this claim in the PodSchedulingContext.
    const api::v1alpha2::ResourceClaimSchedulingStatus* driver_status = nullptr;
  };

  std::vector<ClaimState> claims_;
  const api::v1alpha2::PodSchedulingContext* context_ = nullptr;
  std::set<size_t> unavailable_;  // allocated claims some node could not use
};

// Whether `claim` may get another consumer: its allocation is shareable or
// nobody holds it yet (1.30's CanBeReserved).
bool CanBeReserved(const api::v1alpha2::ResourceClaim& claim);
// Whether `claim` is reserved for the pod with `uid`.
bool IsReservedFor(const api::v1alpha2::ResourceClaim& claim,
                   std::string_view uid);

}  // namespace dralloc::scheduler::classic

#endif  // DRALLOC_SCHEDULER_CLASSIC_CLASSIC_CLAIMS_H_
