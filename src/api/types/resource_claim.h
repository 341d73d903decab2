// resource.k8s.io/v1 ResourceClaim and ResourceClaimTemplate.
#ifndef DRALLOC_API_TYPES_RESOURCE_CLAIM_H_
#define DRALLOC_API_TYPES_RESOURCE_CLAIM_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/device_types.h"
#include "api/types/node_selector.h"
#include "api/types/object_meta.h"
#include "common/quantity.h"

namespace dralloc::api {

struct CapacityRequirements {
  std::map<std::string, Quantity> requests;
  friend bool operator==(const CapacityRequirements&,
                         const CapacityRequirements&) = default;
};
constexpr auto FieldsOf(const CapacityRequirements*) {
  return std::tuple{Field("requests", &CapacityRequirements::requests)};
}

// A per-device CEL result usable by matchAttribute/distinctAttribute
// (KEP-6080): `expression` sees `device` as a selector does and yields a
// scalar or a list of scalars.
struct DerivedAttribute {
  std::string name;
  std::string expression;
  friend bool operator==(const DerivedAttribute&,
                         const DerivedAttribute&) = default;
};
constexpr auto FieldsOf(const DerivedAttribute*) {
  using T = DerivedAttribute;
  return std::tuple{Field("name", &T::name, kAlways),
                    Field("expression", &T::expression, kAlways)};
}

struct ExactDeviceRequest {
  std::string device_class_name;
  std::vector<DeviceSelector> selectors;
  std::string allocation_mode;  // ExactCount (default) or All
  int64_t count = 0;
  std::optional<bool> admin_access;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
  std::vector<DerivedAttribute> derived_attributes;
  friend bool operator==(const ExactDeviceRequest&,
                         const ExactDeviceRequest&) = default;
};
constexpr auto FieldsOf(const ExactDeviceRequest*) {
  using T = ExactDeviceRequest;
  return std::tuple{
      Field("deviceClassName", &T::device_class_name, kAlways),
      Field("selectors", &T::selectors),
      Field("allocationMode", &T::allocation_mode),
      Field("count", &T::count),
      Field("adminAccess", &T::admin_access),
      Field("tolerations", &T::tolerations),
      Field("capacity", &T::capacity),
      Field("derivedAttributes", &T::derived_attributes).ListMap("name")};
}

struct DeviceSubRequest {
  std::string name;
  std::string device_class_name;
  std::vector<DeviceSelector> selectors;
  std::string allocation_mode;
  int64_t count = 0;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
  friend bool operator==(const DeviceSubRequest&,
                         const DeviceSubRequest&) = default;
};
constexpr auto FieldsOf(const DeviceSubRequest*) {
  using T = DeviceSubRequest;
  return std::tuple{Field("name", &T::name, kAlways),
                    Field("deviceClassName", &T::device_class_name, kAlways),
                    Field("selectors", &T::selectors),
                    Field("allocationMode", &T::allocation_mode),
                    Field("count", &T::count),
                    Field("tolerations", &T::tolerations),
                    Field("capacity", &T::capacity)};
}

struct DeviceRequest {
  std::string name;
  std::optional<ExactDeviceRequest> exactly;
  std::vector<DeviceSubRequest> first_available;
  friend bool operator==(const DeviceRequest&, const DeviceRequest&) = default;
};
constexpr auto FieldsOf(const DeviceRequest*) {
  using T = DeviceRequest;
  return std::tuple{Field("name", &T::name, kAlways),
                    Field("exactly", &T::exactly),
                    Field("firstAvailable", &T::first_available)};
}

// dralloc's CEL device constraint (KEP-5254 seed): the expression sees all
// devices chosen for the constrained requests.
struct CELDeviceConstraint {
  std::string expression;
  friend bool operator==(const CELDeviceConstraint&,
                         const CELDeviceConstraint&) = default;
};
constexpr auto FieldsOf(const CELDeviceConstraint*) {
  return std::tuple{
      Field("expression", &CELDeviceConstraint::expression, kAlways)};
}

struct DeviceConstraint {
  std::vector<std::string> requests;
  std::optional<std::string> match_attribute;
  std::optional<std::string> distinct_attribute;
  std::optional<CELDeviceConstraint> cel;
  friend bool operator==(const DeviceConstraint&,
                         const DeviceConstraint&) = default;
};
constexpr auto FieldsOf(const DeviceConstraint*) {
  using T = DeviceConstraint;
  return std::tuple{Field("requests", &T::requests),
                    Field("matchAttribute", &T::match_attribute),
                    Field("distinctAttribute", &T::distinct_attribute),
                    Field("cel", &T::cel)};
}

struct DeviceClaimConfiguration {
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
  friend bool operator==(const DeviceClaimConfiguration&,
                         const DeviceClaimConfiguration&) = default;
};
constexpr auto FieldsOf(const DeviceClaimConfiguration*) {
  using T = DeviceClaimConfiguration;
  return std::tuple{Field("requests", &T::requests),
                    Field("opaque", &T::opaque)};
}

struct DeviceClaim {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  std::vector<DeviceClaimConfiguration> config;
  friend bool operator==(const DeviceClaim&, const DeviceClaim&) = default;
};
constexpr auto FieldsOf(const DeviceClaim*) {
  using T = DeviceClaim;
  return std::tuple{Field("requests", &T::requests),
                    Field("constraints", &T::constraints),
                    Field("config", &T::config)};
}

struct ResourceClaimSpec {
  DeviceClaim devices;
  friend bool operator==(const ResourceClaimSpec&,
                         const ResourceClaimSpec&) = default;
};
constexpr auto FieldsOf(const ResourceClaimSpec*) {
  return std::tuple{Field("devices", &ResourceClaimSpec::devices)};
}

struct DeviceRequestAllocationResult {
  std::string request;
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<bool> admin_access;
  std::vector<DeviceToleration> tolerations;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  std::optional<std::string> share_id;
  std::map<std::string, Quantity> consumed_capacity;
  // A copy of the device's ResourceSliceSpec.skipNodeOperations (KEP-5945).
  std::vector<std::string> skip_node_operations;
  friend bool operator==(const DeviceRequestAllocationResult&,
                         const DeviceRequestAllocationResult&) = default;
};
constexpr auto FieldsOf(const DeviceRequestAllocationResult*) {
  using T = DeviceRequestAllocationResult;
  return std::tuple{
      Field("request", &T::request, kAlways),
      Field("driver", &T::driver, kAlways),
      Field("pool", &T::pool, kAlways),
      Field("device", &T::device, kAlways),
      Field("adminAccess", &T::admin_access),
      Field("tolerations", &T::tolerations),
      Field("bindingConditions", &T::binding_conditions),
      Field("bindingFailureConditions", &T::binding_failure_conditions),
      Field("shareID", &T::share_id),
      Field("consumedCapacity", &T::consumed_capacity),
      Field("skipNodeOperations", &T::skip_node_operations).ListSet()};
}

struct DeviceAllocationConfiguration {
  std::string source;  // FromClass, FromClaim
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
  friend bool operator==(const DeviceAllocationConfiguration&,
                         const DeviceAllocationConfiguration&) = default;
};
constexpr auto FieldsOf(const DeviceAllocationConfiguration*) {
  using T = DeviceAllocationConfiguration;
  return std::tuple{Field("source", &T::source, kAlways),
                    Field("requests", &T::requests),
                    Field("opaque", &T::opaque)};
}

struct DeviceAllocationResult {
  std::vector<DeviceRequestAllocationResult> results;
  std::vector<DeviceAllocationConfiguration> config;
  friend bool operator==(const DeviceAllocationResult&,
                         const DeviceAllocationResult&) = default;
};
constexpr auto FieldsOf(const DeviceAllocationResult*) {
  using T = DeviceAllocationResult;
  return std::tuple{Field("results", &T::results), Field("config", &T::config)};
}

struct AllocationResult {
  DeviceAllocationResult devices;
  std::optional<NodeSelector> node_selector;
  std::optional<Time> allocation_timestamp;
  friend bool operator==(const AllocationResult&,
                         const AllocationResult&) = default;
};
constexpr auto FieldsOf(const AllocationResult*) {
  using T = AllocationResult;
  return std::tuple{Field("devices", &T::devices),
                    Field("nodeSelector", &T::node_selector),
                    Field("allocationTimestamp", &T::allocation_timestamp)};
}

struct ResourceClaimConsumerReference {
  std::string api_group;
  std::string resource;
  std::string name;
  std::string uid;
  friend bool operator==(const ResourceClaimConsumerReference&,
                         const ResourceClaimConsumerReference&) = default;
};
constexpr auto FieldsOf(const ResourceClaimConsumerReference*) {
  using T = ResourceClaimConsumerReference;
  return std::tuple{Field("apiGroup", &T::api_group),
                    Field("resource", &T::resource, kAlways),
                    Field("name", &T::name, kAlways),
                    Field("uid", &T::uid, kAlways)};
}

struct NetworkDeviceData {
  std::string interface_name;
  std::vector<std::string> ips;
  std::string hardware_address;
  friend bool operator==(const NetworkDeviceData&,
                         const NetworkDeviceData&) = default;
};
constexpr auto FieldsOf(const NetworkDeviceData*) {
  using T = NetworkDeviceData;
  return std::tuple{Field("interfaceName", &T::interface_name),
                    Field("ips", &T::ips),
                    Field("hardwareAddress", &T::hardware_address)};
}

struct AllocatedDeviceStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<std::string> share_id;
  std::vector<Condition> conditions;
  std::optional<RawJson> data;
  std::optional<NetworkDeviceData> network_data;
  friend bool operator==(const AllocatedDeviceStatus&,
                         const AllocatedDeviceStatus&) = default;
};
constexpr auto FieldsOf(const AllocatedDeviceStatus*) {
  using T = AllocatedDeviceStatus;
  return std::tuple{
      Field("driver", &T::driver, kAlways),
      Field("pool", &T::pool, kAlways),
      Field("device", &T::device, kAlways),
      Field("shareID", &T::share_id),
      Field("conditions", &T::conditions).ListMap("type").PatchMerge(),
      Field("data", &T::data),
      Field("networkData", &T::network_data)};
}

