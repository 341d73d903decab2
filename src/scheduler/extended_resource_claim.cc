#include "scheduler/extended_resource_claim.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>

namespace dralloc::scheduler {
namespace {

using Mapping = api::ContainerExtendedResourceRequest;

// Whether `candidate` replaces `current` for the same resource name: newer
// creation first, then the smaller name.
bool PreferredClass(const api::DeviceClass& candidate,
                    const api::DeviceClass& current) {
  const std::string a_time =
      candidate.metadata.creation_timestamp.value_or(std::string());
  const std::string b_time =
      current.metadata.creation_timestamp.value_or(std::string());
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

// The container's request of `resource` when it is a positive whole number
// (upstream's Quantity.AsInt64), else 0.
int64_t WholeRequest(const api::Container& container,
                     const std::string& resource) {
  auto it = container.resources.requests.find(resource);
  if (it == container.resources.requests.end()) return 0;
  const Quantity& quantity = it->second;
  if (quantity.Sign() <= 0) return 0;
  const int64_t value = quantity.Value();
  return quantity.Compare(Quantity::FromInt64(value)) == 0 ? value : 0;
}

// The place of `resource` among all of the container's requests in name
// order, as upstream numbers requests.
size_t ResourceIndex(const api::Container& container,
                     const std::string& resource) {
  size_t index = 0;
  for (const auto& [name, quantity] : container.resources.requests) {
    if (name == resource) return index;
    ++index;
  }
  return index;
}

bool IsRestartableInit(const api::Container& container) {
  return container.restart_policy.has_value() &&
         *container.restart_policy == "Always";
}

// One container's share of `resource`: the requests of `reusable` it maps
// first (until they cover what it asks), then a request of its own for the
// rest, if any.
struct ContainerShare {
  std::optional<api::DeviceRequest> request;
  std::vector<Mapping> mappings;
};
ContainerShare ShareOf(
    size_t index, const api::Container& container, const std::string& resource,
    const std::string& device_class,
    std::span<const std::optional<api::DeviceRequest>> reusable) {
  ContainerShare share;
  const int64_t wanted = WholeRequest(container, resource);
  if (wanted == 0) return share;
  int64_t covered = 0;
  for (const auto& request : reusable) {
    if (!request.has_value()) continue;
    covered += request->exactly->count;
    share.mappings.push_back({container.name, resource, request->name});
    if (covered >= wanted) return share;
  }
  api::DeviceRequest own;
  own.name = fmt::format("container-{}-request-{}", index,
                         ResourceIndex(container, resource));
  api::ExactDeviceRequest exactly;
  exactly.device_class_name = device_class;
  exactly.allocation_mode = "ExactCount";
  exactly.count = wanted - covered;
  own.exactly = std::move(exactly);
  share.mappings.push_back({container.name, resource, own.name});
  share.request = std::move(own);
  return share;
}

// The requests and mappings of one resource over all containers.
void PlanResource(const std::vector<const api::Container*>& containers,
                  size_t init_count, const std::string& resource,
                  const std::string& device_class,
                  ExtendedResourceClaimPlan& plan) {
  std::vector<std::optional<api::DeviceRequest>> long_lived(containers.size());
  std::vector<Mapping> long_mappings;
  for (size_t i = 0; i < containers.size(); ++i) {
    if (i < init_count && !IsRestartableInit(*containers[i])) continue;
    ContainerShare share =
        ShareOf(i, *containers[i], resource, device_class, {});
    long_lived[i] = std::move(share.request);
    long_mappings.insert(long_mappings.end(), share.mappings.begin(),
                         share.mappings.end());
  }
  std::optional<api::DeviceRequest> largest_init;
  std::set<std::string> init_request_names;
  std::vector<Mapping> init_mappings;
  for (size_t i = 0; i < init_count; ++i) {
    if (IsRestartableInit(*containers[i])) continue;
    ContainerShare share = ShareOf(i, *containers[i], resource, device_class,
                                   std::span(long_lived).subspan(i));
    if (share.request.has_value()) {
      init_request_names.insert(share.request->name);
      if (!largest_init.has_value() ||
          largest_init->exactly->count < share.request->exactly->count) {
        largest_init = std::move(share.request);
      }
    }
    init_mappings.insert(init_mappings.end(), share.mappings.begin(),
                         share.mappings.end());
  }
  if (largest_init.has_value() && init_request_names.size() > 1) {
    init_request_names.erase(largest_init->name);
    for (Mapping& mapping : init_mappings) {
      if (init_request_names.contains(mapping.request_name)) {
        mapping.request_name = largest_init->name;
      }
    }
  }
  if (largest_init.has_value()) plan.requests.push_back(*largest_init);
  for (auto& request : long_lived) {
    if (request.has_value()) plan.requests.push_back(std::move(*request));
  }
  plan.mappings.insert(plan.mappings.end(), long_mappings.begin(),
                       long_mappings.end());
  plan.mappings.insert(plan.mappings.end(), init_mappings.begin(),
                       init_mappings.end());
}

}  // namespace

ExtendedResourceClasses MapExtendedResourceClasses(
    const std::vector<const api::DeviceClass*>& classes) {
  std::map<std::string, const api::DeviceClass*> chosen;
  for (const api::DeviceClass* device_class : classes) {
    if (device_class->metadata.deletion_timestamp.has_value()) continue;
    AddClass(std::string(kImplicitExtendedResourcePrefix) +
                 device_class->metadata.name,
             *device_class, chosen);
    const auto& explicit_name = device_class->spec.extended_resource_name;
    if (explicit_name.has_value() && !explicit_name->empty()) {
      AddClass(*explicit_name, *device_class, chosen);
    }
  }
  ExtendedResourceClasses result;
  for (const auto& [resource, device_class] : chosen) {
    result.emplace(resource, device_class->metadata.name);
  }
  return result;
}

ExtendedResourceClasses MapExtendedResourceClasses(
    const std::vector<api::DeviceClass>& classes) {
  std::vector<const api::DeviceClass*> pointers;
  pointers.reserve(classes.size());
  for (const api::DeviceClass& device_class : classes) {
    pointers.push_back(&device_class);
  }
  return MapExtendedResourceClasses(pointers);
}

bool RequestsMappedExtendedResource(const api::Pod& pod,
                                    const ExtendedResourceClasses& classes) {
  if (classes.empty()) return false;
  auto asks = [&](const api::Container& container) {
    for (const auto& [resource, quantity] : container.resources.requests) {
      if (quantity.Sign() > 0 && classes.contains(resource)) return true;
    }
    return false;
  };
  return std::ranges::any_of(pod.spec.init_containers, asks) ||
         std::ranges::any_of(pod.spec.containers, asks);
}

bool DelegatedToDra(std::string_view resource, const api::Node* node,
                    const ExtendedResourceClasses& classes) {
  if (!classes.contains(resource)) return false;
  if (node == nullptr) return true;
  auto it = node->status.allocatable.find(std::string(resource));
  return it == node->status.allocatable.end() || it->second.Sign() <= 0;
}

ExtendedResourceClaimPlan PlanExtendedResourceClaim(
    const api::Pod& pod, const api::Node* node,
    const ExtendedResourceClasses& classes) {
  ExtendedResourceClaimPlan plan;
  if (classes.empty()) return plan;
  std::vector<const api::Container*> containers;
  for (const api::Container& c : pod.spec.init_containers) {
    containers.push_back(&c);
  }
  for (const api::Container& c : pod.spec.containers) containers.push_back(&c);
  std::set<std::string> resources;  // name order, as upstream sorts them
  for (const api::Container* container : containers) {
    for (const auto& [resource, quantity] : container->resources.requests) {
      if (quantity.Sign() > 0 && DelegatedToDra(resource, node, classes)) {
        resources.insert(resource);
      }
    }
  }
  for (const std::string& resource : resources) {
    PlanResource(containers, pod.spec.init_containers.size(), resource,
                 classes.find(resource)->second, plan);
  }
  std::ranges::sort(plan.requests, {}, &api::DeviceRequest::name);
  return plan;
}

api::ResourceClaim BuildExtendedResourceClaim(
    const api::Pod& pod, const ExtendedResourceClaimPlan& plan) {
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
  claim.metadata.owner_references.push_back(std::move(owner));
  claim.spec.devices.requests = plan.requests;
  return claim;
}

api::PodExtendedResourceClaimStatus ExtendedResourceClaimStatusFor(
    std::string claim_name, const ExtendedResourceClaimPlan& plan) {
  api::PodExtendedResourceClaimStatus status;
  status.resource_claim_name = std::move(claim_name);
  status.request_mappings = plan.mappings;
  return status;
}

bool IsExtendedResourceClaimOf(const api::ResourceClaim& claim,
                               std::string_view pod_uid) {
  auto annotation = claim.metadata.annotations.find(
      std::string(kExtendedResourceClaimAnnotation));
  if (annotation == claim.metadata.annotations.end() ||
      annotation->second != "true") {
    return false;
  }
  return std::ranges::any_of(
      claim.metadata.owner_references, [&](const api::OwnerReference& owner) {
        return owner.kind == "Pod" && owner.uid == pod_uid &&
               owner.controller.value_or(false);
      });
}

}  // namespace dralloc::scheduler
