// ValidateResourceSlice: upstream pkg/apis/resource/validation semantics for
// resource.k8s.io/v1 ResourceSlices (create).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "api/validation/device_rules.h"
#include "api/validation/limits.h"
#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace dralloc::api {
namespace {

int64_t Size(size_t n) { return static_cast<int64_t>(n); }

std::string JoinFields(const std::vector<std::string_view>& fields) {
  return fmt::format("{{{}}}", fmt::join(fields, ", "));
}

bool HasListAttribute(const Device& device) {
  for (const auto& [name, attribute] : device.attributes) {
    if (attribute.ints || attribute.bools || attribute.strings ||
        attribute.versions)
      return true;
  }
  return false;
}

// Slices using taints, counters or list attributes hold fewer devices.
int64_t MaxDevices(const ResourceSliceSpec& spec) {
  for (const Device& device : spec.devices) {
    if (!device.taints.empty() || !device.consumes_counters.empty() ||
        HasListAttribute(device)) {
      return kResourceSliceMaxDevicesWithAdvancedFeatures;
    }
  }
  return kResourceSliceMaxDevices;
}

// Scalars count once, lists once per element.
int64_t NumAttributeValues(const Device& device) {
  int64_t n = 0;
  for (const auto& [name, a] : device.attributes) {
    int64_t list_items =
        Size((a.bools ? a.bools->size() : 0) + (a.ints ? a.ints->size() : 0) +
             (a.strings ? a.strings->size() : 0) +
             (a.versions ? a.versions->size() : 0));
    n += list_items == 0 ? 1 : list_items;
  }
  return n;
}

// Counters of a counter set or a device's consumption: ≤ 32, DNS-label keys
// (reported at the map), any quantity.
void ValidateCounters(const std::map<std::string, Counter>& counters,
                      const FieldPath& path, ErrorList& errors) {
  if (counters.empty()) {
    errors.push_back(Required(path));
    return;
  }
  if (Size(counters.size()) > kResourceSliceMaxCountersPerCounterSet) {
    errors.push_back(TooMany(path, Size(counters.size()),
                             kResourceSliceMaxCountersPerCounterSet));
    return;
  }
  for (const auto& [name, counter] : counters)
    ValidateDeviceName(name, path, errors);
}

void ValidateCounterSetName(const std::string& name, const FieldPath& path,
                            ErrorList& errors) {
  if (name.empty()) {
    errors.push_back(Required(path));
  } else {
    ValidateDeviceName(name, path, errors);
  }
}

void ValidateSharedCounters(const std::vector<CounterSet>& sets,
                            const FieldPath& path, ErrorList& errors) {
  if (Size(sets.size()) > kResourceSliceMaxCounterSets) {
    errors.push_back(
        TooMany(path, Size(sets.size()), kResourceSliceMaxCounterSets));
    return;
  }
  std::set<std::string_view> names;
  for (size_t i = 0; i < sets.size(); ++i) {
    FieldPath item = path.Index(Size(i));
    ValidateCounterSetName(sets[i].name, item.Child("name"), errors);
    ValidateCounters(sets[i].counters, item.Child("counters"), errors);
  }
  for (size_t i = 0; i < sets.size(); ++i) {
    if (!names.insert(sets[i].name).second) {
      errors.push_back(
          Duplicate(path.Index(Size(i)), QuoteValue(sets[i].name)));
    }
  }
}

// compatibilityGroups (KEP-5963): at most 2 unique names, each a DNS label
// (the name rule is dralloc's: upstream's was not available).
void ValidateCompatibilityGroups(const std::vector<std::string>& groups,
                                 const FieldPath& path, ErrorList& errors) {
  ValidateKeyedList(
      groups, kCompatibilityGroupsMaxSize, path, errors,
      [&](const std::string& group, const FieldPath& item) {
        ValidateDeviceName(group, item, errors);
      },
      [](const std::string& group) -> std::string_view { return group; });
}

void ValidateConsumesCounters(
    const std::vector<DeviceCounterConsumption>& consumptions,
    const FieldPath& path, ErrorList& errors) {
  if (Size(consumptions.size()) >
      kResourceSliceMaxDeviceCounterConsumptionsPerDevice) {
    errors.push_back(
        TooMany(path, Size(consumptions.size()),
                kResourceSliceMaxDeviceCounterConsumptionsPerDevice));
    return;
  }
  std::set<std::string_view> sets;
  for (size_t i = 0; i < consumptions.size(); ++i) {
    FieldPath item = path.Index(Size(i));
    ValidateCounterSetName(consumptions[i].counter_set,
                           item.Child("counterSet"), errors);
    ValidateCounters(consumptions[i].counters, item.Child("counters"), errors);
    ValidateCompatibilityGroups(consumptions[i].compatibility_groups,
                                item.Child("compatibilityGroups"), errors);
  }
  for (size_t i = 0; i < consumptions.size(); ++i) {
    if (!sets.insert(consumptions[i].counter_set).second) {
      errors.push_back(Duplicate(path.Index(Size(i)),
                                 QuoteValue(consumptions[i].counter_set)));
    }
  }
}

void ValidatePerDeviceNodeSelection(const Device& device,
                                    bool per_device_node_selection,
                                    const FieldPath& path, ErrorList& errors) {
  if (!per_device_node_selection) {
    if (device.node_name || device.node_selector || device.all_nodes) {
      errors.push_back(Invalid(
          path, QuoteValue("null"),
          "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
          "`perDeviceNodeSelection` is set to true in the ResourceSlice "
          "spec"));
    }
    return;
  }
  std::vector<std::string_view> set_fields;
  if (device.node_name.has_value()) {
    FieldPath node_name_path = path.Child("nodeName");
    if (!device.node_name->empty()) {
      set_fields.push_back("`nodeName`");
      ValidateDns1123Subdomain(*device.node_name, node_name_path, errors);
    } else {
      errors.push_back(InvalidString(node_name_path, "", "must not be empty"));
    }
  }
  if (device.node_selector.has_value()) {
    set_fields.push_back("`nodeSelector`");
    ValidateNodeSelector(*device.node_selector, path.Child("nodeSelector"),
                         errors);
  }
  if (device.all_nodes.has_value()) {
    if (*device.all_nodes) {
      set_fields.push_back("`allNodes`");
    } else {
      errors.push_back(Invalid(path.Child("allNodes"), "false",
                               "must be either unset or set to true"));
    }
  }
  constexpr std::string_view kDetail =
      "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required "
      "when "
      "`perDeviceNodeSelection` is set to true in the ResourceSlice spec";
  if (set_fields.empty()) {
    errors.push_back(Required(path, std::string(kDetail)));
  } else if (set_fields.size() > 1) {
    errors.push_back(
        InvalidString(path, JoinFields(set_fields), std::string(kDetail)));
  }
}

// Attribute (or capacity) names already found valid in this slice. Devices
// of one slice usually carry the same names in the same (sorted) order, so a
// name equal to the previous device's name at the same position is accepted
// with one comparison; other names are looked up, and validated once.
// Invalid names are never remembered: every device that has one reports it.
class ValidNames {
 public:
  // `position` is the name's index within its device's map.
  void Check(size_t position, std::string_view name, const FieldPath& path,
             ErrorList& errors) {
    if (position < previous_.size() && previous_[position] == name) return;
    if (!valid_.contains(name)) {
      const size_t before = errors.size();
      ValidateQualifiedAttributeName(name, path, errors);
      if (errors.size() != before) return;
      valid_.insert(name);
    }
    if (position < previous_.size()) {
      previous_[position] = name;
    } else if (position == previous_.size()) {
      previous_.push_back(name);
    }
  }

