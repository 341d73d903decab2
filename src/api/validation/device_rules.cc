#include "api/validation/device_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/validation/limits.h"
#include "api/validation/names.h"
#include "common/quantity.h"
#include "common/semver.h"

namespace dralloc::api {
namespace {

constexpr std::string_view kNotSemVer =
    "must be a string compatible with semver.org spec 2.0.0";

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

int64_t Size(size_t n) { return static_cast<int64_t>(n); }

void ValidateCIdentifier(std::string_view id, const FieldPath& path,
                         ErrorList& errors) {
  if (Size(id.size()) > kDeviceMaxIDLength)
    errors.push_back(TooLong(path, kDeviceMaxIDLength));
  for (const std::string& msg : CIdentifierErrors(id)) {
    errors.push_back(InvalidString(path, id, msg));
  }
}

void ValidateStringValue(std::string_view value, const FieldPath& path,
                         ErrorList& errors) {
  if (Size(value.size()) > kDeviceAttributeMaxValueLength) {
    errors.push_back(TooLong(path, kDeviceAttributeMaxValueLength));
  }
}

void ValidateVersionValue(std::string_view value, const FieldPath& path,
                          ErrorList& errors) {
  if (!SemVer::IsStrict(value)) {
    errors.push_back(InvalidString(path, value, std::string(kNotSemVer)));
  }
  ValidateStringValue(value, path, errors);
}

template <typename T>
void RequireNonEmptyList(const std::optional<std::vector<T>>& list,
                         const FieldPath& path, ErrorList& errors) {
  if (list.has_value() && list->empty()) {
    errors.push_back(Invalid(path, "[]", "must not be empty if specified"));
  }
}

std::string SetFieldsText(const DeviceAttribute& a) {
  std::vector<std::string_view> set;
  if (a.int_value) set.push_back("int");
  if (a.bool_value) set.push_back("bool");
  if (a.string_value) set.push_back("string");
  if (a.version_value) set.push_back("version");
  if (a.ints) set.push_back("ints");
  if (a.bools) set.push_back("bools");
  if (a.strings) set.push_back("strings");
  if (a.versions) set.push_back("versions");
  return fmt::format("{{{}}}", fmt::join(set, ", "));
}

// Integer value used by upstream for uniqueness and step arithmetic
// (Quantity.Value(): rounded up).
int64_t IntValue(const Quantity& q) { return q.Value(); }

void ValidateValidValues(const Quantity& default_value,
                         const Quantity& capacity,
                         const std::vector<Quantity>& values,
                         const FieldPath& path, ErrorList& errors) {
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    if (values[i].Compare(values[i + 1]) > 0) {
      errors.push_back(Invalid(path.Index(Size(i + 1)),
                               values[i + 1].ToString(),
                               "values must be sorted in ascending order"));
    }
  }
  bool found_default = false;
  if (Size(values.size()) > kCapacityRequestPolicyValidValuesMaxSize) {
    errors.push_back(TooMany(path, Size(values.size()),
                             kCapacityRequestPolicyValidValuesMaxSize));
  } else {
    std::set<int64_t> seen;
    for (size_t i = 0; i < values.size(); ++i) {
      FieldPath item = path.Index(Size(i));
      if (values[i].Compare(capacity) > 0) {
        errors.push_back(
            Invalid(item, values[i].ToString(),
                    fmt::format("option is larger than capacity value: {}",
                                capacity.ToString())));
      }
      if (values[i].Compare(default_value) == 0) found_default = true;
      int64_t key = IntValue(values[i]);
      if (!seen.insert(key).second) {
        errors.push_back(Duplicate(item, QuoteValue(std::to_string(key))));
      }
    }
  }
  if (!found_default) {
    errors.push_back(
        Invalid(path, default_value.ToString(),
                "default value is not valid according to the requestPolicy"));
  }
}

// Upstream rejects bounds outside [0, MaxInt64] before integer arithmetic.
bool CheckInt64Range(const Quantity& q, const FieldPath& path,
                     ErrorList& errors) {
  if (q.Sign() < 0) {
    errors.push_back(
        Invalid(path, q.ToString(), "must be greater than or equal to 0"));
    return false;
  }
  if (q.Compare(Quantity::FromInt64(std::numeric_limits<int64_t>::max())) > 0) {
    errors.push_back(Invalid(path, q.ToString(),
                             "must not be larger than 9223372036854775807"));
    return false;
  }
  return true;
}

void ValidateStep(const Quantity& value, const Quantity& min,
                  const Quantity& step, const FieldPath& path,
                  ErrorList& errors) {
  int64_t step_value = IntValue(step);
  if (step_value == 0) return;  // Guarded by the caller; never divide by zero.
  if ((IntValue(value) - IntValue(min)) % step_value != 0) {
    errors.push_back(Invalid(
        path, value.ToString(),
        fmt::format("value is not a multiple of a given step ({}) from ({})",
                    step.ToString(), min.ToString())));
  }
}

void ValidateValidRange(const Quantity& default_value, const Quantity& capacity,
                        const CapacityRequestPolicyRange& range,
                        const FieldPath& path, ErrorList& errors) {
  if (!range.min.has_value()) {
    errors.push_back(
        Required(path.Child("min"), "required when validRange is defined"));
    return;
  }
  const Quantity& min = *range.min;
  FieldPath min_path = path.Child("min");
  FieldPath max_path = path.Child("max");
  FieldPath step_path = path.Child("step");
  FieldPath default_path = path.Child("default");
  if (min.Compare(capacity) > 0) {
    errors.push_back(
        Invalid(min_path, min.ToString(),
                fmt::format("min is larger than capacity value: {}",
                            capacity.ToString())));
  }
  if (default_value.Compare(min) < 0) {
    errors.push_back(
        Invalid(default_path, default_value.ToString(),
                fmt::format("default is less than min: {}", min.ToString())));
  }
  if (range.max.has_value()) {
    const Quantity& max = *range.max;
    if (min.Compare(max) > 0) {
      errors.push_back(
          Invalid(max_path, min.ToString(),
                  fmt::format("min is larger than max: {}", max.ToString())));
    }
    if (max.Compare(capacity) > 0) {
      errors.push_back(
          Invalid(max_path, max.ToString(),
                  fmt::format("max is larger than capacity value: {}",
                              capacity.ToString())));
    }
    if (default_value.Compare(max) > 0) {
      errors.push_back(
          Invalid(default_path, default_value.ToString(),
                  fmt::format("default is more than max: {}", max.ToString())));
    }
  }
  if (!range.step.has_value()) return;
  const Quantity& step = *range.step;
  if (step.Sign() <= 0) {
    errors.push_back(
        Invalid(step_path, step.ToString(), "must be greater than zero"));
    return;
  }
  StatusOr<Quantity> one_step = min.Add(step);
  if (one_step.ok() && one_step->Compare(capacity) > 0) {
    errors.push_back(
        Invalid(step_path, step.ToString(),
                fmt::format("one step {} is larger than capacity value: {}",
                            one_step->ToString(), capacity.ToString())));
  }
  bool safe = CheckInt64Range(default_value, default_path, errors);
  safe = CheckInt64Range(min, min_path, errors) && safe;
  if (range.max.has_value())
    safe = CheckInt64Range(*range.max, max_path, errors) && safe;
  safe = CheckInt64Range(step, step_path, errors) && safe;
  if (!safe) return;
  ValidateStep(default_value, min, step, step_path, errors);
  if (range.max.has_value())
    ValidateStep(*range.max, min, step, step_path, errors);
}

void ValidateRequestPolicy(const Quantity& capacity,
                           const CapacityRequestPolicy& policy,
                           const FieldPath& path, ErrorList& errors) {
  if (!policy.valid_values.empty() && policy.valid_range.has_value()) {
    errors.push_back(
        Forbidden(path,
                  "exactly one policy can be specified, cannot specify "
                  "\"validValues\" and \"validRange\" at the same time"));
    return;
  }
  FieldPath default_path = path.Child("default");
  if (!policy.valid_values.empty()) {
    if (!policy.default_.has_value()) {
      errors.push_back(
          Required(default_path, "required when validValues is defined"));
    } else {
      ValidateValidValues(*policy.default_, capacity, policy.valid_values,
                          path.Child("validValues"), errors);
    }
  } else if (policy.valid_range.has_value()) {
    if (!policy.default_.has_value()) {
      errors.push_back(
          Required(default_path, "required when validRange is defined"));
    } else {
      ValidateValidRange(*policy.default_, capacity, *policy.valid_range,
                         path.Child("validRange"), errors);
    }
  }
}

void ValidateSelector(const DeviceSelector& selector, const FieldPath& path,
                      ErrorList& errors) {
  FieldPath cel_path = path.Child("cel");
  if (!selector.cel.has_value()) {
    errors.push_back(Required(cel_path));
    return;
  }
  FieldPath expression_path = cel_path.Child("expression");
  const std::string& expression = selector.cel->expression;
  if (expression.empty()) {
    errors.push_back(Required(expression_path));
  } else if (Size(expression.size()) > kCELSelectorExpressionMaxLength) {
    errors.push_back(TooLong(expression_path, kCELSelectorExpressionMaxLength));
  } else {
    ReportExpressionCheck(cel::CheckSelectorExpression(expression), expression,
                          expression_path, errors);
  }
}

void ValidateDeviceToleration(const DeviceToleration& toleration,
                              const FieldPath& path, ErrorList& errors) {
  if (!toleration.key.empty())
    ValidateQualifiedName(toleration.key, path.Child("key"), errors);
  FieldPath value_path = path.Child("value");
  if (toleration.operator_ == "Exists") {
    if (!toleration.value.empty()) {
      errors.push_back(InvalidString(value_path, toleration.value,
                                     "must be empty for operator `Exists`"));
    }
  } else if (toleration.operator_ == "Equal" || toleration.operator_.empty()) {
    // An empty operator is defaulted to Equal by the apiserver.
    ValidateLabelValue(toleration.value, value_path, errors);
  } else {
    errors.push_back(NotSupported(path.Child("operator"), toleration.operator_,
                                  {"Equal", "Exists"}));
  }
  if (!toleration.effect.empty() && toleration.effect != "NoSchedule" &&
      toleration.effect != "NoExecute" && toleration.effect != "None") {
    errors.push_back(NotSupported(path.Child("effect"), toleration.effect,
                                  {"NoExecute", "NoSchedule", "None"}));
  }
}

}  // namespace

