// Validation rules shared by the resource.k8s.io validators (device
// selectors, configuration, tolerations, attribute names, driver names).
#ifndef DRALLOC_API_VALIDATION_DEVICE_RULES_H_
#define DRALLOC_API_VALIDATION_DEVICE_RULES_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "api/field_error.h"
#include "api/field_path.h"
#include "api/types/device_types.h"
#include "api/validation/limits.h"
#include "cel/dra/dra_environment.h"
#include "common/quantity.h"

namespace dralloc::api {

// A list of at most `max_size` items: each checked by
// validate(item, item_path), and a Duplicate error for every item whose
// key(item) repeats an earlier one. A longer list gets one TooMany error and
// no other check.
template <typename T, typename Validate, typename Key>
void ValidateKeyedList(const std::vector<T>& items, int64_t max_size,
                       const FieldPath& path, ErrorList& errors,
                       Validate validate, Key key) {
  if (static_cast<int64_t>(items.size()) > max_size) {
    errors.push_back(
        TooMany(path, static_cast<int64_t>(items.size()), max_size));
    return;
  }
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    const FieldPath item_path = path.Index(static_cast<int64_t>(i));
    validate(items[i], item_path);
    const std::string_view item_key = key(items[i]);
    if (!seen.insert(item_key).second) {
      errors.push_back(Duplicate(item_path, QuoteValue(item_key)));
    }
  }
}

// Driver names: DNS subdomain, ≤ 63 characters (CSI driver name rules).
void ValidateDriverName(std::string_view driver, const FieldPath& path,
                        ErrorList& errors);
// Pool names: ≤ 253, one or more DNS subdomains separated by '/'.
void ValidatePoolName(std::string_view pool, const FieldPath& path,
                      ErrorList& errors);
// Device names, request names, counter names: DNS labels.
void ValidateDeviceName(std::string_view name, const FieldPath& path,
                        ErrorList& errors);

// QualifiedName of an attribute or capacity: C identifier ≤ 32, optionally
// prefixed by "<DNS subdomain ≤ 63>/".
void ValidateQualifiedAttributeName(std::string_view name,
                                    const FieldPath& path, ErrorList& errors);
// FullyQualifiedName (matchAttribute, distinctAttribute, patch keys): the
// domain prefix is required.
void ValidateFullyQualifiedName(std::string_view name, const FieldPath& path,
                                ErrorList& errors);

// A list of selectors (≤ 32): each needs `cel` with a non-empty expression
// ≤ 10 KiB. (Compiling the CEL is wired in by the CEL engine.)
// Reports a CEL compile error (Invalid, "compilation failed: ...") or an
// estimated cost over the limit (Forbidden) at `path`.
void ReportExpressionCheck(const cel::ExpressionCheck& check,
                           std::string_view expression, const FieldPath& path,
                           ErrorList& errors);

void ValidateSelectors(const std::vector<DeviceSelector>& selectors,
                       const FieldPath& path, ErrorList& errors);
// `opaque` required; driver name; parameters a JSON object ≤ 10 KiB.
void ValidateOpaqueConfiguration(
    const std::optional<OpaqueDeviceConfiguration>& opaque,
    const FieldPath& path, ErrorList& errors);
// A list of device tolerations (≤ 16): key (label name), operator
// Exists/Equal, value rules, effect None/NoSchedule/NoExecute.
void ValidateDeviceTolerations(const std::vector<DeviceToleration>& tolerations,
                               const FieldPath& path, ErrorList& errors);
// One device taint: key, value, effect.
void ValidateDeviceTaint(const DeviceTaint& taint, const FieldPath& path,
                         ErrorList& errors);
// One typed attribute: exactly one value field; string/version ≤ 64;
// versions are strict semver 2.0.0.
void ValidateDeviceAttribute(const DeviceAttribute& attribute,
                             const FieldPath& path, ErrorList& errors);
// One capacity: requestPolicy rules (only if `allow_multiple_allocations`).
void ValidateDeviceCapacity(const DeviceCapacity& capacity,
                            bool allow_multiple_allocations,
                            const FieldPath& path, ErrorList& errors);

// --- Additions ---

// Longest "<domain>/<id>" attribute or capacity name; longer map keys are
// shortened in field paths (see TruncateKeyIfTooLong in names.h).
inline constexpr int64_t kAttributeAndCapacityMaxKeyLength =
    kDeviceMaxDomainLength + 1 + kDeviceMaxIDLength;

// A map of capacity name -> quantity (capacity.requests, consumedCapacity):
// keys are qualified capacity names, reported at the map path as upstream's
// validateMap does; values must not be negative.
void ValidateCapacityMap(const std::map<std::string, Quantity>& capacities,
                         const FieldPath& path, ErrorList& errors);

// Raw JSON (opaque parameters, device status data): required, at most
// `max_length` bytes, a JSON object.
void ValidateRawJsonObject(const RawJson& raw, int64_t max_length,
                           const FieldPath& path, ErrorList& errors);
// bindingConditions / bindingFailureConditions of a device or an allocation
// result (`path` is the parent): ≤ 4 qualified names each, no duplicates, no
// overlap, and each list requires the other.
void ValidateDeviceBindingConditions(
    const std::vector<std::string>& binding_conditions,
    const std::vector<std::string>& binding_failure_conditions,
    const FieldPath& path, ErrorList& errors);

}  // namespace dralloc::api

#endif  // DRALLOC_API_VALIDATION_DEVICE_RULES_H_
