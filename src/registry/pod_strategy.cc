#include "registry/pod_strategy.h"

#include <fmt/format.h>

#include "registry/rest_errors.h"

namespace dralloc::registry {

std::optional<std::string> BindingConflict(const api::Pod& pod,
                                           std::string_view uid) {
  if (!uid.empty() && uid != pod.metadata.uid) {
    return UidPreconditionFailed(uid, pod.metadata.uid);
  }
  if (!pod.spec.node_name.empty()) {
    return fmt::format("pod {} is already assigned to node \"{}\"",
                       pod.metadata.name, pod.spec.node_name);
  }
  if (pod.metadata.deletion_timestamp) {
    return std::string("pod is being deleted, cannot be assigned to a host");
  }
  return std::nullopt;
}

}  // namespace dralloc::registry
