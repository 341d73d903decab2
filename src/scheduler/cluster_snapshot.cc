#include "scheduler/cluster_snapshot.h"

#include <algorithm>

namespace dralloc::scheduler {

using client::As;
using client::ObjectPtr;

ClusterSnapshot::ClusterSnapshot(SnapshotSources sources)
    : sources_(sources), claims_(sources.claims) {}

void ClusterSnapshot::ObserveClaim(const std::string& key,
                                   const ObjectPtr& now) {
  claims_.Observe(key, now);
  IndexExtendedResourceClaim(key, now);
  Recount(key);
}

void ClusterSnapshot::IndexExtendedResourceClaim(const std::string& key,
                                                 const ObjectPtr& now) {
  if (auto it = pod_of_extended_claim_.find(key);
      it != pod_of_extended_claim_.end()) {
    extended_claim_of_pod_.erase(it->second);
    pod_of_extended_claim_.erase(it);
  }
  const auto* claim = As<api::ResourceClaim>(now);
  if (claim == nullptr) return;
  for (const api::OwnerReference& owner : claim->metadata.owner_references) {
    if (owner.kind == "Pod" && IsExtendedResourceClaimOf(*claim, owner.uid)) {
      extended_claim_of_pod_[owner.uid] = key;
      pod_of_extended_claim_[key] = owner.uid;
      return;
    }
  }
}

const std::string* ClusterSnapshot::ExtendedResourceClaimKey(
    std::string_view pod_uid) const {
  auto it = extended_claim_of_pod_.find(pod_uid);
  return it == extended_claim_of_pod_.end() ? nullptr : &it->second;
}

void ClusterSnapshot::AssumeClaim(const std::string& key, ObjectPtr assumed) {
  claims_.Assume(key, std::move(assumed));
  Recount(key);
}

void ClusterSnapshot::ConfirmClaim(const std::string& key, int64_t revision) {
  claims_.Confirm(key, revision);
  Recount(key);
}

void ClusterSnapshot::RestoreClaim(const std::string& key) {
  claims_.Restore(key);
  Recount(key);
}

void ClusterSnapshot::Recount(const std::string& claim_key) {
  ObjectPtr object = claims_.Get(claim_key);
  const auto* claim = As<api::ResourceClaim>(object);
  const api::AllocationResult* now =
      claim != nullptr && claim->status.allocation ? &*claim->status.allocation
                                                   : nullptr;
  auto counted = counted_.find(claim_key);
  if (counted != counted_.end()) {
    if (counted->second == object) return;  // the same version
    const api::AllocationResult& before =
        *As<api::ResourceClaim>(counted->second)->status.allocation;
    if (now != nullptr && before.devices == now->devices) {
      counted->second = std::move(object);  // keeps what it counts alive
      return;
    }
    allocated_.RemoveAllocation(before);
    BumpPoolGenerations(before);
    counted_.erase(counted);
  }
  if (now != nullptr) {
    allocated_.AddAllocation(*now);
    BumpPoolGenerations(*now);
    counted_.emplace(claim_key, std::move(object));
  }
}

void ClusterSnapshot::CountClassicDevices(
    const std::string& key, const std::vector<std::string>& devices) {
  api::AllocationResult now;
  for (const std::string& id : devices) {
    const size_t first = id.find('/');
    const size_t last = id.rfind('/');
    if (first == std::string::npos || first == last) continue;
    api::DeviceRequestAllocationResult& result =
        now.devices.results.emplace_back();
    result.driver = id.substr(0, first);
    result.pool = id.substr(first + 1, last - first - 1);
    result.device = id.substr(last + 1);
  }
  auto counted = counted_classic_.find(key);
  if (counted != counted_classic_.end()) {
    if (counted->second.devices == now.devices) return;
    allocated_.RemoveAllocation(counted->second);
    BumpPoolGenerations(counted->second);
    counted_classic_.erase(counted);
  }
  if (!now.devices.results.empty()) {
    allocated_.AddAllocation(now);
    BumpPoolGenerations(now);
    counted_classic_.emplace(key, std::move(now));
  }
}

void ClusterSnapshot::BumpPoolGenerations(
    const api::AllocationResult& allocation) {
  for (const auto& result : allocation.devices.results) {
    ++*const_cast<uint64_t*>(PoolGeneration(result.driver, result.pool));
  }
}

const uint64_t* ClusterSnapshot::PoolGeneration(std::string_view driver,
                                                std::string_view pool) const {
  std::string key;
  key.reserve(driver.size() + 1 + pool.size());
  key.append(driver).append("/").append(pool);
  auto it = pool_generations_.find(key);
  if (it == pool_generations_.end()) {
    it = pool_generations_.emplace(std::move(key), 0).first;
  }
  return &it->second;
}

void ClusterSnapshot::Refresh() {
  if (inventory_dirty_) {
    std::vector<api::ResourceSlice> slices;
    std::vector<api::ResourceSlicePatch> patches;
    std::vector<api::DeviceTaintRule> rules;
    std::vector<api::DeviceClass> classes;
    for (const ObjectPtr& o : sources_.slices.List()) {
      if (const auto* s = As<api::ResourceSlice>(o)) slices.push_back(*s);
    }
    for (const ObjectPtr& o : sources_.slice_patches.List()) {
      if (const auto* p = As<api::ResourceSlicePatch>(o)) patches.push_back(*p);
    }
    for (const ObjectPtr& o : sources_.taint_rules.List()) {
      if (const auto* r = As<api::DeviceTaintRule>(o)) rules.push_back(*r);
    }
    for (const ObjectPtr& o : sources_.classes.List()) {
      if (const auto* c = As<api::DeviceClass>(o)) classes.push_back(*c);
    }
    extended_resource_classes_ = MapExtendedResourceClasses(classes);
    inventory_.Update(std::move(slices), std::move(patches), std::move(rules),
                      std::move(classes));
    inventory_dirty_ = false;
    ++inventory_generation_;
  }
  if (nodes_dirty_) {
    nodes_.clear();
    next_cache_slot_ = 0;
    for (ObjectPtr& o : sources_.nodes.List()) {
      if (As<api::Node>(o) != nullptr) nodes_.push_back(MakeNodeEntry(o));
    }
    std::sort(nodes_.begin(), nodes_.end(),
              [](const NodeEntry& a, const NodeEntry& b) {
                return a.info.name < b.info.name;
              });
    ReindexNodes();
    nodes_dirty_ = false;
    ++nodes_generation_;
    for (const auto& [key, pod] : placed_pods_) AttachPod(pod);
    affinity_lists_dirty_ = true;
  }
}

NodeEntry ClusterSnapshot::MakeNodeEntry(ObjectPtr object) {
  const auto* node = As<api::Node>(object);
  NodeEntry entry;
  entry.object = std::move(object);
  entry.node = node;
  entry.info = allocator::NodeInfo::FromNode(*node);
  entry.usage.Reset(*node);
  entry.cache_slot = next_cache_slot_++;
  return entry;
}

void ClusterSnapshot::ReindexNodes() {
  node_index_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i) {
    node_index_.emplace(nodes_[i].info.name, i);
  }
}

