// ClusterSnapshot: the scheduler's view of the cluster during a cycle
// (upstream's internal/cache snapshot plus the DRA manager): the nodes, the
// device inventory built from slices, patches, taint rules and classes, the
// claims with the scheduler's own assumptions laid over them, and the
// devices those claims allocate.
//
// Thread-compatible: the scheduler's lock guards every call. The informers
// are read when Refresh() finds the inventory or node list invalidated.
#ifndef DRALLOC_SCHEDULER_CLUSTER_SNAPSHOT_H_
#define DRALLOC_SCHEDULER_CLUSTER_SNAPSHOT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "allocator/allocated_state.h"
#include "allocator/device_inventory.h"
#include "client/assume_cache.h"
#include "client/informer.h"
#include "common/string_hash.h"
#include "scheduler/extended_resource_claim.h"
#include "scheduler/node_entry.h"
#include "scheduler/node_plugin.h"

namespace dralloc::scheduler {

// The informers the snapshot is built from.
struct SnapshotSources {
  client::Informer& pods;
  client::Informer& nodes;
  client::Informer& claims;
  client::Informer& slices;
  client::Informer& classes;
  client::Informer& slice_patches;
  client::Informer& taint_rules;
  // Optional: namespace labels for pod affinity namespaceSelectors.
  client::Informer* namespaces = nullptr;
  // Optional: the resource.k8s.io/v1alpha2 (classic DRA) claims, classes
  // and PodSchedulingContexts. Without them a pod's classic claim is "not
  // found", as on a cluster that does not serve v1alpha2.
  client::Informer* classic_claims = nullptr;
  client::Informer* classic_classes = nullptr;
  client::Informer* scheduling_contexts = nullptr;
  // Optional: 1.30's structured model (v1alpha2 ResourceSlices,
  // ResourceClaimParameters, ResourceClassParameters). Without them claims
  // of structuredParameters classes find no parameters and no instances.
  client::Informer* classic_slices = nullptr;
  client::Informer* claim_parameters = nullptr;
  client::Informer* class_parameters = nullptr;
};

class ClusterSnapshot {
 public:
  explicit ClusterSnapshot(SnapshotSources sources);
  ClusterSnapshot(const ClusterSnapshot&) = delete;
  ClusterSnapshot& operator=(const ClusterSnapshot&) = delete;

  // A device source (slice, patch, taint rule, class) or a node changed:
  // the next Refresh rebuilds that part.
  void InvalidateInventory() { inventory_dirty_ = true; }
  void InvalidateNodes() { nodes_dirty_ = true; }
  // Rebuilds what was invalidated from the informers; nodes in name order.
  void Refresh();
  // One node added to (or removed from) the nodes informer: updates
  // nodes() in place, without the full rebuild InvalidateNodes asks for
  // (the pods counted on it are attached or kept for its return). For
  // callers that change nodes one at a time (the autoscaler simulation);
  // the snapshot must be refreshed. AddNode replaces a node of that name.
  void AddNode(client::ObjectPtr node);
  void RemoveNode(std::string_view name);
  // One past the highest NodeEntry::cache_slot handed out.
  size_t node_slots() const { return next_cache_slot_; }

  // Claims: the assumed version if there is one, else the informer's.
  client::ObjectPtr Claim(const std::string& key) const {
    return claims_.Get(key);
  }
  // resource.k8s.io/v1alpha2 objects, straight from their informers (null
  // when absent or when the classic informers are not given). Classic
  // claims hold no devices, so nothing is assumed for them.
  client::ObjectPtr ClassicClaim(const std::string& key) const;
  client::ObjectPtr ClassicClass(std::string_view name) const;
  // The PodSchedulingContext of the pod with key `pod_key` (named like it).
  client::ObjectPtr SchedulingContext(const std::string& pod_key) const;
  bool ServesClassic() const { return sources_.classic_claims != nullptr; }
  // 1.30's structured model: every object of the informer (empty when it
  // is not given), or one by namespace and name (null when absent).
  std::vector<client::ObjectPtr> ClassicSlices() const;
  std::vector<client::ObjectPtr> AllClaimParameters() const;
  std::vector<client::ObjectPtr> AllClassParameters() const;
  client::ObjectPtr ClaimParameters(const std::string& ns,
                                    const std::string& name) const;
  client::ObjectPtr ClassParameters(const std::string& ns,
                                    const std::string& name) const;
  // Each of these updates the claim's view and recounts its devices.
  // The informer delivered `now` (null: deleted).
  void ObserveClaim(const std::string& key, const client::ObjectPtr& now);
  // The scheduler chose `assumed` (allocation and reservation) for `key`.
  void AssumeClaim(const std::string& key, client::ObjectPtr assumed);
  // The write for `key` produced `revision`; the assumption stays until
  // the informer catches up.
  void ConfirmClaim(const std::string& key, int64_t revision);
  // The write failed: back to the informer's version.
  void RestoreClaim(const std::string& key);
  // 1.30's structured parameters: the instances ("<driver>/<node>/<name>")
  // classic claim `key` holds, from the informer or assumed by Reserve
  // (empty: none). They count in allocated() as devices of pool <node>, so
  // neither family's allocation gives them out again.
  void CountClassicDevices(const std::string& key,
                           const std::vector<std::string>& devices);
  // KEP-5004: the key of a special claim for extended resources that the
  // informer holds for the pod with `pod_uid` (annotated, the pod its
  // controlling owner); null when there is none.
  const std::string* ExtendedResourceClaimKey(std::string_view pod_uid) const;

