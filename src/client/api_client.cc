#include "client/api_client.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <type_traits>

#include "common/clock.h"

namespace dralloc::client {
StatusOr<ObjectPtr> ApiClient::UpdateWithStatus(api::Object object) {
  api::Object status_source = object;
  StatusOr<ObjectPtr> updated = Update(std::move(object));
  if (!updated.ok()) return updated;
  api::Object next = **updated;
  std::visit(
      [&](auto& target) {
        using T = std::decay_t<decltype(target)>;
        if constexpr (api::kHasStatus<T>) {
          target.status = std::move(std::get<T>(status_source).status);
        }
      },
      next);
  if (next == **updated) return updated;
  return UpdateStatus(std::move(next));
}

Status ApiClient::Delete(const api::ResourceInfo& resource,
                         std::string_view namespace_, std::string_view name,
                         const DeleteOptions& options) {
  if (options.grace_period_seconds) {
    return Status(StatusCode::kUnimplemented,
                  fmt::format("{} {}: this client cannot delete with a grace "
                              "period",
                              resource.plural, name));
  }
  if (options.orphan_dependents) {
    return Status(StatusCode::kUnimplemented,
                  fmt::format("{} {}: this client cannot delete with "
                              "propagationPolicy Orphan",
                              resource.plural, name));
  }
  return Delete(resource, namespace_, name, options.uid);
}

Status StatusForApiError(int code, std::string_view reason,
                         std::string message) {
  StatusCode status = StatusCode::kInternal;
  if (code == 404 || code == 406) {
    // 406: the name belongs to the other family of a shared resource
    // (docs/classic-dra.md, section 3); through this resource it is not
    // there, as the in-memory client answers too.
    status = StatusCode::kNotFound;
  } else if (code == 409) {
    status = reason == "AlreadyExists" ? StatusCode::kAlreadyExists
                                       : StatusCode::kAborted;
  } else if (code == 400 || code == 413 || code == 415 || code == 422) {
    status = StatusCode::kInvalidArgument;
  } else if (code == 410) {
    status = StatusCode::kOutOfRange;
  } else if (code == 401 || code == 403) {
    status = StatusCode::kFailedPrecondition;
  } else if (code == 408 || code == 429 || code >= 500) {
    status = StatusCode::kUnavailable;
  }
  return Status(status, std::move(message));
}

int64_t ParseResourceVersion(std::string_view text) {
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    value = value * 10 + (c - '0');
  }
  return value;
}

api::Event PodWarningEvent(const api::Pod& pod, std::string reason,
                           std::string message, const std::string& component) {
  const auto now = std::chrono::system_clock::now();
  const int64_t nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            now.time_since_epoch())
                            .count();
  api::Event event;
  event.metadata.name = fmt::format("{}.{:x}", pod.metadata.name, nanos);
  event.metadata.namespace_ = pod.metadata.namespace_;
  event.involved_object = {.kind = "Pod",
                           .namespace_ = pod.metadata.namespace_,
                           .name = pod.metadata.name,
                           .uid = pod.metadata.uid,
                           .api_version = "v1"};
  event.reason = std::move(reason);
  event.message = std::move(message);
  event.type = "Warning";
  event.source.component = component;
  event.reporting_component = component;
  const std::string stamp = NowRfc3339();
  event.first_timestamp = stamp;
  event.last_timestamp = stamp;
  event.count = 1;
  return event;
}

const api::ResourceInfo& ResourceOf(const api::Object& object) {
  return api::ResourceInfoOf(object);
}

}  // namespace dralloc::client