 private:
  std::unordered_set<std::string_view> valid_;  // views into the slice
  std::vector<std::string_view> previous_;
};

// The map key as it appears in error paths: upstream shortens long keys.
// `storage` holds a shortened key; short keys are used as they are.
std::string_view PathKey(std::string_view name, std::string& storage) {
  if (std::ssize(name) <= kAttributeAndCapacityMaxKeyLength) return name;
  storage = TruncateKeyIfTooLong(name, kAttributeAndCapacityMaxKeyLength);
  return storage;
}

// KEP-5517: keys are node allocatable resources (not extended resources).
bool IsNodeAllocatableResourceName(std::string_view name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
         (name.starts_with("hugepages-") && name.size() > 10);
}

void ValidateNonNegative(const std::optional<Quantity>& q,
                         const FieldPath& path, ErrorList& errors) {
  if (q && q->Sign() < 0) {
    errors.push_back(
        Invalid(path, q->ToString(), "must be greater than or equal to 0"));
  }
}

// mapping: either capacityKey with capacityMultiplier (the key naming one
// of the device's capacities) or deviceMultiplier.
void ValidateNodeAllocatableMapping(const NodeAllocatableMapping& mapping,
                                    const Device& device, const FieldPath& path,
                                    ErrorList& errors) {
  const bool by_capacity =
      mapping.capacity_key.has_value() || mapping.capacity_multiplier;
  if (by_capacity && mapping.device_multiplier) {
    errors.push_back(Invalid(path, "{`capacityKey`, `deviceMultiplier`}",
                             "`capacityKey` and `deviceMultiplier` are "
                             "mutually exclusive"));
  } else if (!by_capacity && !mapping.device_multiplier) {
    errors.push_back(Required(
        path,
        "exactly one of `capacityKey` or `deviceMultiplier` is required"));
  }
  if (mapping.capacity_key && !mapping.capacity_multiplier) {
    errors.push_back(Required(path.Child("capacityMultiplier"),
                              "required when `capacityKey` is set"));
  }
  if (mapping.capacity_multiplier && !mapping.capacity_key) {
    errors.push_back(Required(path.Child("capacityKey"),
                              "required when `capacityMultiplier` is set"));
  }
  if (mapping.capacity_key) {
    const FieldPath key_path = path.Child("capacityKey");
    ValidateQualifiedAttributeName(*mapping.capacity_key, key_path, errors);
    if (!device.capacity.contains(*mapping.capacity_key)) {
      errors.push_back(Invalid(key_path, QuoteValue(*mapping.capacity_key),
                               "must name a capacity of the device"));
    }
  }
  ValidateNonNegative(mapping.capacity_multiplier,
                      path.Child("capacityMultiplier"), errors);
  ValidateNonNegative(mapping.device_multiplier, path.Child("deviceMultiplier"),
                      errors);
}

void ValidateNodeAllocatableResources(const Device& device,
                                      const FieldPath& path,
                                      ErrorList& errors) {
  std::string key_storage;
  for (const auto& [name, resource] : device.node_allocatable_resources) {
    const FieldPath item = path.Key(PathKey(name, key_storage));
    if (!IsNodeAllocatableResourceName(name)) {
      errors.push_back(Invalid(
          item, QuoteValue(name),
          "must be a node allocatable resource (cpu, memory, "
          "ephemeral-storage or hugepages-<size>), not an extended resource"));
    }
    if (!resource.mapping && !resource.overhead) {
      errors.push_back(Required(
          item, "at least one of `mapping` or `overhead` is required"));
    }
    if (resource.mapping) {
      ValidateNodeAllocatableMapping(*resource.mapping, device,
                                     item.Child("mapping"), errors);
    }
    if (resource.overhead) {
      const FieldPath overhead = item.Child("overhead");
      if (!resource.overhead->per_pod && !resource.overhead->per_container) {
        errors.push_back(
            Required(overhead,
                     "at least one of `perPod` or `perContainer` is required"));
      }
      ValidateNonNegative(resource.overhead->per_pod, overhead.Child("perPod"),
                          errors);
      ValidateNonNegative(resource.overhead->per_container,
                          overhead.Child("perContainer"), errors);
    }
  }
}

void ValidateDevice(const Device& device, bool per_device_node_selection,
                    ValidNames& attribute_names, ValidNames& capacity_names,
                    const FieldPath& path, ErrorList& errors) {
  ValidateDeviceName(device.name, path.Child("name"), errors);

  int64_t attributes_and_capacities =
      Size(device.attributes.size() + device.capacity.size());
  if (attributes_and_capacities >
      kResourceSliceMaxAttributesAndCapacitiesPerDevice) {
    errors.push_back(Invalid(
        path, std::to_string(attributes_and_capacities),
        fmt::format("the total number of attributes and capacities must not "
                    "exceed {}",
                    kResourceSliceMaxAttributesAndCapacitiesPerDevice)));
  }
  int64_t values = NumAttributeValues(device);
  if (values > kResourceSliceMaxAttributeValuesPerDevice) {
    errors.push_back(Invalid(
        path, std::to_string(values),
        fmt::format("the total number of attribute values must not exceed {}",
                    kResourceSliceMaxAttributeValuesPerDevice)));
  }

  // Like upstream, key errors are reported at the map, value errors at the
  // (possibly shortened) key.
  FieldPath attributes_path = path.Child("attributes");
  std::string key_storage;
  size_t position = 0;
  for (const auto& [name, attribute] : device.attributes) {
    attribute_names.Check(position++, name, attributes_path, errors);
    ValidateDeviceAttribute(
        attribute, attributes_path.Key(PathKey(name, key_storage)), errors);
  }
  const bool allow_multiple = device.allow_multiple_allocations.value_or(false);
  FieldPath capacity_path = path.Child("capacity");
  position = 0;
  for (const auto& [name, capacity] : device.capacity) {
    capacity_names.Check(position++, name, capacity_path, errors);
    ValidateDeviceCapacity(capacity, allow_multiple,
                           capacity_path.Key(PathKey(name, key_storage)),
                           errors);
  }

  FieldPath taints_path = path.Child("taints");
  if (Size(device.taints.size()) > kDeviceTaintsMaxLength) {
    errors.push_back(TooMany(taints_path, Size(device.taints.size()),
                             kDeviceTaintsMaxLength));
  } else {
    for (size_t i = 0; i < device.taints.size(); ++i) {
      ValidateDeviceTaint(device.taints[i], taints_path.Index(Size(i)), errors);
    }
  }

  ValidateConsumesCounters(device.consumes_counters,
                           path.Child("consumesCounters"), errors);
  ValidatePerDeviceNodeSelection(device, per_device_node_selection, path,
                                 errors);
  ValidateDeviceBindingConditions(device.binding_conditions,
                                  device.binding_failure_conditions, path,
                                  errors);
  ValidateNodeAllocatableResources(
      device, path.Child("nodeAllocatableResources"), errors);
}

void ValidateNodeSelection(const ResourceSliceSpec& spec, const FieldPath& path,
                           ErrorList& errors) {
  std::vector<std::string_view> set_fields;
  if (spec.node_name.has_value()) {
    FieldPath node_name_path = path.Child("nodeName");
    if (!spec.node_name->empty()) {
      set_fields.push_back("`nodeName`");
      ValidateDns1123Subdomain(*spec.node_name, node_name_path, errors);
    } else {
      errors.push_back(
          InvalidString(node_name_path, "",
                        "must be either unset or set to a non-empty string"));
    }
  }
  if (spec.node_selector.has_value()) {
    set_fields.push_back("`nodeSelector`");
    FieldPath selector_path = path.Child("nodeSelector");
    ValidateNodeSelector(*spec.node_selector, selector_path, errors);
    if (spec.node_selector->node_selector_terms.size() != 1) {
      // Simplifies merging selectors of devices allocated from different
      // slices.
      errors.push_back(Invalid(
          selector_path.Child("nodeSelectorTerms"),
          std::to_string(spec.node_selector->node_selector_terms.size()),
          "must have exactly one node selector term"));
    }
  }
  if (spec.all_nodes.has_value()) {
    if (*spec.all_nodes) {
      set_fields.push_back("`allNodes`");
    } else {
      errors.push_back(Invalid(path.Child("allNodes"), "false",
                               "must be either unset or set to true"));
    }
  }
  if (spec.per_device_node_selection.has_value()) {
    if (*spec.per_device_node_selection) {
      set_fields.push_back("`perDeviceNodeSelection`");
    } else {
      errors.push_back(Invalid(path.Child("perDeviceNodeSelection"), "false",
                               "must be either unset or set to true"));
    }
  }
  constexpr std::string_view kExactlyOne =
      "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
      "`perDeviceNodeSelection` is "
      "required";
  if (set_fields.empty()) {
    errors.push_back(Required(path, std::string(kExactlyOne)));
  } else if (set_fields.size() > 1) {
    errors.push_back(InvalidString(
        path, JoinFields(set_fields),
        std::string(kExactlyOne) + ", but multiple fields are set"));
  }
}

// KEP-5945: a set of known operations, and preparation skipped only where
// unpreparation is too (a pod must not hang in Terminating waiting for a
// node-local driver that was never needed to start it).
void ValidateSkipNodeOperations(const std::vector<std::string>& operations,
                                const FieldPath& path, ErrorList& errors) {
  std::set<std::string_view> seen;
  for (size_t i = 0; i < operations.size(); ++i) {
    const std::string& operation = operations[i];
    const FieldPath item = path.Index(Size(i));
    if (operation != "NodePrepareResources" &&
        operation != "NodeUnprepareResources" && operation != "*") {
      errors.push_back(NotSupported(
          item, operation,
          {"*", "NodePrepareResources", "NodeUnprepareResources"}));
    }
    if (!seen.insert(operation).second) {
      errors.push_back(Duplicate(item, QuoteValue(operation)));
    }
  }
  if (seen.contains("NodePrepareResources") &&
      !seen.contains("NodeUnprepareResources") && !seen.contains("*")) {
    errors.push_back(InvalidString(
        path, "NodePrepareResources",
        "\"NodePrepareResources\" may only be skipped together with "
        "\"NodeUnprepareResources\" (or \"*\")"));
  }
}

// The value of attribute `name` ("domain/id") on `device`: written in full,
// or as the bare id when the domain is the slice's driver.
const DeviceAttribute* FindAttribute(const Device& device,
                                     std::string_view driver,
                                     std::string_view name) {
  if (auto it = device.attributes.find(std::string(name));
      it != device.attributes.end()) {
    return &it->second;
  }
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos || name.substr(0, slash) != driver) {
    return nullptr;
  }
  auto it = device.attributes.find(std::string(name.substr(slash + 1)));
  return it == device.attributes.end() ? nullptr : &it->second;
}

