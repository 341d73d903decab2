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
  // than ok rejects the pod on every node.
  Verdict PreFilter(DraCycleState& state) const;
  // After Filter found `feasible` nodes: the potential nodes to publish
  // (at most 128, a pseudo-random subset when more, from a per-plugin
  // counter so that runs repeat).
  void PreScore(DraCycleState& state, const std::vector<Candidate>& feasible);
  ClassicReserve Reserve(const DraCycleState& state,
                         const std::string& node) const;
  // When no node fits (and DraPlugin::PostFilter chose nothing): the
  // allocated classic claim to have deallocated.
  std::optional<ClassicDeallocation> PostFilter(
      const DraCycleState& state) const;

 private:
  const ClusterSnapshot& snapshot_;
  uint64_t prescores_ = 0;
};

}  // namespace dralloc::scheduler::classic

#endif  // DRALLOC_SCHEDULER_CLASSIC_CLASSIC_PLUGIN_H_
