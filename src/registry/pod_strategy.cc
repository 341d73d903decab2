#include "registry/pod_strategy.h"

#include <fmt/format.h>

#include <charconv>

#include "registry/kind_strategies.h"
#include "registry/rest_errors.h"

namespace dralloc::registry {
namespace {

class PodRules final : public ResourceStrategy {
 public:
  std::optional<int64_t> GracefulDeletionPeriod(
      const api::Object& object,
      std::optional<int64_t> requested) const override {
    return PodDeletionGracePeriod(std::get<api::Pod>(object), requested);
  }
};

}  // namespace

const ResourceStrategy& PodStrategy() {
  static const PodRules kRules;
  return kRules;
}

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

std::optional<int64_t> TerminationGracePeriodSeconds(const api::Pod& pod) {
  for (const auto& [name, value] : pod.spec.unknown_fields) {
    if (name != "terminationGracePeriodSeconds") continue;
    const std::string& text = value.json;
    int64_t seconds = 0;
    auto [end, error] =
        std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (error != std::errc() || end != text.data() + text.size()) {
      return std::nullopt;
    }
    return seconds;
  }
  return std::nullopt;
}

int64_t PodDeletionGracePeriod(const api::Pod& pod,
                               std::optional<int64_t> requested) {
  int64_t period = requested ? *requested
                             : TerminationGracePeriodSeconds(pod).value_or(
                                   kDefaultTerminationGracePeriodSeconds);
  if (pod.spec.node_name.empty()) period = 0;
  if (pod.status.phase == "Succeeded" || pod.status.phase == "Failed") {
    period = 0;
  }
  return period < 0 ? 1 : period;
}

}  // namespace dralloc::registry