void ReportExpressionCheck(const cel::ExpressionCheck& check,
                           std::string_view expression, const FieldPath& path,
                           ErrorList& errors) {
  if (!check.compile_error.ok()) {
    errors.push_back(
        InvalidString(path, expression,
                      "compilation failed: " + check.compile_error.message()));
  } else if (check.too_complex) {
    errors.push_back(Forbidden(path, "too complex, exceeds cost limit"));
  }
}

void ValidateDriverName(std::string_view driver, const FieldPath& path,
                        ErrorList& errors) {
  if (driver.empty()) errors.push_back(Required(path));
  if (Size(driver.size()) > kDriverNameMaxLength) {
    errors.push_back(TooLong(path, kDriverNameMaxLength));
  }
  // Upstream (CSI driver name rules) checks the lower-cased name.
  for (const std::string& msg : Dns1123SubdomainErrors(ToLower(driver))) {
    errors.push_back(InvalidString(path, driver, msg));
  }
}

void ValidatePoolName(std::string_view pool, const FieldPath& path,
                      ErrorList& errors) {
  if (pool.empty()) {
    errors.push_back(Required(path));
    return;
  }
  if (Size(pool.size()) > kPoolNameMaxLength)
    errors.push_back(TooLong(path, kPoolNameMaxLength));
  size_t start = 0;
  while (true) {
    size_t slash = pool.find('/', start);
    std::string_view part = pool.substr(start, slash == std::string_view::npos
                                                   ? std::string_view::npos
                                                   : slash - start);
    ValidateDns1123Subdomain(part, path, errors);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
}

void ValidateDeviceName(std::string_view name, const FieldPath& path,
                        ErrorList& errors) {
  ValidateDns1123Label(name, path, errors);
}

void ValidateQualifiedAttributeName(std::string_view name,
                                    const FieldPath& path, ErrorList& errors) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) {
    ValidateCIdentifier(name, path, errors);
    return;
  }
  if (name.find('/', slash + 1) != std::string_view::npos) {
    errors.push_back(
        InvalidString(path, name, "must not contain more than one slash"));
    return;
  }
  std::string_view domain = name.substr(0, slash);
  std::string_view id = name.substr(slash + 1);
  if (domain.empty()) {
    errors.push_back(InvalidString(path, "", "the domain must not be empty"));
  } else {
    ValidateDriverName(domain, path, errors);
  }
  if (id.empty()) {
    errors.push_back(InvalidString(path, "", "the name must not be empty"));
  } else {
    ValidateCIdentifier(id, path, errors);
  }
}

