#include "scheduler/classic/classic_plugin.h"

#include <fmt/format.h>

namespace dralloc::scheduler::classic {
namespace {

namespace v1alpha2 = api::v1alpha2;
using client::As;

}  // namespace

Verdict ClassicPlugin::PreFilter(DraCycleState& state) const {
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
  // 1.30's structured parameters (namedResources) are not allocated here.
  for (const ClassicPodClaim& claim : classic.claims) {
    if (claim.claim->status.allocation) continue;
    const auto* resource_class = classes(claim.claim->spec.resource_class_name);
    if (resource_class != nullptr &&
        resource_class->structured_parameters.value_or(false)) {
      return Verdict::Unschedulable(fmt::format(
          "resource class {} uses structured parameters, which dralloc does "
          "not allocate for resource.k8s.io/v1alpha2 claims",
          resource_class->metadata.name));
    }
  }
  return classic.decisions.PreFilter(
      pod, std::move(claims), classes,
      As<v1alpha2::PodSchedulingContext>(classic.context));
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
                                      const std::string& node) const {
  ClassicReserve out;
  if (state.classic == nullptr) return out;
  const ClassicCycleState& classic = *state.classic;
  out.delete_scheduling_context = true;
  if (!classic.decisions.HasPendingClassicClaims()) {
    for (size_t index : classic.decisions.ClaimsToReserve(state.pod)) {
      const ClassicPodClaim& claim = classic.claims[index];
      out.reservations.push_back({claim.key, claim.object});
    }
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