  // Pods: the informer delivered `now` for `key` (null: deleted). A pod
  // counts on its node while spec.nodeName is set and it has not finished.
  void ObservePod(const std::string& key, const client::ObjectPtr& now);
  // The scheduler placed `pod` (spec.nodeName set) on its node; it counts
  // there until the informer's bound version replaces it or ForgetPod.
  void AssumePod(const std::string& key, client::ObjectPtr pod);
  // The binding failed: back to the informer's version of the pod.
  void ForgetPod(const std::string& key);

  const std::vector<NodeEntry>& nodes() const { return nodes_; }
  // Index into nodes() of the node named `name`, or nullopt.
  std::optional<size_t> NodeIndex(std::string_view name) const;
  // The view the node plugins get (valid until the snapshot changes).
  ClusterView View();
  const allocator::DeviceInventory& inventory() const { return inventory_; }
  // KEP-5004: the extended resource names the DeviceClasses serve, rebuilt
  // with the inventory.
  const ExtendedResourceClasses& extended_resource_classes() const {
    return extended_resource_classes_;
  }
  const allocator::AllocatedState& allocated() const { return allocated_; }
  // Percentage (0-100) of the node's devices in use; 0 without devices.
  int64_t DeviceFillPercent(const allocator::NodeInfo& node) const;

  // Change counters for caches of allocator verdicts (FilterCache). Each
  // only grows. inventory_generation: Refresh rebuilt the device inventory;
  // nodes_generation: Refresh rebuilt nodes(). PoolGeneration: a counter
  // that grows whenever the allocation state of a device of pool
  // (`driver`, `pool`) changes (every change of allocated() goes through
  // Recount, which bumps it); its address stays valid for the snapshot's
  // lifetime.
  uint64_t inventory_generation() const { return inventory_generation_; }
  uint64_t nodes_generation() const { return nodes_generation_; }
  const uint64_t* PoolGeneration(std::string_view driver,
                                 std::string_view pool) const;

 private:
  // Makes allocated_ count the allocation of the claim's current view.
  void Recount(const std::string& claim_key);
  // Keeps the index of special claims by pod uid current with `now`.
  void IndexExtendedResourceClaim(const std::string& key,
                                  const client::ObjectPtr& now);
  // Bumps the PoolGeneration of every pool `allocation` holds devices of.
  void BumpPoolGenerations(const api::AllocationResult& allocation);
  // Moves the pod counted under `key` to `now` (null or unbound: off its
  // node).
  void PlacePod(const std::string& key, client::ObjectPtr now);
  void AttachPod(const client::ObjectPtr& pod);
  NodeEntry MakeNodeEntry(client::ObjectPtr node);
  void ReindexNodes();
  void DetachPod(const client::ObjectPtr& pod);

  SnapshotSources sources_;
  client::AssumeCache claims_;
  allocator::DeviceInventory inventory_;
  ExtendedResourceClasses extended_resource_classes_;
  allocator::AllocatedState allocated_;
  // The claim version whose allocation allocated_ counts, by claim key.
  StringKeyedMap<client::ObjectPtr> counted_;
  // Classic claims' instances allocated_ counts, as v1 results.
  StringKeyedMap<api::AllocationResult> counted_classic_;
  // Special claims for extended resources: pod uid -> claim key, and back.
  StringKeyedMap<std::string> extended_claim_of_pod_;
  StringKeyedMap<std::string> pod_of_extended_claim_;
  bool inventory_dirty_ = true;
  bool nodes_dirty_ = true;
  std::vector<NodeEntry> nodes_;
  StringKeyedMap<size_t> node_index_;
  size_t next_cache_slot_ = 0;
  // The pods counted on nodes (bound or assumed), by pod key, and the keys
  // of those that are assumed.
  StringKeyedMap<client::ObjectPtr> placed_pods_;
  StringSet assumed_pods_;
  // ClusterView's lists of nodes with affinity pods, rebuilt when dirty.
  bool affinity_lists_dirty_ = true;
  std::vector<const NodeEntry*> nodes_with_affinity_pods_;
  std::vector<const NodeEntry*> nodes_with_required_anti_affinity_pods_;
  uint64_t inventory_generation_ = 0;
  uint64_t nodes_generation_ = 0;
  // By "<driver>/<pool>"; never erased (PoolGeneration hands out addresses).
  mutable std::unordered_map<std::string, uint64_t, StringHash, std::equal_to<>>
      pool_generations_;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_CLUSTER_SNAPSHOT_H_