// KEP-5677 spec.partitionTypeAttribute: a fully qualified name, set only on
// a slice with counter-consuming devices, each of which carries it as a
// string. Rules across slices (equal costs per type, shared counters
// present) are the pool status controller's validationErrors.
void ValidatePartitionTypeAttribute(const ResourceSliceSpec& spec,
                                    const FieldPath& path, ErrorList& errors) {
  const std::string& name = *spec.partition_type_attribute;
  const FieldPath field = path.Child("partitionTypeAttribute");
  const size_t before = errors.size();
  ValidateFullyQualifiedName(name, field, errors);
  if (errors.size() != before) return;
  bool any_consumer = false;
  for (size_t i = 0; i < spec.devices.size(); ++i) {
    const Device& device = spec.devices[i];
    if (device.consumes_counters.empty()) continue;
    any_consumer = true;
    // A FieldPath points at its parent: every level stays alive.
    const FieldPath devices_path = path.Child("devices");
    const FieldPath device_path = devices_path.Index(Size(i));
    const FieldPath attributes_path = device_path.Child("attributes");
    const FieldPath attribute_path = attributes_path.Key(name);
    const DeviceAttribute* value = FindAttribute(device, spec.driver, name);
    if (value == nullptr) {
      errors.push_back(Required(attribute_path,
                                "devices that consume counters must carry the "
                                "partitionTypeAttribute"));
    } else if (!value->string_value.has_value()) {
      errors.push_back(Invalid(attribute_path, "",
                               "the partitionTypeAttribute must be a string "
                               "attribute"));
    }
  }
  if (!any_consumer) {
    errors.push_back(InvalidString(
        field, name,
        "may only be set when at least one device consumes counters"));
  }
}

}  // namespace

