// ValidateResourcePoolStatusRequest: upstream pkg/apis/resource/validation
// semantics for ResourcePoolStatusRequests (KEP-5677). The spec is checked
// on every write; a status, once set by the controller, is checked here for
// shape (the update rules, immutable spec and immutable complete status, are
// in the registry strategy).
#include <cstdint>
#include <string>

#include "api/validation/device_rules.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace dralloc::api {
namespace {

// status.pools and status.conditions limits (+k8s:maxItems) and the longest
// validationError (+k8s:maxBytes).
constexpr int64_t kMaxPools = 1000;
constexpr int64_t kMaxConditions = 10;
constexpr int64_t kMaxValidationErrorBytes = 256;

void ValidateSpec(const ResourcePoolStatusRequestSpec& spec,
                  const FieldPath& path, ErrorList& errors) {
  if (spec.driver.empty()) {
    errors.push_back(Required(path.Child("driver"), "driver name is required"));
  } else {
    ValidateDriverName(spec.driver, path.Child("driver"), errors);
  }
  if (spec.pool_name.has_value()) {
    if (spec.pool_name->empty()) {
      errors.push_back(InvalidString(path.Child("poolName"), "",
                                     "must not be empty when specified"));
    } else {
      ValidatePoolName(*spec.pool_name, path.Child("poolName"), errors);
    }
  }
  if (spec.limit.has_value()) {
    const std::string value = std::to_string(*spec.limit);
    if (*spec.limit < 1) {
      errors.push_back(
          Invalid(path.Child("limit"), value, "must be at least 1"));
    }
    if (*spec.limit > kResourcePoolStatusRequestLimitMax) {
      errors.push_back(
          Invalid(path.Child("limit"), value, "must not exceed 1000"));
    }
  }
  if (spec.default_partition_type_attribute.has_value()) {
    ValidateFullyQualifiedName(*spec.default_partition_type_attribute,
                               path.Child("defaultPartitionTypeAttribute"),
                               errors);
  }
}

void ValidateCount(const std::optional<int32_t>& count, const FieldPath& path,
                   ErrorList& errors) {
  if (count.has_value() && *count < 0) {
    errors.push_back(Invalid(path, std::to_string(*count),
                             "must be greater than or equal to 0"));
  }
}

void ValidatePool(const PoolStatus& pool, const FieldPath& path,
                  ErrorList& errors) {
  if (pool.driver.empty()) {
    errors.push_back(Required(path.Child("driver")));
  } else {
    ValidateDriverName(pool.driver, path.Child("driver"), errors);
  }
  if (pool.pool_name.empty()) {
    errors.push_back(Required(path.Child("poolName")));
  } else {
    ValidatePoolName(pool.pool_name, path.Child("poolName"), errors);
  }
  if (pool.generation < 0) {
    errors.push_back(Invalid(path.Child("generation"),
                             std::to_string(pool.generation),
                             "must be greater than or equal to 0"));
  }
  if (pool.node_name.has_value()) {
    ValidateDns1123Subdomain(*pool.node_name, path.Child("nodeName"), errors);
  }
  ValidateCount(pool.total_devices, path.Child("totalDevices"), errors);
  ValidateCount(pool.allocated_devices, path.Child("allocatedDevices"), errors);
  ValidateCount(pool.available_devices, path.Child("availableDevices"), errors);
  ValidateCount(pool.unavailable_devices, path.Child("unavailableDevices"),
                errors);
  if (pool.resource_slice_count.has_value() && *pool.resource_slice_count < 1) {
    errors.push_back(Invalid(path.Child("resourceSliceCount"),
                             std::to_string(*pool.resource_slice_count),
                             "must be greater than or equal to 1"));
  }
  if (pool.validation_error.has_value() &&
      static_cast<int64_t>(pool.validation_error->size()) >
          kMaxValidationErrorBytes) {
    errors.push_back(
        TooLong(path.Child("validationError"), kMaxValidationErrorBytes));
  }
}

void ValidateStatus(const ResourcePoolStatusRequestStatus& status,
                    const FieldPath& path, ErrorList& errors) {
  if (!status.pool_count.has_value()) {
    errors.push_back(Required(path.Child("poolCount")));
  } else {
    ValidateCount(status.pool_count, path.Child("poolCount"), errors);
  }
  const auto pool_count = static_cast<int64_t>(status.pools.size());
  if (pool_count > kMaxPools) {
    errors.push_back(TooMany(path.Child("pools"), pool_count, kMaxPools));
  }
  for (size_t i = 0; i < status.pools.size(); ++i) {
    ValidatePool(status.pools[i], path.Child("pools").Index(i), errors);
  }
  ValidateConditions(status.conditions, path.Child("conditions"), errors);
  const auto condition_count = static_cast<int64_t>(status.conditions.size());
  if (condition_count > kMaxConditions) {
    errors.push_back(
        TooMany(path.Child("conditions"), condition_count, kMaxConditions));
  }
}

}  // namespace

ErrorList ValidateResourcePoolStatusRequest(
    const ResourcePoolStatusRequest& request) {
  ErrorList errors = ObjectMetaErrors(request.metadata, /*namespaced=*/false);
  ValidateSpec(request.spec, FieldPath("spec"), errors);
  if (request.status.has_value()) {
    ValidateStatus(*request.status, FieldPath("status"), errors);
  }
  return errors;
}

}  // namespace dralloc::api
