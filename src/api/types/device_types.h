// resource.k8s.io value types shared by slices, classes, claims and patches.
#ifndef DRALLOC_API_TYPES_DEVICE_TYPES_H_
#define DRALLOC_API_TYPES_DEVICE_TYPES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/object_meta.h"
#include "common/quantity.h"

namespace dralloc::api {

// A typed device attribute: exactly one of the fields is set. The list forms
// (ints, bools, strings, versions) come with the DRAListTypeAttributes gate.
struct DeviceAttribute {
  std::optional<int64_t> int_value;
  std::optional<bool> bool_value;
  std::optional<std::string> string_value;
  std::optional<std::string> version_value;
  std::optional<std::vector<int64_t>> ints;
  std::optional<std::vector<bool>> bools;
  std::optional<std::vector<std::string>> strings;
  std::optional<std::vector<std::string>> versions;
  friend bool operator==(const DeviceAttribute&,
                         const DeviceAttribute&) = default;
};
constexpr auto FieldsOf(const DeviceAttribute*) {
  using T = DeviceAttribute;
  return std::tuple{
      Field("int", &T::int_value),       Field("bool", &T::bool_value),
      Field("string", &T::string_value), Field("version", &T::version_value),
      Field("ints", &T::ints),           Field("bools", &T::bools),
      Field("strings", &T::strings),     Field("versions", &T::versions)};
}

struct CapacityRequestPolicyRange {
  std::optional<Quantity> min;
  std::optional<Quantity> max;
  std::optional<Quantity> step;
  friend bool operator==(const CapacityRequestPolicyRange&,
                         const CapacityRequestPolicyRange&) = default;
};
constexpr auto FieldsOf(const CapacityRequestPolicyRange*) {
  using T = CapacityRequestPolicyRange;
  return std::tuple{Field("min", &T::min), Field("max", &T::max),
                    Field("step", &T::step)};
}

struct CapacityRequestPolicy {
  std::optional<Quantity> default_;
  std::vector<Quantity> valid_values;
  std::optional<CapacityRequestPolicyRange> valid_range;
  friend bool operator==(const CapacityRequestPolicy&,
                         const CapacityRequestPolicy&) = default;
};
constexpr auto FieldsOf(const CapacityRequestPolicy*) {
  using T = CapacityRequestPolicy;
  return std::tuple{Field("default", &T::default_),
                    Field("validValues", &T::valid_values),
                    Field("validRange", &T::valid_range)};
}

struct DeviceCapacity {
  Quantity value;
  std::optional<CapacityRequestPolicy> request_policy;
  friend bool operator==(const DeviceCapacity&,
                         const DeviceCapacity&) = default;
};
constexpr auto FieldsOf(const DeviceCapacity*) {
  using T = DeviceCapacity;
  return std::tuple{Field("value", &T::value, kAlways),
                    Field("requestPolicy", &T::request_policy)};
}

struct Counter {
  Quantity value;
  friend bool operator==(const Counter&, const Counter&) = default;
};
constexpr auto FieldsOf(const Counter*) {
  return std::tuple{Field("value", &Counter::value, kAlways)};
}

struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;  // None, NoSchedule, NoExecute
  std::optional<Time> time_added;
  friend bool operator==(const DeviceTaint&, const DeviceTaint&) = default;
};
constexpr auto FieldsOf(const DeviceTaint*) {
  using T = DeviceTaint;
  return std::tuple{Field("key", &T::key, kAlways), Field("value", &T::value),
                    Field("effect", &T::effect, kAlways),
                    Field("timeAdded", &T::time_added)};
}

struct DeviceToleration {
  std::string key;
  std::string operator_;  // Exists, Equal (default)
  std::string value;
  std::string effect;
  std::optional<int64_t> toleration_seconds;
  friend bool operator==(const DeviceToleration&,
                         const DeviceToleration&) = default;
};
constexpr auto FieldsOf(const DeviceToleration*) {
  using T = DeviceToleration;
  return std::tuple{Field("key", &T::key), Field("operator", &T::operator_),
                    Field("value", &T::value), Field("effect", &T::effect),
                    Field("tolerationSeconds", &T::toleration_seconds)};
}

struct CELDeviceSelector {
  std::string expression;
  friend bool operator==(const CELDeviceSelector&,
                         const CELDeviceSelector&) = default;
};
constexpr auto FieldsOf(const CELDeviceSelector*) {
  return std::tuple{
      Field("expression", &CELDeviceSelector::expression, kAlways)};
}

struct DeviceSelector {
  std::optional<CELDeviceSelector> cel;
  friend bool operator==(const DeviceSelector&,
                         const DeviceSelector&) = default;
};
constexpr auto FieldsOf(const DeviceSelector*) {
  return std::tuple{Field("cel", &DeviceSelector::cel)};
}

// Driver-specific configuration; `parameters` is any JSON object (≤ 10 KiB).
struct OpaqueDeviceConfiguration {
  std::string driver;
  RawJson parameters;
  friend bool operator==(const OpaqueDeviceConfiguration&,
                         const OpaqueDeviceConfiguration&) = default;
};
constexpr auto FieldsOf(const OpaqueDeviceConfiguration*) {
  using T = OpaqueDeviceConfiguration;
  return std::tuple{Field("driver", &T::driver, kAlways),
                    Field("parameters", &T::parameters, kAlways)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_DEVICE_TYPES_H_
