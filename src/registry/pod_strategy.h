// Pods (upstream pkg/registry/core/pod/storage BindingREST): the rules of
// pods/<name>/binding.
#ifndef DRALLOC_REGISTRY_POD_STRATEGY_H_
#define DRALLOC_REGISTRY_POD_STRATEGY_H_

#include <optional>
#include <string>
#include <string_view>

#include "api/types/core.h"

namespace dralloc::registry {

// Why `pod` cannot be bound by a binding carrying `uid` ("" : any), as the
// detail of a 409 Conflict; nullopt when it can (then api::MarkBound).
std::optional<std::string> BindingConflict(const api::Pod& pod,
                                           std::string_view uid);

}  // namespace dralloc::registry

#endif  // DRALLOC_REGISTRY_POD_STRATEGY_H_
