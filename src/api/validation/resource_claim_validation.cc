// Validation of ResourceClaim and ResourceClaimTemplate (resource.k8s.io/v1),
// following upstream pkg/apis/resource/validation. Unlike upstream, which
// validates the status only on status updates, ValidateResourceClaim checks
// spec and status of the object as a whole.

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/field_error.h"
#include "api/field_path.h"
#include "api/types/resource_claim.h"
#include "api/validation/device_rules.h"
#include "api/validation/limits.h"
#include "api/validation/names.h"
#include "api/validation/request_names.h"
#include "api/validation/resource_claim_status_validation.h"
#include "api/validation/validation.h"

namespace dralloc::api {
namespace {

constexpr std::string_view kAllocationModeAll = "All";
constexpr std::string_view kAllocationModeExactCount = "ExactCount";

// ---------------------------------------------------------------------------
// spec.devices.requests

void ValidateDeviceClassName(std::string_view name, const FieldPath& path,
                             ErrorList& errors) {
  if (name.empty()) {
    errors.push_back(Required(path));
    return;
  }
  ValidateDns1123Subdomain(name, path, errors);
}

// allocationMode "" is defaulted to ExactCount; count 0 means unset (defaulted
// to 1 for ExactCount).
void ValidateAllocationMode(std::string_view mode, int64_t count,
                            const FieldPath& mode_path,
                            const FieldPath& count_path, ErrorList& errors) {
  if (mode == kAllocationModeAll) {
    if (count != 0) {
      errors.push_back(Invalid(count_path, std::to_string(count),
                               "must not be specified when allocationMode is "
                               "'All'"));
    }
  } else if (mode.empty() || mode == kAllocationModeExactCount) {
    if (count < 0) {
      errors.push_back(Invalid(count_path, std::to_string(count),
                               "must be greater than zero"));
    }
  } else {
    errors.push_back(NotSupported(
        mode_path, mode, {kAllocationModeAll, kAllocationModeExactCount}));
  }
}

// capacity (optional): its requests map.
void ValidateCapacityRequirements(
    const std::optional<CapacityRequirements>& capacity, const FieldPath& path,
    ErrorList& errors) {
  if (!capacity.has_value()) return;
  ValidateCapacityMap(capacity->requests, path.Child("requests"), errors);
}

// derivedAttributes (KEP-6080): at most 8, names unique and shaped like
// attribute names, expressions compiled as API validation compiles
// selectors, with a result type a derived attribute can have.
void ValidateDerivedAttribute(const DerivedAttribute& attribute,
                              const FieldPath& path, ErrorList& errors) {
  const FieldPath name_path = path.Child("name");
  if (attribute.name.empty()) {
    errors.push_back(Required(name_path));
  } else {
    ValidateQualifiedAttributeName(attribute.name, name_path, errors);
  }
  const FieldPath expression_path = path.Child("expression");
  const std::string& expression = attribute.expression;
  if (expression.empty()) {
    errors.push_back(Required(expression_path));
  } else if (static_cast<int64_t>(expression.size()) >
             kCELSelectorExpressionMaxLength) {
    errors.push_back(TooLong(expression_path, kCELSelectorExpressionMaxLength));
  } else {
    ReportExpressionCheck(cel::CheckDerivedAttributeExpression(expression),
                          expression, expression_path, errors);
  }
}

void ValidateDerivedAttributes(const std::vector<DerivedAttribute>& attributes,
                               const FieldPath& path, ErrorList& errors) {
  ValidateKeyedList(
      attributes, kDerivedAttributesMaxSize, path, errors,
      [&](const DerivedAttribute& attribute, const FieldPath& item_path) {
        ValidateDerivedAttribute(attribute, item_path, errors);
      },
      [](const DerivedAttribute& attribute) -> std::string_view {
        return attribute.name;
      });
}

void ValidateExactRequest(const ExactDeviceRequest& request,
                          const FieldPath& path, ErrorList& errors) {
  ValidateDeviceClassName(request.device_class_name,
                          path.Child("deviceClassName"), errors);
  ValidateSelectors(request.selectors, path.Child("selectors"), errors);
  ValidateAllocationMode(request.allocation_mode, request.count,
                         path.Child("allocationMode"), path.Child("count"),
                         errors);
  ValidateDeviceTolerations(request.tolerations, path.Child("tolerations"),
                            errors);
  ValidateCapacityRequirements(request.capacity, path.Child("capacity"),
                               errors);
  ValidateDerivedAttributes(request.derived_attributes,
                            path.Child("derivedAttributes"), errors);
}

void ValidateSubRequest(const DeviceSubRequest& sub, const FieldPath& path,
                        ErrorList& errors) {
  ValidateRequiredLabel(sub.name, path.Child("name"), errors);
  ValidateDeviceClassName(sub.device_class_name, path.Child("deviceClassName"),
                          errors);
  ValidateSelectors(sub.selectors, path.Child("selectors"), errors);
  ValidateAllocationMode(sub.allocation_mode, sub.count,
                         path.Child("allocationMode"), path.Child("count"),
                         errors);
  ValidateDeviceTolerations(sub.tolerations, path.Child("tolerations"), errors);
  ValidateCapacityRequirements(sub.capacity, path.Child("capacity"), errors);
}

void ValidateFirstAvailable(const std::vector<DeviceSubRequest>& subs,
                            const FieldPath& path, ErrorList& errors) {
  ValidateKeyedList(
      subs, kFirstAvailableDeviceRequestMaxSize, path, errors,
      [&](const DeviceSubRequest& sub, const FieldPath& sub_path) {
        ValidateSubRequest(sub, sub_path, errors);
      },
      [](const DeviceSubRequest& sub) -> std::string_view { return sub.name; });
}

void ValidateDeviceRequest(const DeviceRequest& request, const FieldPath& path,
                           ErrorList& errors) {
  ValidateRequiredLabel(request.name, path.Child("name"), errors);
  const bool has_exactly = request.exactly.has_value();
  const bool has_first_available = !request.first_available.empty();
  if (has_exactly && has_first_available) {
    errors.push_back(Invalid(path, "null",
                             "exactly one of `exactly` or `firstAvailable` is "
                             "required, but multiple fields are set"));
  } else if (has_exactly) {
    ValidateExactRequest(*request.exactly, path.Child("exactly"), errors);
  } else if (has_first_available) {
    ValidateFirstAvailable(request.first_available,
                           path.Child("firstAvailable"), errors);
  } else {
    errors.push_back(Required(
        path, "exactly one of `exactly` or `firstAvailable` is required"));
  }
}

void ValidateDeviceRequests(const std::vector<DeviceRequest>& requests,
                            const FieldPath& path, ErrorList& errors) {
  ValidateKeyedList(
      requests, kDeviceRequestsMaxSize, path, errors,
      [&](const DeviceRequest& request, const FieldPath& request_path) {
        ValidateDeviceRequest(request, request_path, errors);
      },
      [](const DeviceRequest& request) -> std::string_view {
        return request.name;
      });
}

// ---------------------------------------------------------------------------
// spec.devices.constraints and spec.devices.config

void ValidateCelConstraint(const CELDeviceConstraint& cel,
                           const FieldPath& path, ErrorList& errors) {
  const FieldPath expression_path = path.Child("expression");
  if (cel.expression.empty()) {
    errors.push_back(Required(expression_path));
  } else if (static_cast<int64_t>(cel.expression.size()) >
             kCELSelectorExpressionMaxLength) {
    errors.push_back(TooLong(expression_path, kCELSelectorExpressionMaxLength));
  } else {
    ReportExpressionCheck(cel::CheckConstraintExpression(cel.expression),
                          cel.expression, expression_path, errors);
  }
}

// The names of the claim's derived attributes (KEP-6080).
std::unordered_set<std::string_view> DerivedNames(
    const std::vector<DeviceRequest>& requests) {
  std::unordered_set<std::string_view> names;
  for (const DeviceRequest& request : requests) {
    if (!request.exactly) continue;
    for (const DerivedAttribute& a : request.exactly->derived_attributes) {
      names.insert(a.name);
    }
  }
  return names;
}

// matchAttribute/distinctAttribute: a fully qualified attribute name, or the
// name of one of the claim's derived attributes (which may be bare).
void ValidateConstraintAttribute(
    std::string_view name, const FieldPath& path,
    const std::unordered_set<std::string_view>& derived, ErrorList& errors) {
  if (derived.contains(name)) return;
  ValidateFullyQualifiedName(name, path, errors);
}

void ValidateConstraint(const DeviceConstraint& constraint,
                        const FieldPath& path, const RequestNames& names,
                        const std::unordered_set<std::string_view>& derived,
                        ErrorList& errors) {
  ValidateRequestRefs(constraint.requests, path.Child("requests"), names,
                      errors);
  std::vector<std::string_view> set_fields;
  if (constraint.match_attribute.has_value()) {
    set_fields.push_back("`matchAttribute`");
    ValidateConstraintAttribute(*constraint.match_attribute,
                                path.Child("matchAttribute"), derived, errors);
  }
  if (constraint.distinct_attribute.has_value()) {
    set_fields.push_back("`distinctAttribute`");
    ValidateConstraintAttribute(*constraint.distinct_attribute,
                                path.Child("distinctAttribute"), derived,
                                errors);
  }
  if (constraint.cel.has_value()) {
    set_fields.push_back("`cel`");
    ValidateCelConstraint(*constraint.cel, path.Child("cel"), errors);
  }
  constexpr std::string_view kOneOf =
      "exactly one of `matchAttribute`, `distinctAttribute` or `cel` is "
      "required";
  if (set_fields.empty()) {
    errors.push_back(Required(path, std::string(kOneOf)));
  } else if (set_fields.size() > 1) {
    std::string value = "{";
    for (size_t i = 0; i < set_fields.size(); ++i) {
      if (i > 0) value += ", ";
      value += set_fields[i];
    }
    value += "}";
    errors.push_back(InvalidString(
        path, value, std::string(kOneOf) + ", but multiple fields are set"));
  }
}

void ValidateConstraints(const std::vector<DeviceConstraint>& constraints,
                         const FieldPath& path, const RequestNames& names,
                         const std::unordered_set<std::string_view>& derived,
                         ErrorList& errors) {
  if (static_cast<int64_t>(constraints.size()) > kDeviceConstraintsMaxSize) {
    errors.push_back(TooMany(path, static_cast<int64_t>(constraints.size()),
                             kDeviceConstraintsMaxSize));
    return;
  }
  for (size_t i = 0; i < constraints.size(); ++i) {
    ValidateConstraint(constraints[i], path.Index(static_cast<int64_t>(i)),
                       names, derived, errors);
  }
}

void ValidateClaimConfigs(const std::vector<DeviceClaimConfiguration>& configs,
                          const FieldPath& path, const RequestNames& names,
                          ErrorList& errors) {
  if (static_cast<int64_t>(configs.size()) > kDeviceConfigMaxSize) {
    errors.push_back(TooMany(path, static_cast<int64_t>(configs.size()),
                             kDeviceConfigMaxSize));
    return;
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    const FieldPath config_path = path.Index(static_cast<int64_t>(i));
    ValidateRequestRefs(configs[i].requests, config_path.Child("requests"),
                        names, errors);
    ValidateOpaqueConfiguration(configs[i].opaque, config_path, errors);
  }
}

void ValidateClaimSpec(const ResourceClaimSpec& spec, const RequestNames& names,
                       const FieldPath& path, ErrorList& errors) {
  const FieldPath devices_path = path.Child("devices");
  ValidateDeviceRequests(spec.devices.requests, devices_path.Child("requests"),
                         errors);
  ValidateConstraints(spec.devices.constraints,
                      devices_path.Child("constraints"), names,
                      DerivedNames(spec.devices.requests), errors);
  ValidateClaimConfigs(spec.devices.config, devices_path.Child("config"), names,
                       errors);
}

}  // namespace

ErrorList ValidateResourceClaim(const ResourceClaim& claim) {
  ErrorList errors = ObjectMetaErrors(claim.metadata, /*namespaced=*/true);
  const RequestNames names(claim.spec.devices);
  ValidateClaimSpec(claim.spec, names, FieldPath("spec"), errors);
  ValidateClaimStatus(claim.status, names, FieldPath("status"), errors);
  return errors;
}

ErrorList ValidateResourceClaimTemplate(
    const ResourceClaimTemplate& claim_template) {
  ErrorList errors =
      ObjectMetaErrors(claim_template.metadata, /*namespaced=*/true);
  // Like upstream's ValidateTemplateObjectMeta: only labels and annotations
  // of the template's metadata matter; name and namespace are ignored.
  const FieldPath spec_path("spec");
  const FieldPath meta_path = spec_path.Child("metadata");
  ValidateLabels(claim_template.spec.metadata.labels, meta_path.Child("labels"),
                 errors);
  ValidateAnnotations(claim_template.spec.metadata.annotations,
                      meta_path.Child("annotations"), errors);
  const RequestNames names(claim_template.spec.spec.devices);
  ValidateClaimSpec(claim_template.spec.spec, names, spec_path.Child("spec"),
                    errors);
  return errors;
}

}  // namespace dralloc::api
