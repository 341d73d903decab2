#include "scheduler/dra_plugin.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>
#include <thread>

#include "api/claim_helpers.h"
#include "api/well_known.h"
#include "common/clock.h"

namespace dralloc::scheduler {
namespace {

using client::As;
using client::ObjectPtr;

constexpr int kWriteAttempts = 5;
constexpr std::string_view kFinalizer = api::kDeleteProtectionFinalizer;
// Upstream's limit on the subrequests of a prioritized list; scores count
// down from it.
constexpr int64_t kMaxSubrequests = 8;

// KEP-4816 scoring of one claim, as upstream's computeScore: each request
// with a prioritized list adds 8 - the index of its chosen subrequest, once,
// however many devices that subrequest got. The chosen subrequest is the
// first of the list that appears among the results' request names.
int64_t PrioritizedListScore(const api::ResourceClaim& claim,
                             const api::AllocationResult& allocation) {
  std::set<std::string_view> allocated_subrequests;
  for (const auto& result : allocation.devices.results) {
    allocated_subrequests.insert(result.request);
  }
  int64_t score = 0;
  for (const api::DeviceRequest& request : claim.spec.devices.requests) {
    for (size_t i = 0; i < request.first_available.size(); ++i) {
      const std::string name =
          request.name + "/" + request.first_available[i].name;
      if (allocated_subrequests.contains(name)) {
        score +=
            std::max<int64_t>(0, kMaxSubrequests - static_cast<int64_t>(i));
        break;
      }
    }
  }
  return score;
}

bool HasPrioritizedList(const api::ResourceClaim& claim) {
  return std::any_of(
      claim.spec.devices.requests.begin(), claim.spec.devices.requests.end(),
      [](const api::DeviceRequest& r) { return r.first_available.size() > 1; });
}

PreEnqueueResult Unschedulable(std::string message,
                               std::string missing_claim = "") {
  return {PreEnqueueResult::Code::kUnschedulable, std::move(message),
          std::move(missing_claim)};
}

}  // namespace

DraPlugin::DraPlugin(client::ApiClient& client, ClusterSnapshot& snapshot,
                     DraPluginOptions options)
    : client_(client),
      snapshot_(snapshot),
      options_(options),
      classic_writes_(client) {}

PreEnqueueResult DraPlugin::PreEnqueue(DraCycleState& state) const {
  const api::Pod& pod = state.pod;
  const std::string& ns = pod.metadata.namespace_;
  for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
    const api::PodClaimName resolved = api::ClaimNameFor(pod, entry);
    if (resolved.kind == api::PodClaimName::Kind::kNotCreated) {
      return {PreEnqueueResult::Code::kGated,
              fmt::format("waiting for resource claim \"{}\" to be created",
                          entry.name),
              ""};
    }
    if (resolved.kind == api::PodClaimName::Kind::kNotNeeded) continue;
    const std::string_view claim_name = resolved.name;
    PodClaim pc{entry.name, client::ObjectKey(ns, claim_name), nullptr,
                nullptr};
    pc.object = snapshot_.Claim(pc.key);
    pc.claim = As<api::ResourceClaim>(pc.object);
    if (pc.claim == nullptr && snapshot_.ServesClassic()) {
      // A claim name is held by one family: not a v1 claim, maybe a
      // v1alpha2 one (docs/classic-dra.md, section 3).
      if (client::ObjectPtr classic_claim = snapshot_.ClassicClaim(pc.key)) {
        const bool generated =
            resolved.kind == api::PodClaimName::Kind::kGenerated;
        if (auto unusable = classic::AddClassicClaim(
                state.classic, pod, entry, generated, std::move(pc.key),
                std::move(classic_claim))) {
          return Unschedulable(std::move(*unusable));
        }
        continue;
      }
    }
    if (pc.claim == nullptr) {
      if (resolved.kind == api::PodClaimName::Kind::kGenerated) {
        // Created, but the cache does not have it yet.
        return {PreEnqueueResult::Code::kGated, "", std::move(pc.key)};
      }
      return Unschedulable(
          fmt::format("resourceclaim \"{}\" not found", claim_name),
          std::move(pc.key));
    }
    if (pc.claim->metadata.deletion_timestamp) {
      return Unschedulable(
          fmt::format("resourceclaim \"{}\" is being deleted", claim_name));
    }
    if (entry.resource_claim_template_name &&
        !api::IsForPod(*pc.claim, pod.metadata.uid)) {
      return Unschedulable(fmt::format(
          "ResourceClaim {} was not created for the pod", claim_name));
    }
    if (pc.claim->status.allocation &&
        !api::IsReservedFor(*pc.claim, pod.metadata.uid) &&
        !api::CanBeReserved(*pc.claim)) {
      return Unschedulable(
          fmt::format("resourceclaim \"{}\" in use", claim_name));
    }
    if (std::none_of(state.claims.begin(), state.claims.end(),
                     [&](const PodClaim& p) { return p.key == pc.key; })) {
      state.claims.push_back(std::move(pc));
    }
  }
  return {};
}

