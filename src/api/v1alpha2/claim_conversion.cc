#include "api/v1alpha2/claim_conversion.h"

#include <fmt/format.h>

#include "api/v1alpha2/selector_conversion.h"

namespace dralloc::api::v1alpha2 {
namespace {

api::DeviceSelector Cel(std::string expression) {
  return api::DeviceSelector{api::CELDeviceSelector{std::move(expression)}};
}

api::OpaqueDeviceConfiguration Opaque(const std::string& driver,
                                      const RawJson& parameters) {
  return {driver, parameters};
}

}  // namespace

StatusOr<api::DeviceClass> ToV1DeviceClass(
    const ResourceClass& resource_class,
    const ResourceClassParameters* parameters) {
  api::DeviceClass out;
  out.metadata.name = resource_class.metadata.name;
  out.metadata.labels = resource_class.metadata.labels;
  out.metadata.annotations = resource_class.metadata.annotations;
  const std::string& driver = resource_class.driver_name;
  out.spec.selectors.push_back(
      Cel(fmt::format("device.driver == \"{}\"", driver)));
  if (parameters == nullptr) return out;
  for (size_t i = 0; i < parameters->filters.size(); ++i) {
    const ResourceFilter& filter = parameters->filters[i];
    if (filter.driver_name != driver || !filter.named_resources) continue;
    StatusOr<std::string> selector =
        ToV1Selector(filter.named_resources->selector, driver);
    if (!selector.ok()) {
      return selector.status().WithPrefix(
          fmt::format("filters[{}].namedResources", i));
    }
    out.spec.selectors.push_back(Cel(*std::move(selector)));
    break;  // 1.30 used the driver's first filter
  }
  for (const VendorParameters& vendor : parameters->vendor_parameters) {
    if (vendor.driver_name != driver || !vendor.parameters) continue;
    out.spec.config.push_back({Opaque(driver, *vendor.parameters)});
    break;
  }
  return out;
}

StatusOr<api::ResourceClaimSpec> ToV1ClaimSpec(
    const ResourceClass& resource_class,
    const ResourceClaimParameters* parameters, std::vector<std::string>& lost) {
  api::ResourceClaimSpec out;
  const std::string& driver = resource_class.driver_name;
  if (parameters == nullptr) {
    // 1.30's default: any one instance of the class's driver, shareable.
    api::DeviceRequest request;
    request.name = "r0-0";
    request.exactly.emplace();
    request.exactly->device_class_name = resource_class.metadata.name;
    request.exactly->allocation_mode = "ExactCount";
    request.exactly->count = 1;
    out.devices.requests.push_back(std::move(request));
    return out;
  }
  if (!parameters->shareable) lost.push_back("shareable: false");
  for (size_t i = 0; i < parameters->driver_requests.size(); ++i) {
    const DriverRequests& requests = parameters->driver_requests[i];
    const std::string at = fmt::format("driverRequests[{}]", i);
    if (requests.driver_name != driver) {
      return InvalidArgumentError(fmt::format(
          "{}.driverName: Invalid value: \"{}\": a v1 request takes devices "
          "of the class's driver {} only",
          at, requests.driver_name, driver));
    }
    std::vector<std::string> names;
    for (size_t e = 0; e < requests.requests.size(); ++e) {
      const ResourceRequest& request = requests.requests[e];
      const std::string field = fmt::format("{}.requests[{}]", at, e);
      if (!request.named_resources) {
        return InvalidArgumentError(fmt::format(
            "{}.namedResources: Required value: no other model converts",
            field));
      }
      StatusOr<std::string> selector =
          ToV1Selector(request.named_resources->selector, driver);
      if (!selector.ok()) {
        return selector.status().WithPrefix(field + ".namedResources");
      }
      api::DeviceRequest converted;
      converted.name = fmt::format("r{}-{}", i, e);
      converted.exactly.emplace();
      converted.exactly->device_class_name = resource_class.metadata.name;
      converted.exactly->allocation_mode = "ExactCount";
      converted.exactly->count = 1;
      if (*selector != "true") {
        converted.exactly->selectors.push_back(Cel(*std::move(selector)));
      }
      if (request.vendor_parameters) {
        out.devices.config.push_back(
            {{converted.name}, Opaque(driver, *request.vendor_parameters)});
      }
      names.push_back(converted.name);
      out.devices.requests.push_back(std::move(converted));
    }
    if (requests.vendor_parameters && !names.empty()) {
      // Applies to the driver's requests, before their own (later wins).
      out.devices.config.insert(
          out.devices.config.begin(),
          {names, Opaque(driver, *requests.vendor_parameters)});
    }
  }
  return out;
}

}  // namespace dralloc::api::v1alpha2