void ValidateFullyQualifiedName(std::string_view name, const FieldPath& path,
                                ErrorList& errors) {
  ValidateQualifiedAttributeName(name, path, errors);
  if (name.find('/') == std::string_view::npos) {
    errors.push_back(InvalidString(path, name,
                                   "a fully qualified name must be a domain "
                                   "and a name separated by a slash"));
  }
}

void ValidateSelectors(const std::vector<DeviceSelector>& selectors,
                       const FieldPath& path, ErrorList& errors) {
  if (Size(selectors.size()) > kDeviceSelectorsMaxSize) {
    errors.push_back(
        TooMany(path, Size(selectors.size()), kDeviceSelectorsMaxSize));
    return;
  }
  for (size_t i = 0; i < selectors.size(); ++i) {
    ValidateSelector(selectors[i], path.Index(Size(i)), errors);
  }
}

void ValidateRawJsonObject(const RawJson& raw, int64_t max_length,
                           const FieldPath& path, ErrorList& errors) {
  const std::string& text = raw.json;
  if (text.empty()) {
    errors.push_back(Required(path));
    return;
  }
  if (Size(text.size()) > max_length) {
    errors.push_back(TooLong(path, max_length));
    return;
  }
  if (!nlohmann::json::accept(text)) {
    errors.push_back(Invalid(path, QuoteValue("<value omitted>"),
                             "error parsing data as JSON: invalid JSON"));
    return;
  }
  size_t first = text.find_first_not_of(" \t\r\n");
  char c = first == std::string::npos ? '\0' : text[first];
  if (c == 'n') {
    errors.push_back(Required(path));
  } else if (c != '{') {
    errors.push_back(Invalid(path, QuoteValue("<value omitted>"),
                             "must be a valid JSON object"));
  }
}

