// ValidateDeviceClass: upstream pkg/apis/resource/validation semantics for
// resource.k8s.io/v1 DeviceClasses (create).
#include <cstdint>
#include <string>
#include <string_view>

#include "api/validation/device_rules.h"
#include "api/validation/limits.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace dralloc::api {
namespace {

// v1helper.IsExtendedResourceName: a qualified name with a domain outside
// kubernetes.io that also stays a qualified name behind the "requests."
// quota prefix.
bool IsExtendedResourceName(std::string_view name) {
  constexpr std::string_view kRequestsPrefix = "requests.";
  // Native resources: no domain, or in the kubernetes.io namespace.
  if (name.find('/') == std::string_view::npos ||
      name.find("kubernetes.io/") != std::string_view::npos) {
    return false;
  }
  if (name.starts_with(kRequestsPrefix)) return false;
  return QualifiedNameErrors(std::string(kRequestsPrefix) + std::string(name))
      .empty();
}

}  // namespace

ErrorList ValidateDeviceClass(const DeviceClass& device_class) {
  ErrorList errors =
      ObjectMetaErrors(device_class.metadata, /*namespaced=*/false);

  const DeviceClassSpec& spec = device_class.spec;
  FieldPath path("spec");
  ValidateSelectors(spec.selectors, path.Child("selectors"), errors);

  FieldPath config_path = path.Child("config");
  if (static_cast<int64_t>(spec.config.size()) > kDeviceConfigMaxSize) {
    errors.push_back(TooMany(config_path,
                             static_cast<int64_t>(spec.config.size()),
                             kDeviceConfigMaxSize));
  } else {
    for (size_t i = 0; i < spec.config.size(); ++i) {
      ValidateOpaqueConfiguration(spec.config[i].opaque,
                                  config_path.Index(static_cast<int64_t>(i)),
                                  errors);
    }
  }

  if (spec.extended_resource_name.has_value() &&
      !IsExtendedResourceName(*spec.extended_resource_name)) {
    errors.push_back(InvalidString(path.Child("extendedResourceName"),
                                   *spec.extended_resource_name,
                                   "must be a valid extended resource name"));
  }
  return errors;
}

}  // namespace dralloc::api
