// ClassicPlugin: the classic DRA part of a scheduling cycle (Kubernetes
// 1.30's dynamicresources plugin for resource.k8s.io/v1alpha2 claims,
// docs/classic-dra.md section 6), run by the SchedulingFramework and the
// Scheduler beside DraPlugin's structured part: the decisions are
// ClassicClaims', the objects come from the ClusterSnapshot, and the writes
// are ClassicWrites'. Every step is a no-op for a pod without classic claims
// (DraCycleState::classic is null). Thread-compatible, under the
// scheduler's lock as DraPlugin's scheduling-cycle steps.
#ifndef DRALLOC_SCHEDULER_CLASSIC_CLASSIC_PLUGIN_H_
#define DRALLOC_SCHEDULER_CLASSIC_CLASSIC_PLUGIN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/classic/classic_writes.h"
#include "scheduler/cluster_snapshot.h"
#include "scheduler/dra_plugin.h"

namespace dralloc::scheduler::classic {

// Reserve's decision for the chosen node.
struct ClassicReserve {
  // The pod waits for drivers (unallocated classic claims remain): publish
  // `write`, report `message`, and wake the pod when a claim in `claims`
  // changes or the drivers answer in the PodSchedulingContext.
  bool waits = false;
  std::string message;
  ContextWrite write;
  std::vector<std::string> claims;  // keys of the claims drivers allocate
  // Otherwise: the claims PreBind reserves for the pod.
  std::vector<ClassicClaimReservation> reservations;
  bool delete_scheduling_context = false;
};

class ClassicPlugin {
 public:
  explicit ClassicPlugin(const ClusterSnapshot& snapshot)
      : snapshot_(snapshot) {}

  // After DraPlugin::PreFilter: reads the pod's PodSchedulingContext and
  // the claims' classes and decides as 1.30's PreFilter; a verdict other
  // than ok rejects the pod on every node. Claims of structuredParameters
  // classes get their parameters looked up and selectors compiled
  // (structured_allocation.h).
  Verdict PreFilter(DraCycleState& state);
  // After the node passed the other filters: whether the pod's structured
  // classic claims fit on it (never cached: they depend on what is taken).
  bool StructuredFits(const DraCycleState& state, const std::string& node,
                      std::string& reason) const;
  // After Filter found `feasible` nodes: the potential nodes to publish
  // (at most 128, a pseudo-random subset when more, from a per-plugin
  // counter so that runs repeat).
  void PreScore(DraCycleState& state, const std::vector<Candidate>& feasible);
  // The structured classic claims are allocated here, and their instances
  // count as taken until the informer shows the allocation (ObserveClaim)
  // or the binding fails (ForgetAssumed).
  ClassicReserve Reserve(const DraCycleState& state, const std::string& node);
  // When no node fits (and DraPlugin::PostFilter chose nothing): the
  // allocated classic claim to have deallocated.
  std::optional<ClassicDeallocation> PostFilter(
      const DraCycleState& state) const;

  // A v1alpha2 ResourceSlice or parameters object changed.
  void InvalidateStructured() { inventory_dirty_ = true; }
  // The informer delivered `now` for classic claim `key` (null: deleted).
  // True when an allocation Reserve assumed became visible (or moot).
  bool ObserveClaim(const std::string& key,
                    const api::v1alpha2::ResourceClaim* now);
  // Whether Reserve allocated claim `key` and the informer does not show it.
  bool IsAssumed(const std::string& key) const {
    return assumed_.contains(key);
  }
  // The binding failed: the instances of these reservations are free again.
  void ForgetAssumed(const std::vector<ClassicClaimReservation>& claims);

 private:
  // Plans the unallocated claims of structured classes into `classic`.
  Verdict PlanStructured(ClassicCycleState& classic);
  // Whether an instance is held by a claim of either family.
  std::function<bool(const std::string&)> TakenTest() const;
  // Allocates them on `node` into `out`'s reservations.
  void ReserveStructured(const ClassicCycleState& classic,
                         const std::string& node, ClassicReserve& out);

  const ClusterSnapshot& snapshot_;
  uint64_t prescores_ = 0;
  // 1.30's structured model.
  NamedResourcesInventory inventory_;
  bool inventory_dirty_ = true;
  SelectorCache selectors_;
  // Claim key → instances Reserve allocated that the informer does not
  // show yet.
  std::map<std::string, std::vector<std::string>> assumed_;
};

}  // namespace dralloc::scheduler::classic

#endif  // DRALLOC_SCHEDULER_CLASSIC_CLASSIC_PLUGIN_H_
