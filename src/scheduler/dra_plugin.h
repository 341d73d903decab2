// DraPlugin: the scheduler's DynamicResources plugin, one method per
// extension point as upstream's dynamicresources.go has them.
//
// A scheduling cycle creates one DraCycleState for the pod and calls, in
// order: PreEnqueue, PreFilter, Filter for each node the node plugins let
// through, then PostFilter when no node fits, or Score and Reserve. The
// binding cycle (Binder) calls PreBind and, when PreBind or Bind failed,
// Unreserve.
//
// Threads: PreEnqueue, PreFilter, Filter, PostFilter, Score, Reserve and
// RestoreAssumed read or change the ClusterSnapshot and REQUIRE the
// scheduler's lock. Deallocate, PreBind and Unreserve only talk to the API
// server; they run without that lock (on binder threads or after the
// scheduling thread released it) and are safe to call concurrently.
#ifndef DRALLOC_SCHEDULER_DRA_PLUGIN_H_
#define DRALLOC_SCHEDULER_DRA_PLUGIN_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "allocator/allocator.h"
#include "client/api_client.h"
#include "scheduler/bind_task.h"
#include "scheduler/classic/classic_cycle_state.h"
#include "scheduler/classic/classic_writes.h"
#include "scheduler/cluster_snapshot.h"
#include "scheduler/extended_resource_claim.h"
#include "scheduler/filter_code.h"
#include "scheduler/unschedulable_message.h"

namespace dralloc::scheduler {

// How to choose among nodes that fit equally well by upstream's scoring.
enum class Placement {
  kDefault,  // upstream-like: the first feasible node in rotating order
  kPack,     // prefer nodes whose devices are already most in use
  kSpread,   // prefer nodes whose devices are least in use
};

// The name the special claim for extended resources carries while it
// exists only in a cycle (not a valid object name, as upstream's).
inline constexpr std::string_view kInMemoryExtendedClaimName =
    "<extended-resources>";

struct DraPluginOptions {
  Placement placement = Placement::kDefault;
  // Allocator search budget per node.
  uint64_t max_steps = 2'000'000;
};

// One claim of the pod, as found by PreEnqueue.
struct PodClaim {
  std::string name;  // pod.spec.resourceClaims[].name
  std::string key;   // "<namespace>/<claim name>"
  client::ObjectPtr object;
  const api::ResourceClaim* claim = nullptr;  // in `object`
};

// A node that passed Filter, with the allocations for the pod's
// unallocated claims there (in DraCycleState::to_allocate order), followed
// by the allocation of the special claim for extended resources when
// `extended` is not empty.
struct Candidate {
  size_t node = 0;  // index into ClusterSnapshot::nodes()
  std::vector<api::AllocationResult> results;
  // KEP-5004: the special claim's requests and mappings on this node;
  // null when the pod asks for no extended resource DRA serves here (kept
  // out of line: Filter builds and drops a Candidate per feasible node).
  std::unique_ptr<ExtendedResourceClaimPlan> extended;
  // Set instead of `results` when the allocations came from the
  // SchedulingFramework's FilterCache (shared with it, read-only).
  std::shared_ptr<const std::vector<api::AllocationResult>> shared_results;

  const std::vector<api::AllocationResult>& allocations() const {
    return shared_results != nullptr ? *shared_results : results;
  }
  // Empties the candidate for `node_index`, keeping its vectors' storage.
  void Reset(size_t node_index) {
    node = node_index;
    results.clear();
    extended.reset();
    shared_results.reset();
  }
};

// What the plugin learns about the pod during one cycle (upstream's
// stateData). Lives no longer than the cycle; `pod` must outlive it.
struct DraCycleState {
  explicit DraCycleState(const api::Pod& pod) : pod(pod) {}

