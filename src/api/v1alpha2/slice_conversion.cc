#include "api/v1alpha2/slice_conversion.h"

#include <fmt/format.h>

#include <utility>

#include "api/validation/validation.h"

namespace dralloc::api::v1alpha2 {
namespace {

api::Device ToV1Device(const NamedResourcesInstance& instance) {
  api::Device device;
  device.name = instance.name;
  for (const NamedResourcesAttribute& a : instance.attributes) {
    if (a.quantity) {
      device.capacity[a.name].value = *a.quantity;
      continue;
    }
    api::DeviceAttribute attribute;
    if (a.bool_value) attribute.bool_value = *a.bool_value;
    if (a.int_value) attribute.int_value = *a.int_value;
    if (a.string_value) attribute.string_value = *a.string_value;
    if (a.version) attribute.version_value = *a.version;
    if (a.int_slice) attribute.ints = a.int_slice->ints;
    if (a.string_slice) attribute.strings = a.string_slice->strings;
    device.attributes[a.name] = std::move(attribute);
  }
  return device;
}

}  // namespace

StatusOr<api::ResourceSlice> ToV1ResourceSlice(const ResourceSlice& slice) {
  const std::string display = fmt::format(
      "ResourceSlice {} (resource.k8s.io/v1alpha2)", slice.metadata.name);
  if (slice.node_name.empty()) {
    return InvalidArgumentError(fmt::format(
        "{}: nodeName: Required value: a slice of no node has no "
        "resource.k8s.io/v1 form (Kubernetes 1.30 never allocated from one)",
        display));
  }
  if (!slice.named_resources) {
    return InvalidArgumentError(fmt::format(
        "{}: namedResources: Required value: only the namedResources model "
        "converts",
        display));
  }
  api::ResourceSlice out;
  out.api_version = "resource.k8s.io/v1";
  out.kind = "ResourceSlice";
  out.metadata.name = slice.metadata.name;
  out.metadata.labels = slice.metadata.labels;
  out.metadata.annotations = slice.metadata.annotations;
  out.spec.driver = slice.driver_name;
  out.spec.node_name = slice.node_name;
  out.spec.pool.name = slice.node_name;
  out.spec.pool.generation = 0;
  out.spec.pool.resource_slice_count = 1;
  for (const NamedResourcesInstance& instance :
       slice.named_resources->instances) {
    out.spec.devices.push_back(ToV1Device(instance));
  }
  // 1.30 names (DNS subdomains such as "driver-version") are not always v1
  // names (C identifiers of at most 32 characters).
  const ErrorList errors = api::ValidateResourceSlice(out);
  if (!errors.empty()) {
    return InvalidArgumentError(
        fmt::format("{}: its resource.k8s.io/v1 form is not valid: {}", display,
                    api::ToString(errors)));
  }
  return out;
}

}  // namespace dralloc::api::v1alpha2