void DraPlugin::PreFilter(DraCycleState& state) const {
  state.wants_scores = options_.placement != Placement::kDefault;
  for (size_t i = 0; i < state.claims.size(); ++i) {
    const api::ResourceClaim& claim = *state.claims[i].claim;
    if (claim.status.allocation) continue;
    state.to_allocate.push_back(&claim);
    state.to_allocate_index.push_back(i);
    state.wants_scores = state.wants_scores || HasPrioritizedList(claim);
  }
  const ExtendedResourceClasses& classes =
      snapshot_.extended_resource_classes();
  if (RequestsMappedExtendedResource(state.pod, classes)) {
    state.extended_classes = &classes;
    if (const std::string* key =
            snapshot_.ExtendedResourceClaimKey(state.pod.metadata.uid)) {
      state.stale_extended_claim = snapshot_.Claim(*key);
    }
  }
  allocator::AllocatorOptions allocator_options;
  allocator_options.max_steps = options_.max_steps;
  state.allocator.emplace(snapshot_.inventory(), snapshot_.allocated(),
                          allocator_options);
}

bool DraPlugin::AllocatedClaimsAvailable(DraCycleState& state,
                                         const NodeEntry& node,
                                         UnschedulableReasons& reasons) const {
  bool available = true;
  bool needs_optional_node_operations = false;
  for (const PodClaim& pc : state.claims) {
    const auto& allocation = pc.claim->status.allocation;
    if (allocation && allocation->node_selector &&
        !allocator::NodeSelectorMatches(*allocation->node_selector,
                                        node.info)) {
      state.unavailable_claims.insert(pc.key);
      available = false;
    }
    // KEP-5945: devices allocated with skipNodeOperations need a node
    // agent that honours them.
    if (allocation && !node.info.optional_node_operations &&
        std::any_of(allocation->devices.results.begin(),
                    allocation->devices.results.end(), [](const auto& r) {
                      return !r.skip_node_operations.empty();
                    })) {
      state.unavailable_claims.insert(pc.key);
      needs_optional_node_operations = true;
    }
  }
  if (state.classic != nullptr) {
    const classic::Verdict verdict = state.classic->decisions.Filter(node.info);
    if (!verdict.ok()) {
      reasons.Add(verdict.reason);
      return false;
    }
  }
  if (!available) reasons.Add("resourceclaim not available on the node");
  if (needs_optional_node_operations) {
    reasons.Add(
        "node does not declare DRAOptionalNodeOperations, which an allocated "
        "resourceclaim needs");
  }
  return available && !needs_optional_node_operations;
}

FilterCode DraPlugin::FilterCandidate(DraCycleState& state,
                                      const NodeEntry& node,
                                      UnschedulableReasons& reasons,
                                      Candidate& candidate) const {
  if (state.extended_classes == nullptr) {
    return Filter(state, node, reasons, candidate.results);
  }
  auto plan = std::make_unique<ExtendedResourceClaimPlan>();
  const FilterCode code =
      Filter(state, node, reasons, candidate.results, plan.get());
  if (!plan->empty()) candidate.extended = std::move(plan);
  return code;
}

