#include "scheduler/extended_resource_claim.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace dralloc::scheduler {
namespace {

// Whether `candidate` replaces `current` for the same resource name: newer
// creation first, then the smaller name.
bool PreferredClass(const api::DeviceClass& candidate,
                    const api::DeviceClass& current) {
  const auto& a = candidate.metadata.creation_timestamp;
  const auto& b = current.metadata.creation_timestamp;
  std::string a_time = a.value_or(std::string());
  std::string b_time = b.value_or(std::string());
  if (a_time != b_time) return a_time > b_time;
  return candidate.metadata.name < current.metadata.name;
}

void AddClass(const std::string& resource, const api::DeviceClass& device_class,
              std::map<std::string, const api::DeviceClass*>& chosen) {
  auto [it, inserted] = chosen.emplace(resource, &device_class);
  if (!inserted && PreferredClass(device_class, *it->second)) {
    it->second = &device_class;
  }
}

// The mapped requests of one container, numbered by `container_index`.
void AppendContainerRequests(const api::Container& container,
                             size_t container_index, const api::Node& node,
                             const ExtendedResourceClasses& classes,
                             std::vector<ExtendedResourceRequest>& out) {
  // A request's index is its resource's place among all of the container's
  // requests in name order (std::map order), mapped or not, as upstream
  // numbers them.
  size_t next_index = 0;
  for (const auto& [resource, quantity] : container.resources.requests) {
    const size_t request_index = next_index++;
    if (quantity.Sign() <= 0) continue;
    auto cls = classes.find(resource);
    if (cls == classes.end()) continue;
    if (node.status.allocatable.contains(resource)) continue;
    ExtendedResourceRequest request;
    request.mapping.container_name = container.name;
    request.mapping.resource_name = resource;
    request.mapping.request_name =
        fmt::format("container-{}-request-{}", container_index, request_index);
    request.device_class_name = cls->second;
    request.count = quantity.Value();
    out.push_back(std::move(request));
  }
}

}  // namespace

ExtendedResourceClasses MapExtendedResourceClasses(
    const std::vector<api::DeviceClass>& classes) {
  std::map<std::string, const api::DeviceClass*> chosen;
  for (const api::DeviceClass& device_class : classes) {
    if (device_class.metadata.deletion_timestamp.has_value()) continue;
    AddClass(std::string(kImplicitExtendedResourcePrefix) +
                 device_class.metadata.name,
             device_class, chosen);
    const auto& explicit_name = device_class.spec.extended_resource_name;
    if (explicit_name.has_value() && !explicit_name->empty()) {
      AddClass(*explicit_name, device_class, chosen);
    }
  }
  ExtendedResourceClasses result;
  for (const auto& [resource, device_class] : chosen) {
    result.emplace(resource, device_class->metadata.name);
  }
  return result;
}

std::vector<ExtendedResourceRequest> DraBackedExtendedResources(
    const api::Pod& pod, const api::Node& node,
    const ExtendedResourceClasses& classes) {
  std::vector<ExtendedResourceRequest> requests;
  size_t index = 0;
  for (const api::Container& container : pod.spec.init_containers) {
    AppendContainerRequests(container, index++, node, classes, requests);
  }
  for (const api::Container& container : pod.spec.containers) {
    AppendContainerRequests(container, index++, node, classes, requests);
  }
  return requests;
}

bool RequestsMappedExtendedResource(const api::Pod& pod,
                                    const ExtendedResourceClasses& classes) {
  api::Node no_allocatable;
  return !DraBackedExtendedResources(pod, no_allocatable, classes).empty();
}

api::ResourceClaim BuildExtendedResourceClaim(
    const api::Pod& pod, const std::vector<ExtendedResourceRequest>& requests) {
  api::ResourceClaim claim;
  claim.api_version = "resource.k8s.io/v1";
  claim.kind = "ResourceClaim";
  claim.metadata.generate_name = pod.metadata.name + "-extended-resources-";
  claim.metadata.namespace_ = pod.metadata.namespace_;
  claim.metadata.annotations[std::string(kExtendedResourceClaimAnnotation)] =
      "true";
  api::OwnerReference owner;
  owner.api_version = "v1";
  owner.kind = "Pod";
  owner.name = pod.metadata.name;
  owner.uid = pod.metadata.uid;
  owner.controller = true;
  owner.block_owner_deletion = true;
  claim.metadata.owner_references.push_back(std::move(owner));
  for (const ExtendedResourceRequest& request : requests) {
    api::DeviceRequest device_request;
    device_request.name = request.mapping.request_name;
    api::ExactDeviceRequest exactly;
    exactly.device_class_name = request.device_class_name;
    exactly.allocation_mode = "ExactCount";
    exactly.count = request.count;
    device_request.exactly = std::move(exactly);
    claim.spec.devices.requests.push_back(std::move(device_request));
  }
  // Upstream orders the claim's requests by name (a plain string order).
  std::ranges::sort(claim.spec.devices.requests, {}, &api::DeviceRequest::name);
  return claim;
}

api::PodExtendedResourceClaimStatus ExtendedResourceClaimStatusFor(
    std::string claim_name,
    const std::vector<ExtendedResourceRequest>& requests) {
  api::PodExtendedResourceClaimStatus status;
  status.resource_claim_name = std::move(claim_name);
  for (const ExtendedResourceRequest& request : requests) {
    status.request_mappings.push_back(request.mapping);
  }
  return status;
}

}  // namespace dralloc::scheduler
