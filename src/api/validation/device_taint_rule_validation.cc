// ValidateDeviceTaintRule: upstream pkg/apis/resource/validation semantics for
// DeviceTaintRules.
//
// `deviceSelector.deviceClassName` and `deviceSelector.selectors` only exist
// in resource.k8s.io/v1alpha3 (tombstoned in later versions). The hub keeps
// them so v1alpha3 objects convert losslessly; when set they are validated
// as v1alpha3 did (class name a DNS subdomain, selectors like a class's).
#include <cstdint>

#include "api/validation/device_rules.h"
#include "api/validation/limits.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace dralloc::api {
namespace {

void ValidateDeviceTaintSelector(const DeviceTaintSelector& selector,
                                 const FieldPath& path, ErrorList& errors) {
  if (selector.device_class_name.has_value()) {
    ValidateDns1123Subdomain(*selector.device_class_name,
                             path.Child("deviceClassName"), errors);
  }
  if (selector.driver.has_value()) {
    ValidateDriverName(*selector.driver, path.Child("driver"), errors);
  }
  if (selector.pool.has_value())
    ValidatePoolName(*selector.pool, path.Child("pool"), errors);
  if (selector.device.has_value()) {
    ValidateDeviceName(*selector.device, path.Child("device"), errors);
  }
  ValidateSelectors(selector.selectors, path.Child("selectors"), errors);
}

}  // namespace

ErrorList ValidateDeviceTaintRule(const DeviceTaintRule& rule) {
  ErrorList errors = ObjectMetaErrors(rule.metadata, /*namespaced=*/false);

  FieldPath spec_path("spec");
  if (rule.spec.device_selector.has_value()) {
    ValidateDeviceTaintSelector(*rule.spec.device_selector,
                                spec_path.Child("deviceSelector"), errors);
  }
  ValidateDeviceTaint(rule.spec.taint, spec_path.Child("taint"), errors);

  FieldPath status_path("status");
  FieldPath conditions_path = status_path.Child("conditions");
  const auto& conditions = rule.status.conditions;
  ValidateConditions(conditions, conditions_path, errors);
  if (static_cast<int64_t>(conditions.size()) > kDeviceTaintRuleMaxConditions) {
    errors.push_back(TooMany(conditions_path,
                             static_cast<int64_t>(conditions.size()),
                             kDeviceTaintRuleMaxConditions));
  }
  return errors;
}

}  // namespace dralloc::api
