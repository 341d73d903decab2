// resource.k8s.io/v1beta1 wire structs that differ from the v1 hub.
//
// Only the types on the path to a flat DeviceRequest or a `basic` Device have
// a v1beta1 form; everything below them (selectors, tolerations, attributes,
// counters, status, ...) reuses the hub structs, whose wire shape is the same.
//
// Where Go distinguishes nil from empty and the conversion depends on it, the
// struct keeps that distinction: `selectors: []` on a request is "set" (it
// makes the request an `exactly` request), just as in upstream.
#ifndef DRALLOC_API_V1BETA1_TYPES_H_
#define DRALLOC_API_V1BETA1_TYPES_H_

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
#include "api/types/resource_claim.h"
#include "api/types/resource_slice.h"

namespace dralloc::api::v1beta1 {

// ---- ResourceSlice ----

// The properties of a device; in v1 they sit directly on the Device.
struct BasicDevice {
  FlatMap<DeviceAttribute> attributes;
  FlatMap<DeviceCapacity> capacity;
  std::vector<DeviceCounterConsumption> consumes_counters;
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<DeviceTaint> taints;
  std::optional<bool> binds_to_node;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  std::optional<bool> allow_multiple_allocations;
  std::map<std::string, NodeAllocatableResource> node_allocatable_resources;
  friend bool operator==(const BasicDevice&, const BasicDevice&) = default;
};
constexpr auto FieldsOf(const BasicDevice*) {
  using T = BasicDevice;
  return std::tuple{
      Field("attributes", &T::attributes),
      Field("capacity", &T::capacity),
      Field("consumesCounters", &T::consumes_counters),
      Field("nodeName", &T::node_name),
      Field("nodeSelector", &T::node_selector),
      Field("allNodes", &T::all_nodes),
      Field("taints", &T::taints),
      Field("bindsToNode", &T::binds_to_node),
      Field("bindingConditions", &T::binding_conditions),
      Field("bindingFailureConditions", &T::binding_failure_conditions),
      Field("allowMultipleAllocations", &T::allow_multiple_allocations),
      Field("nodeAllocatableResources", &T::node_allocatable_resources)};
}

struct Device {
  std::string name;
  std::optional<BasicDevice> basic;
  friend bool operator==(const Device&, const Device&) = default;
};
constexpr auto FieldsOf(const Device*) {
  using T = Device;
  return std::tuple{Field("name", &T::name, kAlways),
                    Field("basic", &T::basic)};
}

// In v1beta1 nodeName and allNodes are plain values with omitempty: an empty
// name and `false` mean "not set".
struct ResourceSliceSpec {
  std::string driver;
  ResourcePool pool;
  std::string node_name;
  std::optional<NodeSelector> node_selector;
  bool all_nodes = false;
  std::vector<Device> devices;
  std::optional<bool> per_device_node_selection;
  std::vector<CounterSet> shared_counters;
  std::vector<std::string> skip_node_operations;
  std::optional<std::string> partition_type_attribute;
  friend bool operator==(const ResourceSliceSpec&,
                         const ResourceSliceSpec&) = default;
};
constexpr auto FieldsOf(const ResourceSliceSpec*) {
  using T = ResourceSliceSpec;
  return std::tuple{
      Field("driver", &T::driver, kAlways),
      Field("pool", &T::pool, kAlways),
      Field("nodeName", &T::node_name),
      Field("nodeSelector", &T::node_selector),
      Field("allNodes", &T::all_nodes),
      Field("devices", &T::devices),
      Field("perDeviceNodeSelection", &T::per_device_node_selection),
      Field("sharedCounters", &T::shared_counters),
      Field("skipNodeOperations", &T::skip_node_operations).ListSet(),
      Field("partitionTypeAttribute", &T::partition_type_attribute)};
}

struct ResourceSlice {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ResourceSliceSpec spec;
  friend bool operator==(const ResourceSlice&, const ResourceSlice&) = default;
};
constexpr auto FieldsOf(const ResourceSlice*) {
  using T = ResourceSlice;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind), Field("metadata", &T::metadata),
                    Field("spec", &T::spec)};
}

// ---- ResourceClaim and ResourceClaimTemplate ----

// A flat request: v1's `exactly` fields sit beside `firstAvailable`.
// `selectors` and `tolerations` are optional so that an explicitly empty list
// (Go: non-nil) still marks the request as an `exactly` request.
struct DeviceRequest {
  std::string name;
  std::string device_class_name;
  std::optional<std::vector<DeviceSelector>> selectors;
  std::string allocation_mode;
  int64_t count = 0;
  std::optional<bool> admin_access;
  std::vector<DeviceSubRequest> first_available;
  std::optional<std::vector<DeviceToleration>> tolerations;
  std::optional<CapacityRequirements> capacity;
  std::vector<DerivedAttribute> derived_attributes;
  friend bool operator==(const DeviceRequest&, const DeviceRequest&) = default;
};
constexpr auto FieldsOf(const DeviceRequest*) {
  using T = DeviceRequest;
  return std::tuple{Field("name", &T::name, kAlways),
                    Field("deviceClassName", &T::device_class_name, kAlways),
                    Field("selectors", &T::selectors),
                    Field("allocationMode", &T::allocation_mode),
                    Field("count", &T::count),
                    Field("adminAccess", &T::admin_access),
                    Field("firstAvailable", &T::first_available),
                    Field("tolerations", &T::tolerations),
                    Field("capacity", &T::capacity),
                    Field("derivedAttributes", &T::derived_attributes)};
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

}  // namespace dralloc::api::v1beta1

#endif  // DRALLOC_API_V1BETA1_TYPES_H_
