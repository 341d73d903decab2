// resource.k8s.io/v1 DeviceClass: admin-defined selectors and configuration.
#ifndef DRALLOC_API_TYPES_DEVICE_CLASS_H_
#define DRALLOC_API_TYPES_DEVICE_CLASS_H_

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/device_types.h"
#include "api/types/object_meta.h"

namespace dralloc::api {

struct DeviceClassConfiguration {
  std::optional<OpaqueDeviceConfiguration> opaque;
  friend bool operator==(const DeviceClassConfiguration&,
                         const DeviceClassConfiguration&) = default;
};
constexpr auto FieldsOf(const DeviceClassConfiguration*) {
  return std::tuple{Field("opaque", &DeviceClassConfiguration::opaque)};
}

struct DeviceClassSpec {
  std::vector<DeviceSelector> selectors;
  std::vector<DeviceClassConfiguration> config;
  std::optional<std::string> extended_resource_name;
  friend bool operator==(const DeviceClassSpec&,
                         const DeviceClassSpec&) = default;
};
constexpr auto FieldsOf(const DeviceClassSpec*) {
  using T = DeviceClassSpec;
  return std::tuple{Field("selectors", &T::selectors),
                    Field("config", &T::config),
                    Field("extendedResourceName", &T::extended_resource_name)};
}

struct DeviceClass {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  DeviceClassSpec spec;
  friend bool operator==(const DeviceClass&, const DeviceClass&) = default;
};
constexpr auto FieldsOf(const DeviceClass*) {
  using T = DeviceClass;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_DEVICE_CLASS_H_