  const api::Pod& pod;
  // PreEnqueue: the pod's claims, each once, in spec order.
  std::vector<PodClaim> claims;
  // PreFilter: the unallocated claims and where they are in `claims`.
  std::vector<const api::ResourceClaim*> to_allocate;
  std::vector<size_t> to_allocate_index;
  // Node scores can differ (placement or a prioritized list), so Filter
  // should look at more than the first feasible node.
  bool wants_scores = false;
  // KEP-5004: the classes serving extended resources, when the pod asks for
  // one of them (null otherwise); Filter then plans a special claim per node.
  const ExtendedResourceClasses* extended_classes = nullptr;
  // KEP-5004, PreFilter: a special claim an earlier cycle created for the
  // pod whose binding never completed (a scheduler stopped between PreBind
  // and Bind). It holds devices that may not suit any node now: the cycle
  // deletes it and the pod waits for the deletion, as upstream's PostFilter.
  client::ObjectPtr stale_extended_claim;
  std::optional<allocator::Allocator> allocator;
  // Filter: allocated claims whose node selector excluded some node.
  std::set<std::string> unavailable_claims;
  uint64_t allocator_calls = 0;
  std::string error;  // why Filter returned kError
  // The pod's resource.k8s.io/v1alpha2 (classic DRA) claims, found by
  // PreEnqueue; null when it has none (scheduler/classic).
  std::unique_ptr<classic::ClassicCycleState> classic;
};

struct PreEnqueueResult {
  enum class Code {
    kReady,          // every claim is there and usable
    kGated,          // a generated claim is not created or cached yet
    kUnschedulable,  // `message` says which claim is unusable
  };
  Code code = Code::kReady;
  std::string message;
  // The key of a claim missing from the cache: the pod waits for it.
  std::string missing_claim;
};

class DraPlugin final {
 public:
  // `client` and `snapshot` must outlive the plugin.
  DraPlugin(client::ApiClient& client, ClusterSnapshot& snapshot,
            DraPluginOptions options);

  // Resolves the pod's claims into state.claims (classic ones into
  // state.classic), in spec order, stopping
  // at the first one that is not usable: its generated name is not in the
  // pod status yet (kGated), it is not in the cache (kGated for a generated
  // claim, kUnschedulable "not found" otherwise; both set missing_claim),
  // it is being deleted, it is generated but not owned by the pod, or it
  // is allocated and its reservedFor is full without the pod
  // (kUnschedulable). Upstream checks the last one in PreFilter; here the
  // first failing claim in spec order decides, whatever the reason.
  PreEnqueueResult PreEnqueue(DraCycleState& state) const;

  // Picks the claims to allocate, decides whether scores can differ and
  // sets up the allocator over the snapshot. Cannot fail.
  void PreFilter(DraCycleState& state) const;

  // Whether the pod's claims fit `node`: every allocated claim's node
  // selector must match ("resourceclaim not available on the node"), and
  // the allocator must find devices for the unallocated ones, which are
  // moved into `results`. kError (with state.error) when the allocator
  // rejects the claims themselves (kInvalidArgument): no node can help.
  // With state.extended_classes, the special claim the node needs
  // (`extended`, which must then be given) is allocated with them, last.
  FilterCode Filter(DraCycleState& state, const NodeEntry& node,
                    UnschedulableReasons& reasons,
                    std::vector<api::AllocationResult>& results,
                    ExtendedResourceClaimPlan* extended = nullptr) const;
  // Filter into `candidate` (for node candidate.node = `node`): its results
  // and, when the node needs a special claim, its `extended` plan.
  FilterCode FilterCandidate(DraCycleState& state, const NodeEntry& node,
                             UnschedulableReasons& reasons,
                             Candidate& candidate) const;
  // Filter's first half: whether every allocated claim's node selector
  // matches `node` (else the reason is recorded, the claim noted in
  // state.unavailable_claims, and false returned), and whether the classic
  // claims allow the node (ClassicClaims::Filter).
  bool AllocatedClaimsAvailable(DraCycleState& state, const NodeEntry& node,
                                UnschedulableReasons& reasons) const;

  // KEP-5517, after Filter (or its cached verdict) found devices: whether
  // `node` has room for what the pod's claims add to its node allocatable
  // resources with `allocations` (in state.to_allocate order), beyond the
  // containers' requests NodeResourcesFit checked, and no claim whose
  // devices map such resources is in use by another pod. Records
  // "Insufficient <resource>" otherwise.
  bool NodeAllocatableFits(
      const DraCycleState& state, const NodeEntry& node,
      const std::vector<api::AllocationResult>& allocations,
      UnschedulableReasons& reasons) const;
  // The pod's status entries with `allocations`, ordered by claim name
  // (empty when its devices map no node allocatable resources); an error
  // when a device's mapping cannot be computed (NodeAllocatableStatusFor).
  StatusOr<std::vector<api::NodeAllocatableResourceClaimStatus>>
  NodeAllocatableStatuses(
      const DraCycleState& state,
      const std::vector<api::AllocationResult>& allocations) const;

