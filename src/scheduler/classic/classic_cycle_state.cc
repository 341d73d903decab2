#include "scheduler/classic/classic_cycle_state.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/claim_helpers.h"
#include "client/informer.h"

namespace dralloc::scheduler::classic {

std::optional<std::string> AddClassicClaim(
    std::unique_ptr<ClassicCycleState>& state, const api::Pod& pod,
    const api::PodResourceClaim& entry, bool generated, std::string key,
    client::ObjectPtr object) {
  const auto* claim = client::As<api::v1alpha2::ResourceClaim>(object);
  const std::string& name = claim->metadata.name;
  if (claim->metadata.deletion_timestamp) {
    return fmt::format("resourceclaim \"{}\" is being deleted", name);
  }
  if (generated && !api::IsControlledBy(claim->metadata, pod.metadata.uid)) {
    return fmt::format("ResourceClaim {} was not created for the pod", name);
  }
  if (state == nullptr) state = std::make_unique<ClassicCycleState>();
  auto& claims = state->claims;
  if (std::none_of(claims.begin(), claims.end(),
                   [&](const ClassicPodClaim& c) { return c.key == key; })) {
    claims.push_back({entry.name, std::move(key), std::move(object), claim});
  }
  return std::nullopt;
}

}  // namespace dralloc::scheduler::classic