void ValidateOpaqueConfiguration(
    const std::optional<OpaqueDeviceConfiguration>& opaque,
    const FieldPath& path, ErrorList& errors) {
  FieldPath opaque_path = path.Child("opaque");
  if (!opaque.has_value()) {
    errors.push_back(Required(opaque_path));
    return;
  }
  ValidateDriverName(opaque->driver, opaque_path.Child("driver"), errors);
  ValidateRawJsonObject(opaque->parameters, kOpaqueParametersMaxLength,
                        opaque_path.Child("parameters"), errors);
}

void ValidateDeviceTolerations(const std::vector<DeviceToleration>& tolerations,
                               const FieldPath& path, ErrorList& errors) {
  if (Size(tolerations.size()) > kDeviceTolerationsMaxLength) {
    errors.push_back(
        TooMany(path, Size(tolerations.size()), kDeviceTolerationsMaxLength));
    return;
  }
  for (size_t i = 0; i < tolerations.size(); ++i) {
    ValidateDeviceToleration(tolerations[i], path.Index(Size(i)), errors);
  }
}

void ValidateDeviceTaint(const DeviceTaint& taint, const FieldPath& path,
                         ErrorList& errors) {
  ValidateQualifiedName(taint.key, path.Child("key"), errors);
  if (!taint.value.empty())
    ValidateLabelValue(taint.value, path.Child("value"), errors);
  FieldPath effect_path = path.Child("effect");
  if (taint.effect.empty()) {
    errors.push_back(Required(effect_path));
  } else if (taint.effect != "NoSchedule" && taint.effect != "NoExecute" &&
             taint.effect != "None") {
    errors.push_back(NotSupported(effect_path, taint.effect,
                                  {"NoExecute", "NoSchedule", "None"}));
  }
  if (taint.time_added.has_value()) {
    ValidateTime(*taint.time_added, path.Child("timeAdded"), errors);
  }
}

void ValidateDeviceAttribute(const DeviceAttribute& attribute,
                             const FieldPath& path, ErrorList& errors) {
  int fields = 0;
  if (attribute.bool_value.has_value()) ++fields;
  if (attribute.int_value.has_value()) ++fields;
  if (attribute.string_value.has_value()) {
    ++fields;
    ValidateStringValue(*attribute.string_value, path.Child("string"), errors);
  }
  if (attribute.version_value.has_value()) {
    ++fields;
    ValidateVersionValue(*attribute.version_value, path.Child("version"),
                         errors);
  }
  if (attribute.bools.has_value()) {
    ++fields;
    RequireNonEmptyList(attribute.bools, path.Child("bools"), errors);
  }
  if (attribute.ints.has_value()) {
    ++fields;
    RequireNonEmptyList(attribute.ints, path.Child("ints"), errors);
  }
  if (attribute.strings.has_value()) {
    ++fields;
    FieldPath list_path = path.Child("strings");
    RequireNonEmptyList(attribute.strings, list_path, errors);
    for (size_t i = 0; i < attribute.strings->size(); ++i) {
      ValidateStringValue((*attribute.strings)[i], list_path.Index(Size(i)),
                          errors);
    }
  }
  if (attribute.versions.has_value()) {
    ++fields;
    FieldPath list_path = path.Child("versions");
    RequireNonEmptyList(attribute.versions, list_path, errors);
    for (size_t i = 0; i < attribute.versions->size(); ++i) {
      ValidateVersionValue((*attribute.versions)[i], list_path.Index(Size(i)),
                           errors);
    }
  }
  if (fields == 0) {
    errors.push_back(
        InvalidString(path, "", "exactly one value must be specified"));
  } else if (fields > 1) {
    errors.push_back(Invalid(path, SetFieldsText(attribute),
                             "exactly one value must be specified"));
  }
}