void ClusterSnapshot::AddNode(ObjectPtr object) {
  const auto* node = As<api::Node>(object);
  if (node == nullptr || nodes_dirty_) return;  // the rebuild adds it
  RemoveNode(node->metadata.name);
  NodeEntry entry = MakeNodeEntry(std::move(object));
  auto at = std::lower_bound(nodes_.begin(), nodes_.end(), entry.info.name,
                             [](const NodeEntry& e, const std::string& name) {
                               return e.info.name < name;
                             });
  const std::string name = entry.info.name;
  nodes_.insert(at, std::move(entry));
  ReindexNodes();
  affinity_lists_dirty_ = true;
  for (const auto& [key, pod] : placed_pods_) {
    if (std::get<api::Pod>(*pod).spec.node_name == name) AttachPod(pod);
  }
}

void ClusterSnapshot::RemoveNode(std::string_view name) {
  if (nodes_dirty_) return;
  auto index = NodeIndex(name);
  if (!index) return;
  nodes_.erase(nodes_.begin() + static_cast<ptrdiff_t>(*index));
  ReindexNodes();
  affinity_lists_dirty_ = true;
}

std::optional<size_t> ClusterSnapshot::NodeIndex(std::string_view name) const {
  auto it = node_index_.find(name);
  if (it == node_index_.end()) return std::nullopt;
  return it->second;
}

ClusterView ClusterSnapshot::View() {
  ClusterView view;
  view.nodes = nodes_;
  view.extended_resource_classes = &extended_resource_classes_;
  if (affinity_lists_dirty_) {
    nodes_with_affinity_pods_.clear();
    nodes_with_required_anti_affinity_pods_.clear();
    for (const NodeEntry& node : nodes_) {
      if (!node.pods_with_affinity.empty()) {
        nodes_with_affinity_pods_.push_back(&node);
      }
      if (!node.pods_with_required_anti_affinity.empty()) {
        nodes_with_required_anti_affinity_pods_.push_back(&node);
      }
    }
    affinity_lists_dirty_ = false;
  }
  view.nodes_with_affinity_pods = nodes_with_affinity_pods_;
  view.nodes_with_required_anti_affinity_pods =
      nodes_with_required_anti_affinity_pods_;
  if (sources_.namespaces != nullptr) {
    // Listed on first use and kept alive by the view, so that the labels
    // stay valid while the informer moves on.
    auto listed = std::make_shared<std::vector<ObjectPtr>>();
    client::Informer* namespaces = sources_.namespaces;
    view.namespace_labels = [listed, namespaces](std::string_view name)
        -> const std::map<std::string, std::string>* {
      if (listed->empty()) *listed = namespaces->List();
      for (const ObjectPtr& o : *listed) {
        const auto* ns = As<api::Namespace>(o);
        if (ns != nullptr && ns->metadata.name == name) {
          return &ns->metadata.labels;
        }
      }
      return nullptr;
    };
  } else {
    view.namespace_labels = [](std::string_view) { return nullptr; };
  }
  return view;
}