FilterCode DraPlugin::Filter(DraCycleState& state, const NodeEntry& node,
                             UnschedulableReasons& reasons,
                             std::vector<api::AllocationResult>& results,
                             ExtendedResourceClaimPlan* extended) const {
  if (!AllocatedClaimsAvailable(state, node, reasons))
    return FilterCode::kUnfit;
  ExtendedResourceClaimPlan plan;
  if (state.extended_classes != nullptr) {
    plan = PlanExtendedResourceClaim(state.pod, node.node,
                                     *state.extended_classes);
  }
  if (state.to_allocate.empty() && plan.empty()) return FilterCode::kFits;
  // The special claim exists only in memory until PreBind creates it.
  std::optional<api::ResourceClaim> special;
  std::vector<const api::ResourceClaim*> with_special;
  if (!plan.empty()) {
    special = BuildExtendedResourceClaim(state.pod, plan);
    special->metadata.name = std::string(kInMemoryExtendedClaimName);
    special->metadata.uid = "extended-resources-" + state.pod.metadata.uid;
    with_special = state.to_allocate;
    with_special.push_back(&*special);
  }
  ++state.allocator_calls;
  auto allocation = state.allocator->Allocate(
      node.info, special.has_value() ? with_special : state.to_allocate);
  if (!allocation.ok()) {
    if (allocation.status().code() == StatusCode::kInvalidArgument) {
      state.error = allocation.status().message();
      return FilterCode::kError;
    }
    reasons.Add(allocation.status().code() == StatusCode::kResourceExhausted
                    ? "timed out trying to allocate devices"
                    : allocation.status().message());
    return FilterCode::kUnfit;
  }
  if (!allocation->allocated) {
    reasons.AddAllocatorExplanation(
        *allocation, node.info.name, [&](std::string_view claim_name) {
          if (claim_name == kInMemoryExtendedClaimName) {
            return std::string("extended resources");
          }
          for (const PodClaim& pc : state.claims) {
            if (pc.claim->metadata.name == claim_name) return pc.name;
          }
          return std::string(claim_name);
        });
    return FilterCode::kUnfit;
  }
  results = std::move(allocation->results);
  if (extended != nullptr) *extended = std::move(plan);
  return FilterCode::kFits;
}

ObjectPtr DraPlugin::PostFilter(const DraCycleState& state) const {
  for (const PodClaim& pc : state.claims) {
    if (!state.unavailable_claims.contains(pc.key)) continue;
    const auto& reserved = pc.claim->status.reserved_for;
    if (reserved.empty() ||
        (reserved.size() == 1 && reserved[0].uid == state.pod.metadata.uid)) {
      return pc.object;
    }
  }
  return nullptr;
}

Status DraPlugin::Deallocate(const ObjectPtr& claim_object) const {
  api::ResourceClaim claim = std::get<api::ResourceClaim>(*claim_object);
  claim.status.allocation.reset();
  claim.status.reserved_for.clear();
  claim.status.devices.clear();
  return client_.UpdateStatus(api::Object(std::move(claim))).status();
}

int64_t DraPlugin::ScoreNode(const DraCycleState& state,
                             const Candidate& candidate) const {
  int64_t score = 0;
  const auto& allocations = candidate.allocations();
  const size_t n = std::min(state.to_allocate.size(), allocations.size());
  for (size_t r = 0; r < n; ++r) {
    score += PrioritizedListScore(*state.to_allocate[r], allocations[r]);
  }
  return score;
}

void DraPlugin::NormalizeScores(std::span<int64_t> scores) {
  DefaultNormalizeScore(scores, /*reverse=*/false);
}

size_t DraPlugin::Score(const DraCycleState& state,
                        const std::vector<Candidate>& feasible) const {
  if (feasible.size() <= 1) return 0;
  std::vector<int64_t> dra(feasible.size(), 0);
  std::vector<int64_t> placement(feasible.size(), 0);
  for (size_t c = 0; c < feasible.size(); ++c) {
    dra[c] = ScoreNode(state, feasible[c]);
    if (options_.placement != Placement::kDefault) {
      const int64_t fill =
          snapshot_.DeviceFillPercent(snapshot_.nodes()[feasible[c].node].info);
      placement[c] = options_.placement == Placement::kPack ? fill : 100 - fill;
    }
  }
  NormalizeScores(dra);
  size_t best = 0;
  int64_t best_score = -1;
  for (size_t c = 0; c < feasible.size(); ++c) {
    const int64_t score = kScoreWeight * dra[c] + placement[c];
    if (score > best_score) {
      best_score = score;
      best = c;
    }
  }
  return best;
}

