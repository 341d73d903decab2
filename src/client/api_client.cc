#include "client/api_client.h"

#include <cstdlib>
#include <type_traits>

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

const api::ResourceInfo& ResourceOf(const api::Object& object) {
  return MustFind(api::KindOf(object));
}

}  // namespace dralloc::client
