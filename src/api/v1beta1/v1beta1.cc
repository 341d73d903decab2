#include "api/v1beta1/v1beta1.h"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "api/codec.h"

namespace dralloc::api::v1beta1 {
namespace {

// Upstream's hasAnyMainRequestFieldsSet: any of these makes the request an
// `exactly` request. Optional lists count as set even when empty (Go non-nil).
bool HasExactFields(const DeviceRequest& in) {
  return !in.device_class_name.empty() || in.selectors.has_value() ||
         !in.allocation_mode.empty() || in.count != 0 ||
         in.admin_access.has_value() || in.tolerations.has_value() ||
         in.capacity.has_value() || !in.derived_attributes.empty();
}

template <typename Wire>
void DecodeConverted(JsonElement element, DecodeContext& ctx,
                     std::optional<Object>& out) {
  if (std::optional<Wire> wire = DecodeRoot<Wire>(element, ctx))
    out.emplace(ToHub(*wire));
}

void DecodeDeviceClass(JsonElement element, DecodeContext& ctx,
                       std::optional<Object>& out) {
  // Same wire shape as v1.
  if (std::optional<DeviceClass> device_class =
          DecodeRoot<DeviceClass>(element, ctx)) {
    out.emplace(*std::move(device_class));
  }
}

std::vector<DeviceRequest> RequestsFromHub(
    const std::vector<api::DeviceRequest>& in) {
  std::vector<DeviceRequest> out;
  out.reserve(in.size());
  for (const api::DeviceRequest& request : in) out.push_back(FromHub(request));
  return out;
}

std::vector<api::DeviceRequest> RequestsToHub(
    const std::vector<DeviceRequest>& in) {
  std::vector<api::DeviceRequest> out;
  out.reserve(in.size());
  for (const DeviceRequest& request : in) out.push_back(ToHub(request));
  return out;
}

api::ResourceClaimSpec ClaimSpecToHub(const ResourceClaimSpec& in) {
  api::ResourceClaimSpec out;
  out.devices.requests = RequestsToHub(in.devices.requests);
  out.devices.constraints = in.devices.constraints;
  out.devices.config = in.devices.config;
  return out;
}

ResourceClaimSpec ClaimSpecFromHub(const api::ResourceClaimSpec& in) {
  ResourceClaimSpec out;
  out.devices.requests = RequestsFromHub(in.devices.requests);
  out.devices.constraints = in.devices.constraints;
  out.devices.config = in.devices.config;
  return out;
}

}  // namespace

bool Serves(std::string_view kind) {
  return kind == "DeviceClass" || kind == "ResourceSlice" ||
         kind == "ResourceClaim" || kind == "ResourceClaimTemplate";
}

// ---- v1beta1 → hub ----

api::Device ToHub(const Device& in) {
  api::Device out;
  out.name = in.name;
  if (!in.basic.has_value()) return out;
  const BasicDevice& basic = *in.basic;
  out.attributes = basic.attributes;
  out.capacity = basic.capacity;
  out.consumes_counters = basic.consumes_counters;
  out.node_name = basic.node_name;
  out.node_selector = basic.node_selector;
  out.all_nodes = basic.all_nodes;
  out.taints = basic.taints;
  out.binds_to_node = basic.binds_to_node;
  out.binding_conditions = basic.binding_conditions;
  out.binding_failure_conditions = basic.binding_failure_conditions;
  out.allow_multiple_allocations = basic.allow_multiple_allocations;
  out.node_allocatable_resources = basic.node_allocatable_resources;
  return out;
}

api::DeviceRequest ToHub(const DeviceRequest& in) {
  api::DeviceRequest out;
  out.name = in.name;
  out.first_available = in.first_available;
  if (HasExactFields(in)) {
    ExactDeviceRequest& exact = out.exactly.emplace();
    exact.device_class_name = in.device_class_name;
    if (in.selectors.has_value()) exact.selectors = *in.selectors;
    exact.allocation_mode = in.allocation_mode;
    exact.count = in.count;
    exact.admin_access = in.admin_access;
    if (in.tolerations.has_value()) exact.tolerations = *in.tolerations;
    exact.capacity = in.capacity;
    exact.derived_attributes = in.derived_attributes;
  }
  return out;
}

api::ResourceSlice ToHub(const ResourceSlice& in) {
  api::ResourceSlice out;
  out.api_version = in.api_version;
  out.kind = in.kind;
  out.metadata = in.metadata;
  const ResourceSliceSpec& spec = in.spec;
  out.spec.driver = spec.driver;
  out.spec.pool = spec.pool;
  if (!spec.node_name.empty()) out.spec.node_name = spec.node_name;
  out.spec.node_selector = spec.node_selector;
  if (spec.all_nodes) out.spec.all_nodes = true;
  out.spec.devices.reserve(spec.devices.size());
  for (const Device& device : spec.devices)
    out.spec.devices.push_back(ToHub(device));
  out.spec.per_device_node_selection = spec.per_device_node_selection;
  out.spec.shared_counters = spec.shared_counters;
  out.spec.skip_node_operations = spec.skip_node_operations;
  out.spec.partition_type_attribute = spec.partition_type_attribute;
  return out;
}

api::ResourceClaim ToHub(const ResourceClaim& in) {
  api::ResourceClaim out;
  out.api_version = in.api_version;
  out.kind = in.kind;
  out.metadata = in.metadata;
  out.spec = ClaimSpecToHub(in.spec);
  out.status = in.status;
  return out;
}

api::ResourceClaimTemplate ToHub(const ResourceClaimTemplate& in) {
  api::ResourceClaimTemplate out;
  out.api_version = in.api_version;
  out.kind = in.kind;
  out.metadata = in.metadata;
  out.spec.metadata = in.spec.metadata;
  out.spec.spec = ClaimSpecToHub(in.spec.spec);
  return out;
}

// ---- hub → v1beta1 ----

Device FromHub(const api::Device& in) {
  Device out;
  out.name = in.name;
  BasicDevice& basic = out.basic.emplace();  // Always, as upstream.
  basic.attributes = in.attributes;
  basic.capacity = in.capacity;
  basic.consumes_counters = in.consumes_counters;
  basic.node_name = in.node_name;
  basic.node_selector = in.node_selector;
  basic.all_nodes = in.all_nodes;
  basic.taints = in.taints;
  basic.binds_to_node = in.binds_to_node;
  basic.binding_conditions = in.binding_conditions;
  basic.binding_failure_conditions = in.binding_failure_conditions;
  basic.allow_multiple_allocations = in.allow_multiple_allocations;
  basic.node_allocatable_resources = in.node_allocatable_resources;
  return out;
}

DeviceRequest FromHub(const api::DeviceRequest& in) {
  DeviceRequest out;
  out.name = in.name;
  out.first_available = in.first_available;
  if (in.exactly.has_value()) {
    const ExactDeviceRequest& exact = *in.exactly;
    out.device_class_name = exact.device_class_name;
    if (!exact.selectors.empty()) out.selectors = exact.selectors;
    out.allocation_mode = exact.allocation_mode;
    out.count = exact.count;
    out.admin_access = exact.admin_access;
    if (!exact.tolerations.empty()) out.tolerations = exact.tolerations;
    out.capacity = exact.capacity;
    out.derived_attributes = exact.derived_attributes;
    // An `exactly` with every field empty: `selectors: []` keeps it an
    // `exactly` request when read back (here and upstream).
    if (!HasExactFields(out)) out.selectors.emplace();
  }
  return out;
}

StatusOr<ResourceSlice> FromHub(const api::ResourceSlice& in) {
  const api::ResourceSliceSpec& spec = in.spec;
  if (spec.node_name.has_value() && spec.node_name->empty()) {
    return InvalidArgumentError(
        fmt::format("spec.nodeName: an empty node name cannot be expressed in "
                    "{}, where it means unset",
                    kResourceV1beta1));
  }
  if (spec.all_nodes.has_value() && !*spec.all_nodes) {
    return InvalidArgumentError(fmt::format(
        "spec.allNodes: false cannot be expressed in {}, where it means unset",
        kResourceV1beta1));
  }
  ResourceSlice out;
  out.api_version = in.api_version;
  out.kind = in.kind;
  out.metadata = in.metadata;
  out.spec.driver = spec.driver;
  out.spec.pool = spec.pool;
  out.spec.node_name = spec.node_name.value_or("");
  out.spec.node_selector = spec.node_selector;
  out.spec.all_nodes = spec.all_nodes.value_or(false);
  out.spec.devices.reserve(spec.devices.size());
  for (const api::Device& device : spec.devices)
    out.spec.devices.push_back(FromHub(device));
  out.spec.per_device_node_selection = spec.per_device_node_selection;
  out.spec.shared_counters = spec.shared_counters;
  out.spec.skip_node_operations = spec.skip_node_operations;
  out.spec.partition_type_attribute = spec.partition_type_attribute;
  return out;
}

ResourceClaim FromHub(const api::ResourceClaim& in) {
  ResourceClaim out;
  out.api_version = in.api_version;
  out.kind = in.kind;
  out.metadata = in.metadata;
  out.spec = ClaimSpecFromHub(in.spec);
  out.status = in.status;
  return out;
}

ResourceClaimTemplate FromHub(const api::ResourceClaimTemplate& in) {
  ResourceClaimTemplate out;
  out.api_version = in.api_version;
  out.kind = in.kind;
  out.metadata = in.metadata;
  out.spec.metadata = in.spec.metadata;
  out.spec.spec = ClaimSpecFromHub(in.spec.spec);
  return out;
}

// ---- Codec entry points ----

void Decode(std::string_view kind, JsonElement element, DecodeContext& ctx,
            std::optional<Object>& out) {
  if (kind == "DeviceClass") {
    DecodeDeviceClass(element, ctx, out);
  } else if (kind == "ResourceSlice") {
    DecodeConverted<ResourceSlice>(element, ctx, out);
  } else if (kind == "ResourceClaim") {
    DecodeConverted<ResourceClaim>(element, ctx, out);
  } else if (kind == "ResourceClaimTemplate") {
    DecodeConverted<ResourceClaimTemplate>(element, ctx, out);
  } else {
    ctx.errors().push_back(
        {FieldErrorType::kInvalid, "", "",
         fmt::format("no matches for kind \"{}\" in version \"{}\"", kind,
                     kResourceV1beta1)});
  }
}

StatusOr<Json> Encode(const Object& object) {
  const std::string_view kind = KindOf(object);
  if (const auto* device_class = std::get_if<DeviceClass>(&object)) {
    return WithTypeHeader(EncodeValue(*device_class), kResourceV1beta1, kind);
  }
  if (const auto* slice = std::get_if<api::ResourceSlice>(&object)) {
    StatusOr<ResourceSlice> wire = FromHub(*slice);
    if (!wire.ok()) return wire.status();
    return WithTypeHeader(EncodeValue(*wire), kResourceV1beta1, kind);
  }
  if (const auto* claim = std::get_if<api::ResourceClaim>(&object)) {
    return WithTypeHeader(EncodeValue(FromHub(*claim)), kResourceV1beta1, kind);
  }
  if (const auto* claim_template =
          std::get_if<api::ResourceClaimTemplate>(&object)) {
    return WithTypeHeader(EncodeValue(FromHub(*claim_template)),
                          kResourceV1beta1, kind);
  }
  return InvalidArgumentError(fmt::format("{} is not served in version \"{}\"",
                                          kind, kResourceV1beta1));
}

}  // namespace dralloc::api::v1beta1
