#include "scheduler/classic/classic_claims.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <utility>

#include "api/claim_helpers.h"

namespace dralloc::scheduler::classic {
namespace {

namespace v1alpha2 = api::v1alpha2;

const v1alpha2::ResourceClaimSchedulingStatus* StatusFor(
    const v1alpha2::PodSchedulingContext* context,
    std::string_view pod_claim_name) {
  if (context == nullptr) return nullptr;
  for (const auto& status : context->status.resource_claims) {
    if (status.name == pod_claim_name) return &status;
  }
  return nullptr;
}

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

bool CanBeReserved(const v1alpha2::ResourceClaim& claim) {
  return (claim.status.allocation && claim.status.allocation->shareable) ||
         claim.status.reserved_for.empty();
}

bool IsReservedFor(const v1alpha2::ResourceClaim& claim, std::string_view uid) {
  return std::any_of(claim.status.reserved_for.begin(),
                     claim.status.reserved_for.end(),
                     [&](const auto& ref) { return ref.uid == uid; });
}

Verdict ClassicClaims::PreFilter(
    const api::Pod& pod, std::vector<PodClaim> claims,
    const ClassLookup& classes, const v1alpha2::PodSchedulingContext* context) {
  claims_.clear();
  unavailable_.clear();
  context_ = context;
  if (context != nullptr &&
      !api::IsControlledBy(context->metadata, pod.metadata.uid)) {
    return Verdict::Error(fmt::format(
        "PodSchedulingContext object with UID {} is not owned by Pod {}/{}",
        context->metadata.uid, pod.metadata.namespace_, pod.metadata.name));
  }
  for (PodClaim& pod_claim : claims) {
    const v1alpha2::ResourceClaim& claim = *pod_claim.claim;
    ClaimState state;
    state.immediate =
        claim.spec.allocation_mode == v1alpha2::kAllocationModeImmediate;
    if (claim.status.deallocation_requested) {
      return Verdict::Unschedulable("resourceclaim must be reallocated");
    }
    if (claim.status.allocation) {
      if (!CanBeReserved(claim) && !IsReservedFor(claim, pod.metadata.uid)) {
        return Verdict::Unschedulable("resourceclaim in use");
      }
      state.allocated = true;
      const auto& on_nodes = claim.status.allocation->available_on_nodes;
      state.node_filter = on_nodes ? &*on_nodes : nullptr;
      state.structured =
          api::HasFinalizer(claim.metadata, v1alpha2::kBuiltinFinalizer);
    } else {
      const v1alpha2::ResourceClass* resource_class =
          classes ? classes(claim.spec.resource_class_name) : nullptr;
      if (resource_class == nullptr) {
        return Verdict::Unschedulable(
            fmt::format("resource class {} does not exist",
                        claim.spec.resource_class_name));
      }
      const auto& suitable = resource_class->suitable_nodes;
      state.node_filter = suitable ? &*suitable : nullptr;
      state.driver_status = StatusFor(context, pod_claim.pod_claim_name);
      state.structured = resource_class->structured_parameters.value_or(false);
      if (!state.structured && state.immediate) {
        return Verdict::Unschedulable("unallocated immediate resourceclaim");
      }
    }
    state.pod_claim = std::move(pod_claim);
    claims_.push_back(state);
  }
  return Verdict::Ok();
}

Verdict ClassicClaims::Filter(const allocator::NodeInfo& node) {
  std::vector<size_t> unavailable;
  for (size_t i = 0; i < claims_.size(); ++i) {
    const ClaimState& state = claims_[i];
    const bool fits = state.node_filter == nullptr ||
                      allocator::NodeSelectorMatches(*state.node_filter, node);
    if (state.allocated) {
      if (!fits) unavailable.push_back(i);
      continue;
    }
    if (!fits) {
      return Verdict::Unschedulable("excluded by resource class node filter");
    }
    // A structured claim's suitability is the allocator's to decide.
    if (!state.structured && state.driver_status != nullptr &&
        Contains(state.driver_status->unsuitable_nodes, node.name)) {
      return Verdict::Unschedulable(
          "resourceclaim cannot be allocated for the node (unsuitable)");
    }
  }
  if (unavailable.empty()) return Verdict::Ok();
  // Deallocating an Immediate claim would only allocate it again for some
  // node, which is unlikely to help the pod.
  for (size_t i : unavailable) {
    if (!claims_[i].immediate) unavailable_.insert(i);
  }
  return Verdict::Unschedulable("resourceclaim not available on the node");
}

bool ClassicClaims::HasPendingClassicClaims() const {
  return std::any_of(claims_.begin(), claims_.end(), [](const ClaimState& s) {
    return !s.allocated && !s.structured;
  });
}

std::optional<std::vector<std::string>> ClassicClaims::PotentialNodes(
    const std::vector<std::string>& feasible, uint64_t seed) const {
  if (!HasPendingClassicClaims()) return std::nullopt;
  if (context_ != nullptr &&
      std::all_of(feasible.begin(), feasible.end(),
                  [this](const std::string& node) {
                    return Contains(context_->spec.potential_nodes, node);
                  })) {
    return std::nullopt;
  }
  std::vector<std::string> nodes = feasible;
  if (nodes.size() > api::v1alpha2::kPodSchedulingNodeListMaxSize) {
    // 1.30 took the first 128 of a Go map's (random) iteration order.
    std::mt19937_64 random(seed);
    std::shuffle(nodes.begin(), nodes.end(), random);
    nodes.resize(api::v1alpha2::kPodSchedulingNodeListMaxSize);
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

ReserveOutcome ClassicClaims::Reserve(
    const std::string& node,
    const std::optional<std::vector<std::string>>& potential_nodes) const {
  ReserveOutcome out;
  out.potential_nodes = potential_nodes;
  const bool prescored = potential_nodes.has_value();
  int pending = 0;      // classic claims a driver must allocate
  int with_status = 0;  // ... of which the driver already answered
  int structured = 0;   // claims the allocator allocates
  for (const ClaimState& state : claims_) {
    if (state.allocated) continue;
    if (state.structured) {
      ++structured;
      continue;
    }
    ++pending;
    if (state.driver_status != nullptr) ++with_status;
  }
  if (pending == 0 && structured == 0) return out;
  if (!prescored && pending > 0 &&
      (context_ == nullptr ||
       !Contains(context_->spec.potential_nodes, node))) {
    // One feasible node: PreScore did not run, so ask about this one.
    out.potential_nodes = std::vector<std::string>{node};
  }
  // With one pending claim, allocation may start before the driver has
  // said anything; with more, only once every driver has answered.
  if ((pending == 1 && structured == 0) ||
      (with_status + structured == pending && structured < pending)) {
    if (context_ == nullptr || context_->spec.selected_node != node) {
      out.selected_node = node;
      return out;
    }
  }
  if (out.potential_nodes.has_value()) return out;
  if (pending == 0) return out;
  out.verdict =
      Verdict::Pending("waiting for resource driver to provide information");
  return out;
}

std::optional<Deallocation> ClassicClaims::PostFilter(const api::Pod& pod,
                                                      Verdict& verdict) const {
  if (claims_.empty()) {
    verdict = Verdict::Unschedulable("no new claims to deallocate");
    return std::nullopt;
  }
  for (size_t i : unavailable_) {
    const v1alpha2::ResourceClaim& claim = *claims_[i].pod_claim.claim;
    const auto& reserved = claim.status.reserved_for;
    if (!reserved.empty() &&
        !(reserved.size() == 1 && reserved[0].uid == pod.metadata.uid)) {
      continue;
    }
    Deallocation out;
    out.claim = i;
    out.classic = !claims_[i].structured;
    out.clear_selected_node = out.classic && context_ != nullptr &&
                              !context_->spec.selected_node.empty();
    verdict = Verdict::Unschedulable("deallocation of ResourceClaim completed");
    return out;
  }
  verdict = Verdict::Unschedulable("still not schedulable");
  return std::nullopt;
}

std::vector<size_t> ClassicClaims::ClaimsToReserve(const api::Pod& pod) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < claims_.size(); ++i) {
    const v1alpha2::ResourceClaim& claim = *claims_[i].pod_claim.claim;
    if (claim.status.allocation && !IsReservedFor(claim, pod.metadata.uid)) {
      out.push_back(i);
    }
  }
  return out;
}

}  // namespace dralloc::scheduler::classic
