// Pods (upstream pkg/registry/core/pod): the rules of pods/<name>/binding
// and of graceful deletion. The strategy itself (PodStrategy in
// kind_strategies.h) deletes a bound, running pod gracefully.
#ifndef DRALLOC_REGISTRY_POD_STRATEGY_H_
#define DRALLOC_REGISTRY_POD_STRATEGY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/types/core.h"

namespace dralloc::registry {

// The grace period of a pod without spec.terminationGracePeriodSeconds
// (upstream's default).
inline constexpr int64_t kDefaultTerminationGracePeriodSeconds = 30;

// Why `pod` cannot be bound by a binding carrying `uid` ("" : any), as the
// detail of a 409 Conflict; nullopt when it can (then api::MarkBound).
std::optional<std::string> BindingConflict(const api::Pod& pod,
                                           std::string_view uid);

// spec.terminationGracePeriodSeconds (kept verbatim in the spec's unknown
// fields); nullopt when absent or not an integer.
std::optional<int64_t> TerminationGracePeriodSeconds(const api::Pod& pod);

// Upstream's podStrategy.CheckGracefulDelete: `requested` (else the pod's
// terminationGracePeriodSeconds, else 30); 0 for a pod not bound to a node
// or in a terminal phase (Succeeded, Failed); a negative period becomes 1.
int64_t PodDeletionGracePeriod(const api::Pod& pod,
                               std::optional<int64_t> requested);

}  // namespace dralloc::registry

#endif  // DRALLOC_REGISTRY_POD_STRATEGY_H_