BindTask DraPlugin::Reserve(const DraCycleState& state,
                            const ObjectPtr& pod_object, Candidate& chosen) {
  const api::Pod& pod = state.pod;
  BindTask task{pod_object, snapshot_.nodes()[chosen.node].info.name, {}};
  // Filter refused any node whose statuses could not be computed.
  auto node_allocatable = NodeAllocatableStatuses(state, chosen.allocations());
  if (node_allocatable.ok())
    task.node_allocatable = *std::move(node_allocatable);
  const std::string now = NowRfc3339();
  for (size_t i = 0; i < state.claims.size(); ++i) {
    const PodClaim& pc = state.claims[i];
    auto pos = std::find(state.to_allocate_index.begin(),
                         state.to_allocate_index.end(), i);
    const bool allocate = pos != state.to_allocate_index.end();
    if (!allocate && api::IsReservedFor(*pc.claim, pod.metadata.uid)) continue;
    api::ResourceClaim assumed = *pc.claim;
    if (allocate) {
      const size_t r = pos - state.to_allocate_index.begin();
      if (chosen.shared_results != nullptr) {
        assumed.status.allocation = (*chosen.shared_results)[r];
      } else {
        assumed.status.allocation = std::move(chosen.results[r]);
      }
      assumed.status.allocation->allocation_timestamp = now;
      if (!api::HasFinalizer(assumed.metadata, kFinalizer)) {
        assumed.metadata.finalizers.emplace_back(kFinalizer);
      }
    }
    assumed.status.reserved_for.push_back(api::PodConsumerRef(pod));
    auto assumed_object =
        std::make_shared<const api::Object>(std::move(assumed));
    snapshot_.AssumeClaim(pc.key, assumed_object);
    task.claims.push_back({pc.key, pc.object, assumed_object, allocate});
  }
  if (chosen.extended != nullptr && !chosen.extended->empty()) {
    ReserveExtendedClaim(state, chosen, now, task);
  }
  return task;
}

Status DraPlugin::PreBind(const BindTask& task, WrittenClaims& written) const {
  const api::Pod& pod = std::get<api::Pod>(*task.pod);
  for (const ClaimWrite& write : task.claims) {
    const auto& base = std::get<api::ResourceClaim>(*write.base);
    const std::string& ns = base.metadata.namespace_;
    const std::string& name = base.metadata.name;
    ObjectPtr current = write.base;
    const auto& assumed = std::get<api::ResourceClaim>(*write.assumed);
    auto refetch = [&]() -> Status {
      auto fresh = client_.Get(client::ResourceClaimsResource(), ns, name);
      if (!fresh.ok()) return fresh.status();
      current = std::move(*fresh);
      return OkStatus();
    };
    bool done = false;
    for (int attempt = 0; attempt < kWriteAttempts && !done; ++attempt) {
      const auto* claim = As<api::ResourceClaim>(current);
      if (write.allocate && claim->status.allocation) {
        return Status(StatusCode::kAborted,
                      fmt::format("claim {} was allocated concurrently", name));
      }
      if (!write.allocate && !claim->status.allocation) {
        // Another pod's binder may still be writing the allocation this
        // pod was scheduled against (a shared claim); give it a moment.
        std::this_thread::sleep_for(std::chrono::milliseconds(5 << attempt));
        RETURN_IF_ERROR(refetch());
        claim = As<api::ResourceClaim>(current);
        if (!claim->status.allocation) continue;
      }
      // The delete-protection finalizer (metadata), the allocation and the
      // reservation (status). Upstream's PreBind writes the finalizer
      // first, then the status; an in-process client writes all at once.
      api::ResourceClaim next = *claim;
      const bool add_finalizer =
          write.allocate && !api::HasFinalizer(claim->metadata, kFinalizer);
      if (add_finalizer) next.metadata.finalizers.emplace_back(kFinalizer);
      if (write.allocate) next.status.allocation = assumed.status.allocation;
      if (!api::IsReservedFor(next, pod.metadata.uid)) {
        next.status.reserved_for.push_back(api::PodConsumerRef(pod));
      }
      const std::string sent_version = next.metadata.resource_version;
      StatusOr<ObjectPtr> result =
          add_finalizer ? client_.UpdateWithStatus(api::Object(std::move(next)))
                        : client_.UpdateStatus(api::Object(std::move(next)));
      if (result.ok()) {
        written.emplace_back(write.key,
                             client::AssumeCache::RevisionOf(**result));
        done = true;
        break;
      }
      if (result.status().code() != StatusCode::kAborted)
        return result.status();
      RETURN_IF_ERROR(refetch());
      if (api::MetaOf(*current).resource_version == sent_version) {
        // Not a stale version: the server refused the allocation (a device
        // was taken by another scheduler).
        return result.status();
      }
    }
    if (!done) {
      return Status(StatusCode::kAborted,
                    fmt::format("claim {} kept changing", name));
    }
  }
  if (task.extended_claim.has_value()) {
    RETURN_IF_ERROR(CreateExtendedClaim(task, written));
  }
  if (!task.classic_claims.empty()) {
    RETURN_IF_ERROR(classic_writes_.Reserve(pod, task.classic_claims));
  }
  return WritePodStatus(task);
}

