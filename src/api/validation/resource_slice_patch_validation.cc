// ValidateResourceSlicePatch: resource.k8s.io/v1alpha3 ResourceSlicePatch
// (KEP-5027, admin-controlled device attributes). Upstream has no released
// validation code for this kind; the rules follow the ResourceSlice device
// rules they mirror:
// - spec.devices.filter (optional): deviceClassName a DNS subdomain, driver,
//   pool and device names, selectors like a DeviceClass's.
// - attribute and capacity names are fully qualified (domain required),
//   reported at the map like upstream map keys.
// - each attribute sets exactly one value field, `null` included.
// - capacities may not carry a requestPolicy (patches cannot set
//   allowMultipleAllocations).
// - at most 32 attributes and capacities combined.
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "api/validation/device_rules.h"
#include "api/validation/limits.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace dralloc::api {
namespace {

void ValidateFilter(const DevicePatchFilter& filter, const FieldPath& path,
                    ErrorList& errors) {
  if (filter.device_class_name.has_value()) {
    ValidateDns1123Subdomain(*filter.device_class_name,
                             path.Child("deviceClassName"), errors);
  }
  if (filter.driver.has_value())
    ValidateDriverName(*filter.driver, path.Child("driver"), errors);
  if (filter.pool.has_value())
    ValidatePoolName(*filter.pool, path.Child("pool"), errors);
  if (filter.device.has_value())
    ValidateDeviceName(*filter.device, path.Child("device"), errors);
  ValidateSelectors(filter.selectors, path.Child("selectors"), errors);
}

void ValidateNullableAttribute(const NullableDeviceAttribute& attribute,
                               const FieldPath& path, ErrorList& errors) {
  if (attribute.null_value.has_value()) {
    const bool other = attribute.int_value || attribute.bool_value ||
                       attribute.string_value || attribute.version_value ||
                       attribute.ints || attribute.bools || attribute.strings ||
                       attribute.versions;
    if (other) {
      errors.push_back(
          InvalidString(path, "null", "exactly one value must be specified"));
    }
    return;
  }
  DeviceAttribute value;
  value.int_value = attribute.int_value;
  value.bool_value = attribute.bool_value;
  value.string_value = attribute.string_value;
  value.version_value = attribute.version_value;
  value.ints = attribute.ints;
  value.bools = attribute.bools;
  value.strings = attribute.strings;
  value.versions = attribute.versions;
  ValidateDeviceAttribute(value, path, errors);
}

}  // namespace

ErrorList ValidateResourceSlicePatch(const ResourceSlicePatch& patch) {
  ErrorList errors = ObjectMetaErrors(patch.metadata, /*namespaced=*/false);

  FieldPath spec_path("spec");
  FieldPath path = spec_path.Child("devices");
  const DevicePatch& devices = patch.spec.devices;
  if (devices.filter.has_value())
    ValidateFilter(*devices.filter, path.Child("filter"), errors);

  const int64_t total =
      static_cast<int64_t>(devices.attributes.size() + devices.capacity.size());
  if (total > kResourceSliceMaxAttributesAndCapacitiesPerDevice) {
    errors.push_back(Invalid(
        path, std::to_string(total),
        fmt::format("the total number of attributes and capacities must not "
                    "exceed {}",
                    kResourceSliceMaxAttributesAndCapacitiesPerDevice)));
  }

  FieldPath attributes_path = path.Child("attributes");
  for (const auto& [name, attribute] : devices.attributes) {
    ValidateFullyQualifiedName(name, attributes_path, errors);
    std::string key =
        TruncateKeyIfTooLong(name, kAttributeAndCapacityMaxKeyLength);
    ValidateNullableAttribute(attribute, attributes_path.Key(key), errors);
  }
  FieldPath capacity_path = path.Child("capacity");
  for (const auto& [name, capacity] : devices.capacity) {
    ValidateFullyQualifiedName(name, capacity_path, errors);
    std::string key =
        TruncateKeyIfTooLong(name, kAttributeAndCapacityMaxKeyLength);
    ValidateDeviceCapacity(capacity, /*allow_multiple_allocations=*/false,
                           capacity_path.Key(key), errors);
  }
  return errors;
}

}  // namespace dralloc::api