void ValidateDeviceCapacity(const DeviceCapacity& capacity,
                            bool allow_multiple_allocations,
                            const FieldPath& path, ErrorList& errors) {
  if (!capacity.request_policy.has_value()) return;
  FieldPath policy_path = path.Child("requestPolicy");
  if (!allow_multiple_allocations) {
    errors.push_back(
        Forbidden(policy_path, "allowMultipleAllocations must be true"));
    return;
  }
  ValidateRequestPolicy(capacity.value, *capacity.request_policy, policy_path,
                        errors);
}

void ValidateDeviceBindingConditions(
    const std::vector<std::string>& binding_conditions,
    const std::vector<std::string>& binding_failure_conditions,
    const FieldPath& path, ErrorList& errors) {
  FieldPath conditions_path = path.Child("bindingConditions");
  FieldPath failure_path = path.Child("bindingFailureConditions");
  if (Size(binding_conditions.size()) > kBindingConditionsMaxSize) {
    errors.push_back(TooMany(conditions_path, Size(binding_conditions.size()),
                             kBindingConditionsMaxSize));
  } else {
    for (size_t i = 0; i < binding_conditions.size(); ++i) {
      ValidateQualifiedName(binding_conditions[i],
                            conditions_path.Index(Size(i)), errors);
    }
  }
  if (Size(binding_failure_conditions.size()) >
      kBindingFailureConditionsMaxSize) {
    errors.push_back(TooMany(failure_path,
                             Size(binding_failure_conditions.size()),
                             kBindingFailureConditionsMaxSize));
  } else {
    for (size_t i = 0; i < binding_failure_conditions.size(); ++i) {
      ValidateQualifiedName(binding_failure_conditions[i],
                            failure_path.Index(Size(i)), errors);
    }
  }
  std::set<std::string_view> conditions;
  for (size_t i = 0; i < binding_conditions.size(); ++i) {
    if (!conditions.insert(binding_conditions[i]).second) {
      errors.push_back(Duplicate(conditions_path.Index(Size(i)),
                                 QuoteValue(binding_conditions[i])));
    }
  }
  std::set<std::string_view> failures;
  for (size_t i = 0; i < binding_failure_conditions.size(); ++i) {
    const std::string& condition = binding_failure_conditions[i];
    FieldPath item = failure_path.Index(Size(i));
    if (!failures.insert(condition).second) {
      errors.push_back(Duplicate(item, QuoteValue(condition)));
    }
    if (conditions.contains(condition)) {
      errors.push_back(InvalidString(
          item, condition,
          "bindingFailureConditions must not overlap with bindingConditions"));
    }
  }
  if (binding_conditions.empty() && !binding_failure_conditions.empty()) {
    errors.push_back(Invalid(
        conditions_path, "[]string(nil)",
        "bindingConditions are required to use bindingFailureConditions"));
  }
  if (binding_failure_conditions.empty() && !binding_conditions.empty()) {
    errors.push_back(Invalid(
        failure_path, "[]string(nil)",
        "bindingFailureConditions are required to use bindingConditions"));
  }
}

void ValidateCapacityMap(const std::map<std::string, Quantity>& capacities,
                         const FieldPath& path, ErrorList& errors) {
  for (const auto& [name, quantity] : capacities) {
    ValidateQualifiedAttributeName(name, path, errors);
    if (quantity.Sign() < 0) {
      const std::string key =
          TruncateKeyIfTooLong(name, kAttributeAndCapacityMaxKeyLength);
      errors.push_back(InvalidString(path.Key(key), quantity.ToString(),
                                     "must be greater than or equal to 0"));
    }
  }
}

}  // namespace dralloc::api
