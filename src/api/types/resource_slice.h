// resource.k8s.io/v1 ResourceSlice: devices a driver publishes for one pool.
#ifndef DRALLOC_API_TYPES_RESOURCE_SLICE_H_
#define DRALLOC_API_TYPES_RESOURCE_SLICE_H_

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

namespace dralloc::api {

struct ResourcePool {
  std::string name;
  int64_t generation = 0;
  int64_t resource_slice_count = 0;
  friend bool operator==(const ResourcePool&, const ResourcePool&) = default;
};
constexpr auto FieldsOf(const ResourcePool*) {
  using T = ResourcePool;
  return std::tuple{
      Field("name", &T::name, kAlways),
      Field("generation", &T::generation, kAlways),
      Field("resourceSliceCount", &T::resource_slice_count, kAlways)};
}

struct CounterSet {
  std::string name;
  std::map<std::string, Counter> counters;
  friend bool operator==(const CounterSet&, const CounterSet&) = default;
};
constexpr auto FieldsOf(const CounterSet*) {
  return std::tuple{Field("name", &CounterSet::name, kAlways),
                    Field("counters", &CounterSet::counters, kAlways)};
}

struct DeviceCounterConsumption {
  std::string counter_set;
  std::map<std::string, Counter> counters;
  // KEP-5963: devices drawing from one counter set are co-allocated only
  // when they all leave this empty or all share a group.
  std::vector<std::string> compatibility_groups;
  friend bool operator==(const DeviceCounterConsumption&,
                         const DeviceCounterConsumption&) = default;
};
constexpr auto FieldsOf(const DeviceCounterConsumption*) {
  using T = DeviceCounterConsumption;
  return std::tuple{Field("counterSet", &T::counter_set, kAlways),
                    Field("counters", &T::counters, kAlways),
                    Field("compatibilityGroups", &T::compatibility_groups)};
}

// KEP-5517 (1.37 shape): how an allocation of a device maps to a node
// allocatable resource: consumed capacity times a multiplier, or the number of
// devices times a multiplier.
struct NodeAllocatableMapping {
  std::optional<std::string> capacity_key;
  std::optional<Quantity> capacity_multiplier;
  std::optional<Quantity> device_multiplier;
  friend bool operator==(const NodeAllocatableMapping&,
                         const NodeAllocatableMapping&) = default;
};
constexpr auto FieldsOf(const NodeAllocatableMapping*) {
  using T = NodeAllocatableMapping;
  return std::tuple{Field("capacityKey", &T::capacity_key),
                    Field("capacityMultiplier", &T::capacity_multiplier),
                    Field("deviceMultiplier", &T::device_multiplier)};
}

// Auxiliary use of a node allocatable resource per pod and per container
// referencing the claim.
struct NodeAllocatableOverhead {
  std::optional<Quantity> per_pod;
  std::optional<Quantity> per_container;
  friend bool operator==(const NodeAllocatableOverhead&,
                         const NodeAllocatableOverhead&) = default;
};
constexpr auto FieldsOf(const NodeAllocatableOverhead*) {
  using T = NodeAllocatableOverhead;
  return std::tuple{Field("perPod", &T::per_pod),
                    Field("perContainer", &T::per_container)};
}

struct NodeAllocatableResource {
  std::optional<NodeAllocatableMapping> mapping;
  std::optional<NodeAllocatableOverhead> overhead;
  friend bool operator==(const NodeAllocatableResource&,
                         const NodeAllocatableResource&) = default;
};
constexpr auto FieldsOf(const NodeAllocatableResource*) {
  using T = NodeAllocatableResource;
  return std::tuple{Field("mapping", &T::mapping),
                    Field("overhead", &T::overhead)};
}

struct Device {
  std::string name;
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
  // By node allocatable resource name ("cpu", "memory", ...).
  std::map<std::string, NodeAllocatableResource> node_allocatable_resources;
  friend bool operator==(const Device&, const Device&) = default;
};
constexpr auto FieldsOf(const Device*) {
  using T = Device;
  return std::tuple{
      Field("name", &T::name, kAlways),
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

struct ResourceSliceSpec {
  std::string driver;
  ResourcePool pool;
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<Device> devices;
  std::optional<bool> per_device_node_selection;
  std::vector<CounterSet> shared_counters;
  // KEP-5945: node-local operations (kubelet gRPC calls) its devices do not
  // need: "NodePrepareResources", "NodeUnprepareResources" or "*".
  std::vector<std::string> skip_node_operations;
  // KEP-5677: the string attribute (fully qualified) whose value names the
  // partition type of each counter-consuming device.
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

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_RESOURCE_SLICE_H_
