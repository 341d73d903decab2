// ClusterSimulation: the simulation interface of KEP-4381 (cluster-
// autoscaler's DRA snapshot): a cluster loaded from objects, changed by
// simulated operations that run the real scheduling framework, and forked
// and reverted cheaply.
//
// Every change is an entry of an undo journal (the previous view of one
// pod, claim, node or slice); StartSimulation returns the journal position,
// Revert(mark) undoes back to it (also the scheduler's rotation and
// tie-break state, so that repeating reverted operations gives the same
// answers), Commit(mark) keeps the changes (an outer mark can still revert
// them). Nothing is ever copied wholesale.
//
// Pods and claims change as the scheduler's assumptions in the
// ClusterSnapshot; nodes and slices change in the in-memory API the
// snapshot's informers read. Nodes change in the snapshot one at a time;
// a slice change rebuilds the device inventory on the next cycle, except
// when no node can see the slice (its node does not exist and its pool has
// no slice for any other node): such slices stay in the inventory,
// unreachable, so that removing a node and putting it back, or publishing
// the slices of nodes before adding them, costs no rebuild.
// Thread-compatible.
#ifndef DRALLOC_SIMULATOR_CLUSTER_SIMULATION_H_
#define DRALLOC_SIMULATOR_CLUSTER_SIMULATION_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "api/object.h"
#include "client/informer.h"
#include "client/memory_api_client.h"
#include "common/status.h"
#include "common/string_hash.h"
#include "scheduler/cluster_snapshot.h"
#include "scheduler/dra_plugin.h"
#include "scheduler/scheduling_framework.h"

namespace dralloc::simulator {

// The outcome of scheduling one pod in the simulation.
struct SimulatedPlacement {
  bool scheduled = false;
  std::string node;    // when scheduled
  std::string reason;  // when not: the scheduler's message
};

class ClusterSimulation {
 public:
  // Loads the objects (Nodes, Pods, ResourceClaims with their status,
  // ResourceClaimTemplates, ResourceSlices, DeviceClasses, patches, taint
  // rules, Namespaces) and creates the claims of pods' templates as the
  // claim controller does. Errors name the object.
  static StatusOr<std::unique_ptr<ClusterSimulation>> Create(
      std::vector<api::Object> objects);
  ~ClusterSimulation();
  ClusterSimulation(const ClusterSimulation&) = delete;
  ClusterSimulation& operator=(const ClusterSimulation&) = delete;

  // Journal marks: nestable forks.
  size_t StartSimulation();
  void Revert(size_t mark);
  // Keeps the changes since `mark` (they stay revertible by an outer mark).
  void Commit(size_t mark) { (void)mark; }

  // Adds `node` and the slices it publishes (already named for it).
  Status SimulateAddNode(const api::Node& node,
                         const std::vector<api::ResourceSlice>& slices);
  // Adds a slice: one without a node (a network-attached pool), or the
  // slice of a node added later (publishing the slices of several nodes
  // before adding them costs one inventory rebuild instead of one each).
  Status SimulateAddSlice(const api::ResourceSlice& slice);
  // Removes the slice named `name` (kNotFound if there is none).
  Status SimulateRemoveSlice(const std::string& name);
  // Removes the node and the slices with its spec.nodeName; fails
  // (kFailedPrecondition) while pods are on it.
  Status SimulateRemoveNode(const std::string& name);
  // Binds the pod ("ns/name") to `node` if PreFilter/Filter of the profile
  // and of DRA let it: its claims are allocated there when first used and
  // reserved for it. kFailedPrecondition with the reason otherwise.
  Status SimulateBindPod(const std::string& pod_key, const std::string& node);
  // The pod becomes pending again: its reservations go, and a claim no pod
  // uses any more is deallocated.
  Status SimulateEvictPod(const std::string& pod_key);
  // The real framework over all nodes (or only the nodes named in
  // `only_nodes`, as if they were the cluster), then the bind there.
  SimulatedPlacement SchedulePod(
      const std::string& pod_key,
      const std::vector<std::string>* only_nodes = nullptr);

  // Keys of pods not bound to a node (and not finished), in name order.
  std::vector<std::string> PendingPods() const;
  // Keys of the pods counted on `node`, in name order.
  std::vector<std::string> PodsOnNode(const std::string& node);
  // The pod as the simulation sees it now (null: unknown).
  client::ObjectPtr Pod(const std::string& pod_key) const;
  // The claim as the simulation sees it now (null: unknown).
  client::ObjectPtr Claim(const std::string& claim_key) const {
    return snapshot_->Claim(claim_key);
  }
  // The slices as they are now (with simulated additions and removals).
  std::vector<client::ObjectPtr> Slices() const;
  bool HasSlice(const std::string& name) const;
  // Every claim as the simulation sees it now.
  std::vector<client::ObjectPtr> Claims() const;
  // Node names in name order (the snapshot refreshed).
  std::vector<std::string> NodeNames();
  // The snapshot (refreshed), for utilization and explanations.
  scheduler::ClusterSnapshot& Snapshot();
  const api::Node* Node(const std::string& name);

 private:
  struct JournalEntry {
    enum class Kind { kPod, kClaim, kApiCreated, kApiDeleted, kCursor } kind;
    std::string key;
    // kPod/kClaim: the assumed version before (null: none assumed).
    // kApiCreated: the created object; kApiDeleted: the deleted one.
    client::ObjectPtr before;
    // kCursor: the scheduler's rotation and tie-break state at the mark.
    size_t next_start_node = 0;
    uint64_t tie_breaks = 0;
  };
  ClusterSimulation();
  Status Load(std::vector<api::Object> objects);
  void PumpAll();
  void SetPod(const std::string& key, client::ObjectPtr now);
  void SetClaim(const std::string& key, client::ObjectPtr now);
  // Change the API and the snapshot; journaled unless reverting.
  Status CreateObject(const api::Object& object, bool journal = true);
  Status DeleteObject(const client::ObjectPtr& object, bool journal = true);
  // Whether no node can see `slice` (see the class comment).
  bool Unreachable(const api::ResourceSlice& slice);
  // The inventory will be rebuilt from the informers.
  void InvalidateInventory();
  // Journals the claims Reserve assumed and the pod bound on the node.
  void BookReserve(scheduler::DraCycleState& state,
                   const client::ObjectPtr& pod, scheduler::Candidate& chosen);
  Status FilterOneNode(scheduler::DraCycleState& state, size_t node,
                       scheduler::Candidate& candidate);

  // Keeps the loaded objects' uids: claims' reservedFor and generated
  // claims' owner references name pods by uid.
  client::MemoryApiClient api_{client::MemoryApiOptions{.keep_uids = true}};
  std::vector<std::unique_ptr<client::Informer>> informers_;
  std::unique_ptr<scheduler::ClusterSnapshot> snapshot_;
  std::unique_ptr<scheduler::DraPlugin> dra_;
  std::unique_ptr<scheduler::SchedulingFramework> framework_;
  size_t next_start_node_ = 0;
  // What is assumed now, by key (mirrors the snapshot's assumptions).
  StringKeyedMap<client::ObjectPtr> assumed_pods_;
  StringKeyedMap<client::ObjectPtr> assumed_claims_;
  std::vector<JournalEntry> journal_;
  // Slices deleted from the API but kept, unreachable, in the inventory
  // (by name): putting the same slice back needs no rebuild.
  StringKeyedMap<client::ObjectPtr> stale_slices_;
};

}  // namespace dralloc::simulator

#endif  // DRALLOC_SIMULATOR_CLUSTER_SIMULATION_H_
