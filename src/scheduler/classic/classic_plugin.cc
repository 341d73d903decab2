#include "scheduler/classic/classic_plugin.h"

#include <fmt/format.h>

namespace dralloc::scheduler::classic {
namespace {

namespace v1alpha2 = api::v1alpha2;
using client::As;

}  // namespace

Verdict ClassicPlugin::PreFilter(DraCycleState& state) {
  if (state.classic == nullptr) return Verdict::Ok();
  ClassicCycleState& classic = *state.classic;
  const api::Pod& pod = state.pod;
  classic.context = snapshot_.SchedulingContext(
      client::ObjectKey(pod.metadata.namespace_, pod.metadata.name));
  std::vector<PodClaim> claims;
  claims.reserve(classic.claims.size());
  for (const ClassicPodClaim& claim : classic.claims) {
    claims.push_back({claim.name, claim.claim});
  }
  const ClassLookup classes =
      [&](std::string_view name) -> const v1alpha2::ResourceClass* {
    client::ObjectPtr object = snapshot_.ClassicClass(name);
    const auto* resource_class = As<v1alpha2::ResourceClass>(object);
    if (resource_class != nullptr) classic.classes.push_back(std::move(object));
    return resource_class;
  };
  if (Verdict planned = PlanStructured(classic); !planned.ok()) {
    return planned;
  }
  return classic.decisions.PreFilter(
      pod, std::move(claims), classes,
      As<v1alpha2::PodSchedulingContext>(classic.context));
}

Verdict ClassicPlugin::PlanStructured(ClassicCycleState& classic) {
  const ParameterSource source{
      [this](const std::string& ns, const std::string& name) {
        return snapshot_.ClaimParameters(ns, name);
      },
      [this](const std::string& ns, const std::string& name) {
        return snapshot_.ClassParameters(ns, name);
      },
      [this] { return snapshot_.AllClaimParameters(); },
      [this] { return snapshot_.AllClassParameters(); }};
  for (size_t i = 0; i < classic.claims.size(); ++i) {
    const ClassicPodClaim& claim = classic.claims[i];
    if (claim.claim->status.allocation) continue;
    client::ObjectPtr class_object =
        snapshot_.ClassicClass(claim.claim->spec.resource_class_name);
    const auto* resource_class = As<v1alpha2::ResourceClass>(class_object);
    if (resource_class == nullptr ||
        !resource_class->structured_parameters.value_or(false)) {
      continue;
    }
    // (1.30's answer while its own allocation of the claim was in flight.)
    if (assumed_.contains(claim.key)) {
      return Verdict::Unschedulable(fmt::format(
          "resource claim {} is in the process of being allocated", claim.key));
    }
    if (inventory_dirty_) {
      inventory_.Rebuild(snapshot_.ClassicSlices());
      inventory_dirty_ = false;
    }
    classic.classes.push_back(class_object);
    StructuredClaim& plan = classic.structured.emplace_back();
    plan.claim = i;
    if (Verdict v = PlanStructuredClaim(*claim.claim, *resource_class, source,
                                        selectors_, plan);
        !v.ok()) {
      return v;
    }
  }
  return Verdict::Ok();
}

bool ClassicPlugin::StructuredFits(const DraCycleState& state,
                                   const std::string& node,
                                   std::string& reason) const {
  if (state.classic == nullptr || state.classic->structured.empty()) {
    return true;
  }
  const ClassicCycleState& classic = *state.classic;
  return AllocateOnNode(classic.structured, inventory_, node, TakenTest(),
                        reason)
      .has_value();
}

std::function<bool(const std::string&)> ClassicPlugin::TakenTest() const {
  // Classic claims' instances (informed and assumed) count there too
  // (ClusterSnapshot::CountClassicDevices).
  return [this](const std::string& id) {
    return snapshot_.allocated().IsInUse(id);
  };
}

bool ClassicPlugin::ObserveClaim(const std::string& key,
                                 const v1alpha2::ResourceClaim* now) {
  auto it = assumed_.find(key);
  if (it == assumed_.end()) return false;
  if (now != nullptr && !now->status.allocation) return false;
  assumed_.erase(it);
  return true;
}

void ClassicPlugin::ForgetAssumed(
    const std::vector<ClassicClaimReservation>& claims) {
  for (const ClassicClaimReservation& reservation : claims) {
    if (reservation.allocation) assumed_.erase(reservation.key);
  }
}

void ClassicPlugin::PreScore(DraCycleState& state,
                             const std::vector<Candidate>& feasible) {
  if (state.classic == nullptr) return;
  std::vector<std::string> names;
  names.reserve(feasible.size());
  for (const Candidate& candidate : feasible) {
    names.push_back(snapshot_.nodes()[candidate.node].info.name);
  }
  state.classic->potential_nodes =
      state.classic->decisions.PotentialNodes(names, ++prescores_);
}

ClassicReserve ClassicPlugin::Reserve(const DraCycleState& state,
                                      const std::string& node) {
  ClassicReserve out;
  if (state.classic == nullptr) return out;
  const ClassicCycleState& classic = *state.classic;
  out.delete_scheduling_context = true;
  if (!classic.decisions.HasPendingClassicClaims()) {
    for (size_t index : classic.decisions.ClaimsToReserve(state.pod)) {
      const ClassicPodClaim& claim = classic.claims[index];
      out.reservations.push_back({claim.key, claim.object, std::nullopt, ""});
    }
    ReserveStructured(classic, node, out);
    return out;
  }
  const ReserveOutcome reserved =
      classic.decisions.Reserve(node, classic.potential_nodes);
  out.waits = true;
  out.write.selected_node = reserved.selected_node;
  out.write.potential_nodes = reserved.potential_nodes;
  const auto* context = As<v1alpha2::PodSchedulingContext>(classic.context);
  const bool selected =
      reserved.selected_node.has_value() ||
      (context != nullptr && context->spec.selected_node == node);
  out.message = selected ? "waiting for resource driver to allocate resource"
                         : "waiting for resource driver to provide information";
  for (const ClassicPodClaim& claim : classic.claims) {
    if (!claim.claim->status.allocation) out.claims.push_back(claim.key);
  }
  return out;
}

void ClassicPlugin::ReserveStructured(const ClassicCycleState& classic,
                                      const std::string& node,
                                      ClassicReserve& out) {
  if (classic.structured.empty()) return;
  std::string reason;
  std::optional<NodeAllocation> allocated =
      AllocateOnNode(classic.structured, inventory_, node, TakenTest(), reason);
  if (!allocated) {
    // Filter found a fit on the same state, so this does not happen; if it
    // did, PreBind would find the claims unallocated and fail the binding.
    for (const StructuredClaim& plan : classic.structured) {
      const ClassicPodClaim& claim = classic.claims[plan.claim];
      out.reservations.push_back({claim.key, claim.object, std::nullopt, ""});
    }
    return;
  }
  for (size_t c = 0; c < classic.structured.size(); ++c) {
    const StructuredClaim& plan = classic.structured[c];
    const ClassicPodClaim& claim = classic.claims[plan.claim];
    out.reservations.push_back({claim.key, claim.object,
                                std::move(allocated->allocations[c]),
                                plan.driver_name});
    std::vector<std::string>& devices = assumed_[claim.key];
    for (const std::string& id : StructuredDevicesOf(v1alpha2::ResourceClaim{
             .status = {.allocation = out.reservations.back().allocation}})) {
      devices.push_back(id);
    }
  }
}

std::optional<ClassicDeallocation> ClassicPlugin::PostFilter(
    const DraCycleState& state) const {
  if (state.classic == nullptr) return std::nullopt;
  Verdict verdict;
  const std::optional<Deallocation> chosen =
      state.classic->decisions.PostFilter(state.pod, verdict);
  if (!chosen) return std::nullopt;
  return ClassicDeallocation{state.classic->claims[chosen->claim].object,
                             chosen->classic, chosen->clear_selected_node};
}

}  // namespace dralloc::scheduler::classic