// ---- pods ------------------------------------------------------------------

namespace {

// A pod takes room on its node from binding until it finishes.
bool CountsOnNode(const ObjectPtr& object) {
  const auto* pod = As<api::Pod>(object);
  return pod != nullptr && !pod->spec.node_name.empty() &&
         pod->status.phase != "Succeeded" && pod->status.phase != "Failed";
}

}  // namespace

void ClusterSnapshot::ObservePod(const std::string& key, const ObjectPtr& now) {
  if (assumed_pods_.contains(key)) {
    // The informer's unbound versions (our own status updates) do not end
    // the assumption; its bound version or the deletion does.
    const auto* pod = As<api::Pod>(now);
    if (pod != nullptr && pod->spec.node_name.empty()) return;
    assumed_pods_.erase(key);
  }
  PlacePod(key, CountsOnNode(now) ? now : nullptr);
}

void ClusterSnapshot::AssumePod(const std::string& key, ObjectPtr pod) {
  assumed_pods_.insert(key);
  PlacePod(key, std::move(pod));
}

void ClusterSnapshot::ForgetPod(const std::string& key) {
  if (assumed_pods_.erase(key) == 0) return;
  ObjectPtr now = sources_.pods.Get(key);
  PlacePod(key, CountsOnNode(now) ? now : nullptr);
}

void ClusterSnapshot::PlacePod(const std::string& key, ObjectPtr now) {
  auto it = placed_pods_.find(key);
  if (it != placed_pods_.end()) {
    if (it->second == now) return;
    DetachPod(it->second);
    if (now == nullptr) {
      placed_pods_.erase(it);
      return;
    }
    it->second = now;
  } else {
    if (now == nullptr) return;
    placed_pods_.emplace(key, now);
  }
  AttachPod(now);
}

void ClusterSnapshot::AttachPod(const ObjectPtr& object) {
  const api::Pod& pod = std::get<api::Pod>(*object);
  auto index = NodeIndex(pod.spec.node_name);
  // A pod on a node not listed yet is attached when the node appears.
  if (!index || nodes_dirty_) return;
  if (nodes_[*index].AddPod(object)) affinity_lists_dirty_ = true;
}

void ClusterSnapshot::DetachPod(const ObjectPtr& object) {
  const api::Pod& pod = std::get<api::Pod>(*object);
  auto index = NodeIndex(pod.spec.node_name);
  if (!index || nodes_dirty_) return;
  bool removed = false;
  if (nodes_[*index].RemovePod(object, removed)) affinity_lists_dirty_ = true;
}

int64_t ClusterSnapshot::DeviceFillPercent(
    const allocator::NodeInfo& node) const {
  auto view = inventory_.ViewFor(node);
  size_t used = 0, total = 0;
  for (const auto& pool : view->pools) {
    total += pool.devices.size();
    for (uint32_t d : pool.devices) {
      if (allocated_.IsInUse(inventory_.devices()[d].id)) ++used;
    }
  }
  return total == 0 ? 0 : static_cast<int64_t>(used * 100 / total);
}

client::ObjectPtr ClusterSnapshot::ClassicClaim(const std::string& key) const {
  if (sources_.classic_claims == nullptr) return nullptr;
  return sources_.classic_claims->Get(key);
}

client::ObjectPtr ClusterSnapshot::ClassicClass(std::string_view name) const {
  if (sources_.classic_classes == nullptr) return nullptr;
  return sources_.classic_classes->Get("", name);
}

client::ObjectPtr ClusterSnapshot::SchedulingContext(
    const std::string& pod_key) const {
  if (sources_.scheduling_contexts == nullptr) return nullptr;
  return sources_.scheduling_contexts->Get(pod_key);
}

namespace {

std::vector<client::ObjectPtr> ListOf(const client::Informer* informer) {
  return informer == nullptr ? std::vector<client::ObjectPtr>{}
                             : informer->List();
}

client::ObjectPtr GetOf(const client::Informer* informer, const std::string& ns,
                        const std::string& name) {
  return informer == nullptr ? nullptr : informer->Get(ns, name);
}

}  // namespace

std::vector<client::ObjectPtr> ClusterSnapshot::ClassicSlices() const {
  return ListOf(sources_.classic_slices);
}

std::vector<client::ObjectPtr> ClusterSnapshot::AllClaimParameters() const {
  return ListOf(sources_.claim_parameters);
}

std::vector<client::ObjectPtr> ClusterSnapshot::AllClassParameters() const {
  return ListOf(sources_.class_parameters);
}

client::ObjectPtr ClusterSnapshot::ClaimParameters(
    const std::string& ns, const std::string& name) const {
  return GetOf(sources_.claim_parameters, ns, name);
}

client::ObjectPtr ClusterSnapshot::ClassParameters(
    const std::string& ns, const std::string& name) const {
  return GetOf(sources_.class_parameters, ns, name);
}

}  // namespace dralloc::scheduler
