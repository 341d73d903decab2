// resource.k8s.io/v1alpha3 ResourcePoolStatusRequest (KEP-5677): a one-time
// question "how full are the pools of driver D?". The controller
// (controller/resource_pool_status_controller.h) answers it once by setting
// the status; a request with a status is complete and no longer changes.
// Users delete and recreate a request to get a fresh answer.
#ifndef DRALLOC_API_TYPES_RESOURCE_POOL_STATUS_REQUEST_H_
#define DRALLOC_API_TYPES_RESOURCE_POOL_STATUS_REQUEST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/object_meta.h"
#include "common/quantity.h"

namespace dralloc::api {

// spec.limit when unset, and its largest allowed value (upstream's
// ResourcePoolStatusRequestLimitDefault / ResourcePoolStatusRequestLimitMax).
inline constexpr int32_t kResourcePoolStatusRequestLimitDefault = 100;
inline constexpr int32_t kResourcePoolStatusRequestLimitMax = 1000;
// Condition types of a computed status.
inline constexpr char kPoolStatusConditionComplete[] = "Complete";
inline constexpr char kPoolStatusConditionFailed[] = "Failed";

struct ResourcePoolStatusRequestSpec {
  std::string driver;
  std::optional<std::string> pool_name;
  std::optional<int32_t> limit;
  // The grouping attribute for partitionable devices whose slice names none.
  std::optional<std::string> default_partition_type_attribute;
  friend bool operator==(const ResourcePoolStatusRequestSpec&,
                         const ResourcePoolStatusRequestSpec&) = default;
};
constexpr auto FieldsOf(const ResourcePoolStatusRequestSpec*) {
  using T = ResourcePoolStatusRequestSpec;
  return std::tuple{Field("driver", &T::driver, kAlways),
                    Field("poolName", &T::pool_name), Field("limit", &T::limit),
                    Field("defaultPartitionTypeAttribute",
                          &T::default_partition_type_attribute)};
}

// Allocatability of one partition type (one value of the grouping
// attribute) in a partitionable pool.
struct PartitionTypeStatus {
  std::string attribute;
  std::string type;
  std::optional<int32_t> total;
  std::optional<int32_t> allocatable;
  friend bool operator==(const PartitionTypeStatus&,
                         const PartitionTypeStatus&) = default;
};
constexpr auto FieldsOf(const PartitionTypeStatus*) {
  using T = PartitionTypeStatus;
  return std::tuple{Field("attribute", &T::attribute), Field("type", &T::type),
                    Field("total", &T::total),
                    Field("allocatable", &T::allocatable)};
}

// Total, consumed and available amount of one capacity over the shareable
// (allowMultipleAllocations) devices of a pool.
struct ShareableCapacityStatus {
  std::string name;
  std::optional<Quantity> total;
  std::optional<Quantity> consumed;
  std::optional<Quantity> available;
  friend bool operator==(const ShareableCapacityStatus&,
                         const ShareableCapacityStatus&) = default;
};
constexpr auto FieldsOf(const ShareableCapacityStatus*) {
  using T = ShareableCapacityStatus;
  return std::tuple{Field("name", &T::name), Field("total", &T::total),
                    Field("consumed", &T::consumed),
                    Field("available", &T::available)};
}

struct ShareableSummaryStatus {
  std::optional<int32_t> fully_available_devices;
  std::optional<int32_t> partially_available_devices;
  std::vector<ShareableCapacityStatus> capacity;
  friend bool operator==(const ShareableSummaryStatus&,
                         const ShareableSummaryStatus&) = default;
};
constexpr auto FieldsOf(const ShareableSummaryStatus*) {
  using T = ShareableSummaryStatus;
  return std::tuple{
      Field("fullyAvailableDevices", &T::fully_available_devices),
      Field("partiallyAvailableDevices", &T::partially_available_devices),
      Field("capacity", &T::capacity)};
}

// The state of one pool at its newest generation. The counts are unset
// when validation_error says the pool could not be counted (slices of the
// newest generation still missing).
struct PoolStatus {
  std::string driver;
  std::string pool_name;
  int64_t generation = 0;
  std::optional<int32_t> resource_slice_count;
  std::optional<int32_t> total_devices;
  std::optional<int32_t> allocated_devices;
  std::optional<int32_t> available_devices;
  std::optional<int32_t> unavailable_devices;
  std::optional<std::string> node_name;
  std::optional<std::string> validation_error;
  std::vector<PartitionTypeStatus> partition_summary;
  std::optional<ShareableSummaryStatus> shareable_summary;
  friend bool operator==(const PoolStatus&, const PoolStatus&) = default;
};
constexpr auto FieldsOf(const PoolStatus*) {
  using T = PoolStatus;
  return std::tuple{Field("driver", &T::driver),
                    Field("poolName", &T::pool_name),
                    Field("generation", &T::generation, kAlways),
                    Field("resourceSliceCount", &T::resource_slice_count),
                    Field("totalDevices", &T::total_devices),
                    Field("allocatedDevices", &T::allocated_devices),
                    Field("availableDevices", &T::available_devices),
                    Field("unavailableDevices", &T::unavailable_devices),
                    Field("nodeName", &T::node_name),
                    Field("validationError", &T::validation_error),
                    Field("partitionSummary", &T::partition_summary),
                    Field("shareableSummary", &T::shareable_summary)};
}

struct ResourcePoolStatusRequestStatus {
  std::optional<int32_t> pool_count;
  std::vector<PoolStatus> pools;
  std::vector<Condition> conditions;
  friend bool operator==(const ResourcePoolStatusRequestStatus&,
                         const ResourcePoolStatusRequestStatus&) = default;
};
constexpr auto FieldsOf(const ResourcePoolStatusRequestStatus*) {
  using T = ResourcePoolStatusRequestStatus;
  return std::tuple{
      Field("poolCount", &T::pool_count), Field("pools", &T::pools),
      Field("conditions", &T::conditions).ListMap("type").PatchMerge()};
}

// Cluster-scoped. `status` unset: not answered yet.
struct ResourcePoolStatusRequest {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ResourcePoolStatusRequestSpec spec;
  std::optional<ResourcePoolStatusRequestStatus> status;
  friend bool operator==(const ResourcePoolStatusRequest&,
                         const ResourcePoolStatusRequest&) = default;
};
constexpr auto FieldsOf(const ResourcePoolStatusRequest*) {
  using T = ResourcePoolStatusRequest;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec, kAlways),
                    Field("status", &T::status)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_RESOURCE_POOL_STATUS_REQUEST_H_
