#include "simulator/cluster_simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "client/api_client.h"
#include "controlplane/control_plane.h"
#include "controlplane/store_objects.h"

namespace dralloc::simulator {

using client::As;
using client::ObjectPtr;
using scheduler::Candidate;
using scheduler::CycleVerdict;
using scheduler::DraCycleState;

namespace {

enum SourceIndex {
  kPods,
  kNodes,
  kClaims,
  kSlices,
  kClasses,
  kPatches,
  kTaintRules,
};

bool Finished(const api::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

ObjectPtr Share(api::Object object) {
  return std::make_shared<const api::Object>(std::move(object));
}

}  // namespace

ClusterSimulation::ClusterSimulation() = default;
ClusterSimulation::~ClusterSimulation() = default;

StatusOr<std::unique_ptr<ClusterSimulation>> ClusterSimulation::Create(
    std::vector<api::Object> objects) {
  std::unique_ptr<ClusterSimulation> simulation(new ClusterSimulation());
  Status loaded = simulation->Load(std::move(objects));
  if (!loaded.ok()) return loaded;
  return simulation;
}

Status ClusterSimulation::Load(std::vector<api::Object> objects) {
  if (Status stored = controlplane::StoreObjects(api_, std::move(objects));
      !stored.ok()) {
    return stored;
  }
  {
    // The claim controller creates the claims of templates, as upstream's
    // autoscaler sees them once the controller ran.
    controlplane::ControlPlaneOptions options;
    options.run_scheduler = false;
    options.run_pod_gc = false;
    controlplane::ControlPlane plane(api_, options);
    if (Status run = plane.RunToQuiescence(); !run.ok()) return run;
  }
  for (const api::ResourceInfo* resource :
       {&client::PodsResource(), &client::NodesResource(),
        &client::ResourceClaimsResource(), &client::ResourceSlicesResource(),
        &client::DeviceClassesResource(),
        &client::ResourceSlicePatchesResource(),
        &client::DeviceTaintRulesResource()}) {
    informers_.push_back(std::make_unique<client::Informer>(api_, *resource));
  }
  snapshot_ =
      std::make_unique<scheduler::ClusterSnapshot>(scheduler::SnapshotSources{
          *informers_[kPods], *informers_[kNodes], *informers_[kClaims],
          *informers_[kSlices], *informers_[kClasses], *informers_[kPatches],
          *informers_[kTaintRules]});
  PumpAll();
  for (const ObjectPtr& claim : informers_[kClaims]->List()) {
    snapshot_->ObserveClaim(client::ObjectKey(*claim), claim);
  }
  for (const ObjectPtr& pod : informers_[kPods]->List()) {
    snapshot_->ObservePod(client::ObjectKey(*pod), pod);
  }
  dra_ = std::make_unique<scheduler::DraPlugin>(api_, *snapshot_,
                                                scheduler::DraPluginOptions{});
  framework_ = std::make_unique<scheduler::SchedulingFramework>(
      *snapshot_, *dra_, scheduler::DefaultProfile());
  snapshot_->Refresh();
  return OkStatus();
}

void ClusterSimulation::PumpAll() {
  for (auto& informer : informers_) {
    while (true) {
      auto changes = informer->Pump(std::chrono::milliseconds(0));
      if (!changes.ok() || *changes == 0) break;
    }
  }
}

scheduler::ClusterSnapshot& ClusterSimulation::Snapshot() {
  snapshot_->Refresh();
  return *snapshot_;
}

const api::Node* ClusterSimulation::Node(const std::string& name) {
  auto index = Snapshot().NodeIndex(name);
  return index ? snapshot_->nodes()[*index].node : nullptr;
}

std::vector<std::string> ClusterSimulation::NodeNames() {
  std::vector<std::string> names;
  for (const auto& entry : Snapshot().nodes()) names.push_back(entry.info.name);
  return names;
}

ObjectPtr ClusterSimulation::Pod(const std::string& pod_key) const {
  auto assumed = assumed_pods_.find(pod_key);
  if (assumed != assumed_pods_.end()) return assumed->second;
  return informers_[kPods]->Get(pod_key);
}

std::vector<std::string> ClusterSimulation::PendingPods() const {
  std::vector<std::string> out;
  for (const ObjectPtr& listed : informers_[kPods]->List()) {
    const std::string key = client::ObjectKey(*listed);
    const auto* pod = As<api::Pod>(Pod(key));
    if (pod != nullptr && pod->spec.node_name.empty() && !Finished(*pod) &&
        (pod->spec.scheduler_name.empty() ||
         pod->spec.scheduler_name == "default-scheduler")) {
      out.push_back(key);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> ClusterSimulation::PodsOnNode(
    const std::string& node) {
  std::vector<std::string> out;
  auto index = Snapshot().NodeIndex(node);
  if (!index) return out;
  for (const scheduler::NodePod& placed : snapshot_->nodes()[*index].pods) {
    out.push_back(client::ObjectKey(placed.pod->metadata.namespace_,
                                    placed.pod->metadata.name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool ClusterSimulation::HasSlice(const std::string& name) const {
  return informers_[kSlices]->Get(name) != nullptr;
}

std::vector<ObjectPtr> ClusterSimulation::Slices() const {
  return informers_[kSlices]->List();
}

std::vector<ObjectPtr> ClusterSimulation::Claims() const {
  std::vector<ObjectPtr> out;
  for (const ObjectPtr& listed : informers_[kClaims]->List()) {
    out.push_back(snapshot_->Claim(client::ObjectKey(*listed)));
  }
  return out;
}

// ---- journal -------------------------------------------------------------

void ClusterSimulation::SetPod(const std::string& key, ObjectPtr now) {
  auto it = assumed_pods_.find(key);
  journal_.push_back({JournalEntry::Kind::kPod, key,
                      it == assumed_pods_.end() ? nullptr : it->second});
  assumed_pods_[key] = now;
  snapshot_->AssumePod(key, std::move(now));
}

void ClusterSimulation::SetClaim(const std::string& key, ObjectPtr now) {
  auto it = assumed_claims_.find(key);
  journal_.push_back({JournalEntry::Kind::kClaim, key,
                      it == assumed_claims_.end() ? nullptr : it->second});
  assumed_claims_[key] = now;
  snapshot_->AssumeClaim(key, std::move(now));
}

size_t ClusterSimulation::StartSimulation() {
  const size_t mark = journal_.size();
  JournalEntry cursor{JournalEntry::Kind::kCursor, "", nullptr};
  cursor.next_start_node = next_start_node_;
  cursor.tie_breaks = framework_->tie_breaks();
  journal_.push_back(std::move(cursor));
  return mark;
}

void ClusterSimulation::InvalidateInventory() {
  snapshot_->InvalidateInventory();
  stale_slices_.clear();  // the rebuild drops them
}

bool ClusterSimulation::Unreachable(const api::ResourceSlice& slice) {
  if (!slice.spec.node_name || snapshot_->NodeIndex(*slice.spec.node_name)) {
    return false;
  }
  for (const ObjectPtr& object : informers_[kSlices]->List()) {
    const auto* other = As<api::ResourceSlice>(object);
    if (other != nullptr && other->spec.driver == slice.spec.driver &&
        other->spec.pool.name == slice.spec.pool.name &&
        other->spec.node_name != slice.spec.node_name) {
      return false;
    }
  }
  return true;
}

Status ClusterSimulation::CreateObject(const api::Object& object,
                                       bool journal) {
  auto created = api_.Create(object);
  if (!created.ok()) {
    return InvalidArgumentError(fmt::format("{}: {}", api::DisplayName(object),
                                            created.status().message()));
  }
  if (journal) {
    journal_.push_back({JournalEntry::Kind::kApiCreated, "", *created});
  }
  PumpAll();
  if (const auto* node = As<api::Node>(*created)) {
    // Slices kept for an earlier node of this name must not show on it.
    for (const auto& [name, stale] : stale_slices_) {
      if (As<api::ResourceSlice>(stale)->spec.node_name ==
          node->metadata.name) {
        InvalidateInventory();
        break;
      }
    }
    snapshot_->Refresh();
    snapshot_->AddNode(*created);
    return OkStatus();
  }
  const auto* slice = As<api::ResourceSlice>(*created);
  auto stale = slice != nullptr ? stale_slices_.find(slice->metadata.name)
                                : stale_slices_.end();
  if (stale != stale_slices_.end() &&
      As<api::ResourceSlice>(stale->second)->spec == slice->spec &&
      Unreachable(*slice)) {
    stale_slices_.erase(stale);  // the inventory still has it
    return OkStatus();
  }
  InvalidateInventory();
  return OkStatus();
}

Status ClusterSimulation::DeleteObject(const ObjectPtr& object, bool journal) {
  const api::ObjectMeta& meta = api::MetaOf(*object);
  // Orphan: every change must be journaled, so nothing is collected.
  client::DeleteOptions options;
  options.orphan_dependents = true;
  Status deleted = api_.Delete(client::ResourceOf(*object), meta.namespace_,
                               meta.name, options);
  if (!deleted.ok()) return deleted;
  if (journal)
    journal_.push_back({JournalEntry::Kind::kApiDeleted, "", object});
  PumpAll();
  if (std::holds_alternative<api::Node>(*object)) {
    snapshot_->Refresh();
    snapshot_->RemoveNode(meta.name);
    return OkStatus();
  }
  const auto* slice = As<api::ResourceSlice>(object);
  if (slice != nullptr && Unreachable(*slice)) {
    stale_slices_[meta.name] = object;
    return OkStatus();
  }
  InvalidateInventory();
  return OkStatus();
}

void ClusterSimulation::Revert(size_t mark) {
  while (journal_.size() > mark) {
    JournalEntry entry = std::move(journal_.back());
    journal_.pop_back();
    switch (entry.kind) {
      case JournalEntry::Kind::kPod:
        if (entry.before) {
          assumed_pods_[entry.key] = entry.before;
          snapshot_->AssumePod(entry.key, entry.before);
        } else {
          assumed_pods_.erase(entry.key);
          snapshot_->ForgetPod(entry.key);
        }
        break;
      case JournalEntry::Kind::kClaim:
        if (entry.before) {
          assumed_claims_[entry.key] = entry.before;
          snapshot_->AssumeClaim(entry.key, entry.before);
        } else {
          assumed_claims_.erase(entry.key);
          snapshot_->RestoreClaim(entry.key);
        }
        break;
      case JournalEntry::Kind::kApiCreated:
        (void)DeleteObject(entry.before, /*journal=*/false);
        break;
      case JournalEntry::Kind::kApiDeleted: {
        api::Object again = *entry.before;
        api::MetaOf(again).resource_version.clear();
        (void)CreateObject(again, /*journal=*/false);
        break;
      }
      case JournalEntry::Kind::kCursor:
        next_start_node_ = entry.next_start_node;
        framework_->set_tie_breaks(entry.tie_breaks);
        break;
    }
  }
}

// ---- nodes -----------------------------------------------------------------

Status ClusterSimulation::SimulateAddNode(
    const api::Node& node, const std::vector<api::ResourceSlice>& slices) {
  if (informers_[kNodes]->Get(node.metadata.name)) {
    return AlreadyExistsError(
        fmt::format("Node {}: already exists", node.metadata.name));
  }
  // The slices go first, so that reverting removes the node first and its
  // slices are then unreachable (no inventory rebuild).
  for (const api::ResourceSlice& slice : slices) {
    if (Status added = SimulateAddSlice(slice); !added.ok()) return added;
  }
  api::Node fresh = node;
  fresh.metadata.resource_version.clear();
  fresh.metadata.uid.clear();
  return CreateObject(api::Object(fresh));
}

Status ClusterSimulation::SimulateAddSlice(const api::ResourceSlice& slice) {
  api::ResourceSlice fresh = slice;
  fresh.metadata.resource_version.clear();
  fresh.metadata.uid.clear();
  return CreateObject(api::Object(fresh));
}

Status ClusterSimulation::SimulateRemoveSlice(const std::string& name) {
  ObjectPtr slice = informers_[kSlices]->Get(name);
  if (slice == nullptr) {
    return NotFoundError(fmt::format("ResourceSlice {}: not found", name));
  }
  return DeleteObject(slice);
}

Status ClusterSimulation::SimulateRemoveNode(const std::string& name) {
  ObjectPtr node = informers_[kNodes]->Get(name);
  if (node == nullptr) {
    return NotFoundError(fmt::format("Node {}: not found", name));
  }
  std::vector<std::string> pods = PodsOnNode(name);
  if (!pods.empty()) {
    return FailedPreconditionError(
        fmt::format("Node {}: {} pod(s) still on it (first: {})", name,
                    pods.size(), pods.front()));
  }
  // The node goes first, so that its slices are unreachable when they go.
  if (Status deleted = DeleteObject(node); !deleted.ok()) return deleted;
  for (const ObjectPtr& object : informers_[kSlices]->List()) {
    const auto* slice = As<api::ResourceSlice>(object);
    if (slice != nullptr && slice->spec.node_name &&
        *slice->spec.node_name == name) {
      if (Status deleted = DeleteObject(object); !deleted.ok()) return deleted;
    }
  }
  return OkStatus();
}

// ---- pods ------------------------------------------------------------------

namespace {

// Keys of the claims the pod uses (named, or generated and recorded).
std::vector<std::string> ClaimKeysOf(const api::Pod& pod) {
  std::vector<std::string> keys;
  for (const auto& entry : pod.spec.resource_claims) {
    std::string name = entry.resource_claim_name.value_or("");
    for (const auto& s : pod.status.resource_claim_statuses) {
      if (s.name == entry.name && s.resource_claim_name) {
        name = *s.resource_claim_name;
      }
    }
    if (!name.empty()) {
      keys.push_back(client::ObjectKey(pod.metadata.namespace_, name));
    }
  }
  return keys;
}

}  // namespace

void ClusterSimulation::BookReserve(DraCycleState& state, const ObjectPtr& pod,
                                    Candidate& chosen) {
  scheduler::BindTask task = dra_->Reserve(state, pod, chosen);
  // Reserve assumed these claims in the snapshot: mirror and journal them.
  for (const scheduler::ClaimWrite& write : task.claims) {
    auto it = assumed_claims_.find(write.key);
    journal_.push_back({JournalEntry::Kind::kClaim, write.key,
                        it == assumed_claims_.end() ? nullptr : it->second});
    assumed_claims_[write.key] = write.assumed;
  }
  api::Pod bound = std::get<api::Pod>(*pod);
  if (task.extended_claim.has_value()) {
    const scheduler::ExtendedClaimWrite& write = *task.extended_claim;
    journal_.push_back({JournalEntry::Kind::kClaim, write.key, nullptr});
    assumed_claims_[write.key] = write.assumed;
    bound.status.extended_resource_claim_status = write.pod_status;
  }
  bound.spec.node_name = task.node;
  const std::string key =
      client::ObjectKey(bound.metadata.namespace_, bound.metadata.name);
  SetPod(key, Share(api::Object(std::move(bound))));
}

SimulatedPlacement ClusterSimulation::SchedulePod(
    const std::string& pod_key, const std::vector<std::string>* only_nodes) {
  SimulatedPlacement out;
  ObjectPtr object = Pod(pod_key);
  const auto* pod = As<api::Pod>(object);
  if (pod == nullptr) {
    out.reason = fmt::format("Pod {}: not found", pod_key);
    return out;
  }
  snapshot_->Refresh();
  std::vector<size_t> only;
  if (only_nodes != nullptr) {
    for (const std::string& name : *only_nodes) {
      if (auto index = snapshot_->NodeIndex(name)) only.push_back(*index);
    }
    std::sort(only.begin(), only.end());
  }
  DraCycleState state(*pod);
  size_t no_rotation = 0;  // a subset is tried from its first node
  CycleVerdict verdict = only_nodes != nullptr
                             ? framework_->Schedule(state, no_rotation, &only)
                             : framework_->Schedule(state, next_start_node_);
  if (verdict.kind != CycleVerdict::Kind::kFeasible) {
    out.reason =
        verdict.message.empty()
            ? fmt::format("waiting for ResourceClaim {}", verdict.missing_claim)
            : verdict.message;
    return out;
  }
  out.scheduled = true;
  out.node = snapshot_->nodes()[verdict.chosen->node].info.name;
  BookReserve(state, object, *verdict.chosen);
  return out;
}

Status ClusterSimulation::FilterOneNode(DraCycleState& state, size_t node,
                                        Candidate& candidate) {
  const scheduler::NodeEntry& entry = snapshot_->nodes()[node];
  scheduler::PreEnqueueResult enqueue = dra_->PreEnqueue(state);
  if (enqueue.code != scheduler::PreEnqueueResult::Code::kReady) {
    return FailedPreconditionError(
        enqueue.message.empty()
            ? fmt::format("waiting for ResourceClaim {}", enqueue.missing_claim)
            : enqueue.message);
  }
  scheduler::CycleState cycle(state.pod);
  const scheduler::ClusterView view = snapshot_->View();
  scheduler::UnschedulableReasons reasons;
  for (const auto& plugin : framework_->profile()) {
    std::string message;
    if (plugin->PreFilter(cycle, view, message) !=
        scheduler::FilterCode::kFits) {
      return FailedPreconditionError(message);
    }
    if (plugin->Filter(cycle, entry, reasons) != scheduler::FilterCode::kFits) {
      return FailedPreconditionError(reasons.Message(1));
    }
  }
  dra_->PreFilter(state);
  candidate.node = node;
  if (dra_->FilterCandidate(state, entry, reasons, candidate) !=
      scheduler::FilterCode::kFits) {
    return FailedPreconditionError(state.error.empty() ? reasons.Message(1)
                                                       : state.error);
  }
  return OkStatus();
}

Status ClusterSimulation::SimulateBindPod(const std::string& pod_key,
                                          const std::string& node) {
  ObjectPtr object = Pod(pod_key);
  const auto* pod = As<api::Pod>(object);
  if (pod == nullptr) {
    return NotFoundError(fmt::format("Pod {}: not found", pod_key));
  }
  if (!pod->spec.node_name.empty()) {
    return FailedPreconditionError(
        fmt::format("Pod {}: spec.nodeName: already bound to {}", pod_key,
                    pod->spec.node_name));
  }
  snapshot_->Refresh();
  auto index = snapshot_->NodeIndex(node);
  if (!index) return NotFoundError(fmt::format("Node {}: not found", node));
  DraCycleState state(*pod);
  Candidate candidate;
  if (Status fits = FilterOneNode(state, *index, candidate); !fits.ok()) {
    return FailedPreconditionError(
        fmt::format("Pod {} on node {}: {}", pod_key, node, fits.message()));
  }
  BookReserve(state, object, candidate);
  return OkStatus();
}

Status ClusterSimulation::SimulateEvictPod(const std::string& pod_key) {
  ObjectPtr object = Pod(pod_key);
  const auto* pod = As<api::Pod>(object);
  if (pod == nullptr) {
    return NotFoundError(fmt::format("Pod {}: not found", pod_key));
  }
  if (pod->spec.node_name.empty()) return OkStatus();
  for (const std::string& key : ClaimKeysOf(*pod)) {
    const auto* claim = As<api::ResourceClaim>(snapshot_->Claim(key));
    if (claim == nullptr) continue;
    api::ResourceClaim changed = *claim;
    auto& reserved = changed.status.reserved_for;
    std::erase_if(reserved, [&](const api::ResourceClaimConsumerReference& r) {
      return r.resource == "pods" && r.name == pod->metadata.name;
    });
    // A claim no pod uses any more is deallocated (as the claim
    // controller would once the pod is gone).
    if (reserved.empty()) changed.status.allocation.reset();
    SetClaim(key, Share(api::Object(std::move(changed))));
  }
  api::Pod pending = *pod;
  pending.spec.node_name.clear();
  SetPod(pod_key, Share(api::Object(std::move(pending))));
  return OkStatus();
}

}  // namespace dralloc::simulator