struct ResourceClaimStatus {
  std::optional<AllocationResult> allocation;
  std::vector<ResourceClaimConsumerReference> reserved_for;
  std::vector<AllocatedDeviceStatus> devices;
  friend bool operator==(const ResourceClaimStatus&,
                         const ResourceClaimStatus&) = default;
};
constexpr auto FieldsOf(const ResourceClaimStatus*) {
  using T = ResourceClaimStatus;
  return std::tuple{
      Field("allocation", &T::allocation),
      Field("reservedFor", &T::reserved_for).ListMap("uid").PatchMerge(),
      // A map for apply only: no patchStrategy tag upstream.
      Field("devices", &T::devices)
          .ListMap("driver", "pool", "device", "shareID")};
}

struct ResourceClaim {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  ResourceClaimStatus status;
  friend bool operator==(const ResourceClaim&, const ResourceClaim&) = default;
};
constexpr auto FieldsOf(const ResourceClaim*) {
  using T = ResourceClaim;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec), Field("status", &T::status)};
}

struct ResourceClaimTemplateSpec {
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  friend bool operator==(const ResourceClaimTemplateSpec&,
                         const ResourceClaimTemplateSpec&) = default;
};
constexpr auto FieldsOf(const ResourceClaimTemplateSpec*) {
  using T = ResourceClaimTemplateSpec;
  return std::tuple{Field("metadata", &T::metadata), Field("spec", &T::spec)};
}

struct ResourceClaimTemplate {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ResourceClaimTemplateSpec spec;
  friend bool operator==(const ResourceClaimTemplate&,
                         const ResourceClaimTemplate&) = default;
};
constexpr auto FieldsOf(const ResourceClaimTemplate*) {
  using T = ResourceClaimTemplate;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_RESOURCE_CLAIM_H_