  // After no node fit: an allocated claim that was unavailable on some
  // node and is reserved for nobody else, to deallocate so that the pod
  // may go elsewhere next time; null when there is none.
  client::ObjectPtr PostFilter(const DraCycleState& state) const;
  // PostFilter's write: clears the claim's allocation and reservations.
  Status Deallocate(const client::ObjectPtr& claim) const;
  // Deletes DraCycleState::stale_extended_claim (its finalizer first).
  void DeleteStaleExtendedClaim(const client::ObjectPtr& claim) const;

  // Upstream's score range and this plugin's weight in the weighted sum of
  // the default profile.
  static constexpr int64_t kMaxNodeScore = 100;
  static constexpr int64_t kScoreWeight = 2;

  // The raw KEP-4816 score of `candidate` (upstream's computeScore summed
  // over the pod's claims to allocate): per claim, each request with a
  // prioritized list adds 8 - the index of the subrequest it got, once,
  // however many devices that subrequest allocated. 0 for a pod without
  // prioritized lists.
  int64_t ScoreNode(const DraCycleState& state,
                    const Candidate& candidate) const;
  // Upstream's default normalization (DefaultNormalizeScore): each score
  // becomes score * 100 / max; all 0 when max is 0.
  static void NormalizeScores(std::span<int64_t> scores);

  // Index of the best of `feasible` (not empty): kScoreWeight times the
  // normalized ScoreNode, plus the placement preference; the first best
  // wins.
  size_t Score(const DraCycleState& state,
               const std::vector<Candidate>& feasible) const;

  // Assumes the chosen allocations and the pod's reservation in the
  // snapshot (so the next pod cannot take the devices) and returns what
  // PreBind must write. Consumes chosen.results (copies shared_results).
  BindTask Reserve(const DraCycleState& state,
                   const client::ObjectPtr& pod_object, Candidate& chosen);

  // Writes each claim of `task`: the delete-protection finalizer, the
  // allocation and the reservation, with optimistic concurrency and a few
  // retries. Appends each successful write to `written`. kAborted when a
  // claim was allocated concurrently or kept changing.
  Status PreBind(const BindTask& task, WrittenClaims& written) const;
  // Takes back the reservations PreBind wrote (and the allocations it
  // made, when nobody else uses the claim) unless the pod got bound anyway.
  void Unreserve(const BindTask& task, const WrittenClaims& written) const;
  // Drops Reserve's assumptions for `task` from the snapshot.
  void RestoreAssumed(const BindTask& task);
  // After the pod was bound: deletes its PodSchedulingContext (classic
  // DRA), when it had one.
  void PostBind(const BindTask& task) const;
  // The classic DRA writes (PodSchedulingContext, deallocation requests).
  const classic::ClassicWrites& classic_writes() const {
    return classic_writes_;
  }

 private:
  // PreBind's last step: pod.status.nodeAllocatableResourceClaimStatuses
  // and extendedResourceClaimStatus as Reserve computed them (nothing when
  // there are none).
  Status WritePodStatus(const BindTask& task) const;
  // Unreserve (KEP-5517): takes back the nodeAllocatableResourceClaimStatuses
  // PreBind may have written, as upstream's
  // clearNodeAllocatableResourceClaimStatus does; best effort.
  void ClearNodeAllocatableStatus(const BindTask& task) const;
  // KEP-5004, Reserve: names the special claim, assumes its allocation and
  // the pod's reservation in the snapshot, and records it in `task`.
  void ReserveExtendedClaim(const DraCycleState& state, Candidate& chosen,
                            const std::string& now, BindTask& task);
  // PreBind: creates the special claim and writes its allocation and
  // reservation (appended to `written`).
  Status CreateExtendedClaim(const BindTask& task,
                             WrittenClaims& written) const;
  // Unreserve: deletes the special claim (its finalizer first), if created.
  void DeleteExtendedClaim(const BindTask& task) const;
  void DeleteClaimAndFinalizer(const std::string& namespace_,
                               const std::string& name) const;

  client::ApiClient& client_;
  ClusterSnapshot& snapshot_;
  DraPluginOptions options_;
  classic::ClassicWrites classic_writes_;
  uint64_t extended_claims_named_ = 0;  // by Reserve, under the lock
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_DRA_PLUGIN_H_