void DraPlugin::PostBind(const BindTask& task) const {
  if (task.delete_scheduling_context) {
    classic_writes_.DeleteContext(std::get<api::Pod>(*task.pod));
  }
}

void DraPlugin::Unreserve(const BindTask& task,
                          const WrittenClaims& written) const {
  const api::Pod& pod = std::get<api::Pod>(*task.pod);
  // If the pod got bound anyway (another scheduler bound it using the claims
  // we wrote), the claims are in use: keep them.
  auto current = client_.Get(client::PodsResource(), pod.metadata.namespace_,
                             pod.metadata.name);
  const auto* now = current.ok() ? As<api::Pod>(*current) : nullptr;
  const bool bound_elsewhere = now != nullptr &&
                               now->metadata.uid == pod.metadata.uid &&
                               !now->spec.node_name.empty();
  for (const auto& [key, revision] : written) {
    if (bound_elsewhere) break;
    // Take the reservation back (and the allocation we made, if nobody
    // else uses it).
    const ClaimWrite* write = nullptr;
    for (const ClaimWrite& w : task.claims) {
      if (w.key == key) write = &w;
    }
    if (write == nullptr) continue;  // the extended claim: deleted below
    const auto& base = std::get<api::ResourceClaim>(*write->base);
    for (int attempt = 0; attempt < kWriteAttempts; ++attempt) {
      auto fresh = client_.Get(client::ResourceClaimsResource(),
                               base.metadata.namespace_, base.metadata.name);
      if (!fresh.ok()) break;
      api::ResourceClaim claim = std::get<api::ResourceClaim>(**fresh);
      std::erase_if(claim.status.reserved_for, [&](const auto& ref) {
        return ref.uid == pod.metadata.uid;
      });
      if (write->allocate && claim.status.reserved_for.empty()) {
        claim.status.allocation.reset();
        claim.status.devices.clear();
      }
      auto updated = client_.UpdateStatus(api::Object(std::move(claim)));
      if (updated.ok() || updated.status().code() != StatusCode::kAborted)
        break;
    }
  }
  if (!bound_elsewhere && task.extended_claim.has_value()) {
    DeleteExtendedClaim(task);
  }
  if (!bound_elsewhere && !task.classic_claims.empty()) {
    classic_writes_.Unreserve(pod, task.classic_claims);
  }
  if (!bound_elsewhere && !task.node_allocatable.empty() && now != nullptr &&
      !now->status.node_allocatable_resource_claim_statuses.empty()) {
    ClearNodeAllocatableStatus(task);
  }
}

void DraPlugin::RestoreAssumed(const BindTask& task) {
  for (const ClaimWrite& write : task.claims) snapshot_.RestoreClaim(write.key);
  if (task.extended_claim.has_value()) {
    snapshot_.RestoreClaim(task.extended_claim->key);
  }
}

}  // namespace dralloc::scheduler
