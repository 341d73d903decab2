// resource.k8s.io/v1alpha3 ResourceSlicePatch (KEP-5027): admin overrides of
// device attributes and capacities.
#ifndef DRALLOC_API_TYPES_RESOURCE_SLICE_PATCH_H_
#define DRALLOC_API_TYPES_RESOURCE_SLICE_PATCH_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/device_types.h"
#include "api/types/object_meta.h"

namespace dralloc::api {

// A DeviceAttribute, or `null: {}` which removes the attribute from the
// patched devices. Exactly one field is set.
struct NullableDeviceAttribute {
  std::optional<int64_t> int_value;
  std::optional<bool> bool_value;
  std::optional<std::string> string_value;
  std::optional<std::string> version_value;
  std::optional<std::vector<int64_t>> ints;
  std::optional<std::vector<bool>> bools;
  std::optional<std::vector<std::string>> strings;
  std::optional<std::vector<std::string>> versions;
  std::optional<EmptyObject> null_value;
  friend bool operator==(const NullableDeviceAttribute&,
                         const NullableDeviceAttribute&) = default;
};
constexpr auto FieldsOf(const NullableDeviceAttribute*) {
  using T = NullableDeviceAttribute;
  return std::tuple{
      Field("int", &T::int_value),       Field("bool", &T::bool_value),
      Field("string", &T::string_value), Field("version", &T::version_value),
      Field("ints", &T::ints),           Field("bools", &T::bools),
      Field("strings", &T::strings),     Field("versions", &T::versions),
      Field("null", &T::null_value)};
}

// JSON null for a NullableDeviceAttribute means "delete", the same as `null:
// {}` (found by the codec through ADL).
inline void DecodeNullInto(NullableDeviceAttribute& attribute) {
  attribute.null_value.emplace();
}

struct DevicePatchFilter {
  std::optional<std::string> device_class_name;
  std::optional<std::string> driver;
  std::optional<std::string> pool;
  std::optional<std::string> device;
  std::vector<DeviceSelector> selectors;
  friend bool operator==(const DevicePatchFilter&,
                         const DevicePatchFilter&) = default;
};
constexpr auto FieldsOf(const DevicePatchFilter*) {
  using T = DevicePatchFilter;
  return std::tuple{Field("deviceClassName", &T::device_class_name),
                    Field("driver", &T::driver), Field("pool", &T::pool),
                    Field("device", &T::device),
                    Field("selectors", &T::selectors)};
}

struct DevicePatch {
  std::optional<DevicePatchFilter> filter;
  std::optional<int64_t> priority;
  std::map<std::string, NullableDeviceAttribute> attributes;
  std::map<std::string, DeviceCapacity> capacity;
  friend bool operator==(const DevicePatch&, const DevicePatch&) = default;
};
constexpr auto FieldsOf(const DevicePatch*) {
  using T = DevicePatch;
  return std::tuple{
      Field("filter", &T::filter), Field("priority", &T::priority),
      Field("attributes", &T::attributes), Field("capacity", &T::capacity)};
}

struct ResourceSlicePatchSpec {
  DevicePatch devices;
  friend bool operator==(const ResourceSlicePatchSpec&,
                         const ResourceSlicePatchSpec&) = default;
};
constexpr auto FieldsOf(const ResourceSlicePatchSpec*) {
  return std::tuple{
      Field("devices", &ResourceSlicePatchSpec::devices, kAlways)};
}

struct ResourceSlicePatch {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ResourceSlicePatchSpec spec;
  friend bool operator==(const ResourceSlicePatch&,
                         const ResourceSlicePatch&) = default;
};
constexpr auto FieldsOf(const ResourceSlicePatch*) {
  using T = ResourceSlicePatch;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_RESOURCE_SLICE_PATCH_H_
