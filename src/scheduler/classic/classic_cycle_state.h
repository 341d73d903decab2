// ClassicCycleState: what one scheduling cycle knows about the pod's
// resource.k8s.io/v1alpha2 (classic DRA) claims. DraCycleState holds one
// only for pods that have such a claim, so pods without any pay nothing.
#ifndef DRALLOC_SCHEDULER_CLASSIC_CLASSIC_CYCLE_STATE_H_
#define DRALLOC_SCHEDULER_CLASSIC_CLASSIC_CYCLE_STATE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/types/core.h"
#include "client/api_client.h"
#include "scheduler/classic/classic_claims.h"
#include "scheduler/classic/structured_allocation.h"

namespace dralloc::scheduler::classic {

// One classic claim of the pod, as PreEnqueue found it.
struct ClassicPodClaim {
  std::string name;  // pod.spec.resourceClaims[].name
  std::string key;   // "<namespace>/<claim name>"
  client::ObjectPtr object;
  const api::v1alpha2::ResourceClaim* claim = nullptr;  // in `object`
};

struct ClassicCycleState {
  std::vector<ClassicPodClaim> claims;
  // PreFilter: the pod's PodSchedulingContext (null when none) and the
  // classes the claims name (kept alive for `decisions`).
  client::ObjectPtr context;
  std::vector<client::ObjectPtr> classes;
  ClassicClaims decisions;
  // PreScore: the potential nodes to publish (nullopt: none to publish).
  std::optional<std::vector<std::string>> potential_nodes;
  // PreFilter: the unallocated claims of structuredParameters classes the
  // scheduler allocates.
  std::vector<StructuredClaim> structured;
};

// PreEnqueue for a claim key the v1 claims do not hold but the classic ones
// do: adds it to `state` (created on first use) unless it is unusable, in
// which case the unschedulable reason is returned. `generated`: the pod's
// entry names a template, so the claim must be controlled by the pod.
std::optional<std::string> AddClassicClaim(
    std::unique_ptr<ClassicCycleState>& state, const api::Pod& pod,
    const api::PodResourceClaim& entry, bool generated, std::string key,
    client::ObjectPtr object);

}  // namespace dralloc::scheduler::classic

#endif  // DRALLOC_SCHEDULER_CLASSIC_CLASSIC_CYCLE_STATE_H_