ErrorList ValidateResourceSlice(const ResourceSlice& slice) {
  ErrorList errors = ObjectMetaErrors(slice.metadata, /*namespaced=*/false);

  const ResourceSliceSpec& spec = slice.spec;
  FieldPath path("spec");
  ValidateDriverName(spec.driver, path.Child("driver"), errors);

  FieldPath pool_path = path.Child("pool");
  ValidatePoolName(spec.pool.name, pool_path.Child("name"), errors);
  if (spec.pool.resource_slice_count <= 0) {
    errors.push_back(Invalid(pool_path.Child("resourceSliceCount"),
                             std::to_string(spec.pool.resource_slice_count),
                             "must be greater than zero"));
  }
  if (spec.pool.generation < 0) {
    errors.push_back(Invalid(pool_path.Child("generation"),
                             std::to_string(spec.pool.generation),
                             "must be greater than or equal to zero"));
  }

  ValidateNodeSelection(spec, path, errors);

  if (!spec.shared_counters.empty() && !spec.devices.empty()) {
    errors.push_back(InvalidString(
        path, "", "only one of `sharedCounters` or `devices` is allowed"));
  }

  FieldPath devices_path = path.Child("devices");
  const int64_t max_devices = MaxDevices(spec);
  if (Size(spec.devices.size()) > max_devices) {
    // Upstream reports only the size for oversized lists.
    errors.push_back(
        TooMany(devices_path, Size(spec.devices.size()), max_devices));
  } else {
    const bool per_device = spec.per_device_node_selection.value_or(false);
    std::set<std::string_view> names;
    ValidNames attribute_names;
    ValidNames capacity_names;
    for (size_t i = 0; i < spec.devices.size(); ++i) {
      ValidateDevice(spec.devices[i], per_device, attribute_names,
                     capacity_names, devices_path.Index(Size(i)), errors);
    }
    for (size_t i = 0; i < spec.devices.size(); ++i) {
      if (!names.insert(spec.devices[i].name).second) {
        errors.push_back(Duplicate(devices_path.Index(Size(i)),
                                   QuoteValue(spec.devices[i].name)));
      }
    }
  }

  ValidateSharedCounters(spec.shared_counters, path.Child("sharedCounters"),
                         errors);
  ValidateSkipNodeOperations(spec.skip_node_operations,
                             path.Child("skipNodeOperations"), errors);
  if (spec.partition_type_attribute.has_value()) {
    ValidatePartitionTypeAttribute(spec, path, errors);
  }
  return errors;
}

}  // namespace dralloc::api
