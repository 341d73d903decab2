// Extended resources backed by DRA (KEP-5004): which of a pod's container
// requests a DeviceClass serves on a given node, and the special
// ResourceClaim the scheduler creates for them in PreBind.
//
// A DeviceClass serves the resource named by its spec.extendedResourceName
// and, always, the implicit "deviceclass.resource.kubernetes.io/<class>". A
// node whose status.allocatable lists the resource is served by a device
// plugin instead, so no request is mapped there.
#ifndef DRALLOC_SCHEDULER_EXTENDED_RESOURCE_CLAIM_H_
#define DRALLOC_SCHEDULER_EXTENDED_RESOURCE_CLAIM_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/types/core.h"
#include "api/types/device_class.h"
#include "api/types/resource_claim.h"

namespace dralloc::scheduler {

// The annotation that marks the claim the scheduler generated for a pod.
inline constexpr std::string_view kExtendedResourceClaimAnnotation =
    "resource.kubernetes.io/extended-resource-claim";
// Prefix of the implicit extended resource name of every DeviceClass.
inline constexpr std::string_view kImplicitExtendedResourcePrefix =
    "deviceclass.resource.kubernetes.io/";

// Extended resource name -> DeviceClass name. When several classes name the
// same resource, the most recently created wins (ties: the smaller name),
// as upstream's DeviceClass mapping does.
using ExtendedResourceClasses = std::map<std::string, std::string>;
ExtendedResourceClasses MapExtendedResourceClasses(
    const std::vector<api::DeviceClass>& classes);

// One DRA-backed request of one container, in container order (init
// containers first, then regular ones).
struct ExtendedResourceRequest {
  api::ContainerExtendedResourceRequest mapping;
  std::string device_class_name;
  int64_t count = 0;
};

// The requests of `pod` served by DRA on `node`: positive container requests
// whose resource a class serves and the node does not list in allocatable.
// Request names are "container-<i>-request-<j>": i over init then regular
// containers, j the resource's index among all of that container's requests
// in name order.
std::vector<ExtendedResourceRequest> DraBackedExtendedResources(
    const api::Pod& pod, const api::Node& node,
    const ExtendedResourceClasses& classes);

// True when some container of `pod` requests a resource a class serves (on
// some node it may be DRA-backed).
bool RequestsMappedExtendedResource(const api::Pod& pod,
                                    const ExtendedResourceClasses& classes);

// The claim to create for `requests`: generateName "<pod>-extended-
// resources-", the annotation, the pod as controlling owner, one ExactCount
// request per entry, ordered by request name.
api::ResourceClaim BuildExtendedResourceClaim(
    const api::Pod& pod, const std::vector<ExtendedResourceRequest>& requests);

// The pod status entry recording `claim_name` and the mappings of
// `requests`.
api::PodExtendedResourceClaimStatus ExtendedResourceClaimStatusFor(
    std::string claim_name,
    const std::vector<ExtendedResourceRequest>& requests);

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_EXTENDED_RESOURCE_CLAIM_H_
