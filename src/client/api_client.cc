#include "client/api_client.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <type_traits>

#include "apiserver/resource_storage.h"

namespace dralloc::client {
namespace {

const api::ResourceInfo& MustFind(std::string_view kind) {
  const api::ResourceInfo* info = api::FindResourceByKind(kind);
  if (info == nullptr) std::abort();  // the registry serves every kind below
  return *info;
}

}  // namespace

const api::ResourceInfo& PodsResource() {
  static const api::ResourceInfo& info = MustFind("Pod");
  return info;
}
const api::ResourceInfo& NodesResource() {
  static const api::ResourceInfo& info = MustFind("Node");
  return info;
}
const api::ResourceInfo& ResourceClaimsResource() {
  static const api::ResourceInfo& info = MustFind("ResourceClaim");
  return info;
}
const api::ResourceInfo& ResourceClaimTemplatesResource() {
  static const api::ResourceInfo& info = MustFind("ResourceClaimTemplate");
  return info;
}
const api::ResourceInfo& ResourceSlicesResource() {
  static const api::ResourceInfo& info = MustFind("ResourceSlice");
  return info;
}
const api::ResourceInfo& DeviceClassesResource() {
  static const api::ResourceInfo& info = MustFind("DeviceClass");
  return info;
}
const api::ResourceInfo& DeviceTaintRulesResource() {
  static const api::ResourceInfo& info = MustFind("DeviceTaintRule");
  return info;
}
const api::ResourceInfo& ResourceSlicePatchesResource() {
  static const api::ResourceInfo& info = MustFind("ResourceSlicePatch");
  return info;
}
const api::ResourceInfo& EventsResource() {
  static const api::ResourceInfo& info = MustFind("Event");
  return info;
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
  const std::string stamp = apiserver::NowRfc3339();
  event.first_timestamp = stamp;
  event.last_timestamp = stamp;
  event.count = 1;
  return event;
}

const api::ResourceInfo& ResourceOf(const api::Object& object) {
  return MustFind(api::KindOf(object));
}

}  // namespace dralloc::client
