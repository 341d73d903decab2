// resource.k8s.io DeviceTaintRule: taints added to matching devices by an
// admin.
#ifndef DRALLOC_API_TYPES_DEVICE_TAINT_RULE_H_
#define DRALLOC_API_TYPES_DEVICE_TAINT_RULE_H_

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/device_types.h"
#include "api/types/object_meta.h"

namespace dralloc::api {

// `device_class_name` and `selectors` exist only in v1alpha3 (removed from
// later versions); they are kept so v1alpha3 objects convert losslessly.
struct DeviceTaintSelector {
  std::optional<std::string> device_class_name;
  std::optional<std::string> driver;
  std::optional<std::string> pool;
  std::optional<std::string> device;
  std::vector<DeviceSelector> selectors;
  friend bool operator==(const DeviceTaintSelector&,
                         const DeviceTaintSelector&) = default;
};
constexpr auto FieldsOf(const DeviceTaintSelector*) {
  using T = DeviceTaintSelector;
  return std::tuple{Field("deviceClassName", &T::device_class_name),
                    Field("driver", &T::driver), Field("pool", &T::pool),
                    Field("device", &T::device),
                    Field("selectors", &T::selectors)};
}

struct DeviceTaintRuleSpec {
  std::optional<DeviceTaintSelector> device_selector;
  DeviceTaint taint;
  friend bool operator==(const DeviceTaintRuleSpec&,
                         const DeviceTaintRuleSpec&) = default;
};
constexpr auto FieldsOf(const DeviceTaintRuleSpec*) {
  using T = DeviceTaintRuleSpec;
  return std::tuple{Field("deviceSelector", &T::device_selector),
                    Field("taint", &T::taint, kAlways)};
}

struct DeviceTaintRuleStatus {
  std::vector<Condition> conditions;
  friend bool operator==(const DeviceTaintRuleStatus&,
                         const DeviceTaintRuleStatus&) = default;
};
constexpr auto FieldsOf(const DeviceTaintRuleStatus*) {
  return std::tuple{Field("conditions", &DeviceTaintRuleStatus::conditions)
                        .ListMap("type")
                        .PatchMerge()};
}

struct DeviceTaintRule {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  DeviceTaintRuleSpec spec;
  DeviceTaintRuleStatus status;
  friend bool operator==(const DeviceTaintRule&,
                         const DeviceTaintRule&) = default;
};
constexpr auto FieldsOf(const DeviceTaintRule*) {
  using T = DeviceTaintRule;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec), Field("status", &T::status)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_DEVICE_TAINT_RULE_H_
