// Extended resources backed by DRA (KEP-5004): which of a pod's container
// requests a DeviceClass serves on a given node, and the special
// ResourceClaim the scheduler creates for them in PreBind.
//
// A DeviceClass serves the resource named by its spec.extendedResourceName
// and, always, the implicit "deviceclass.resource.kubernetes.io/<class>". A
// node whose status.allocatable lists the resource with a positive amount is
// served by a device plugin instead, so no request is mapped there (upstream's
// ShouldDelegateResourceToDRA).
#ifndef DRALLOC_SCHEDULER_EXTENDED_RESOURCE_CLAIM_H_
#define DRALLOC_SCHEDULER_EXTENDED_RESOURCE_CLAIM_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/types/core.h"
#include "api/types/device_class.h"
#include "api/types/resource_claim.h"
#include "api/well_known.h"

namespace dralloc::scheduler {

using api::kExtendedResourceClaimAnnotation;
// Prefix of the implicit extended resource name of every DeviceClass.
inline constexpr std::string_view kImplicitExtendedResourcePrefix =
    "deviceclass.resource.kubernetes.io/";

// Extended resource name -> DeviceClass name. When several classes name the
// same resource, the most recently created wins (ties: the smaller name),
// as upstream's DeviceClass mapping does.
using ExtendedResourceClasses = std::map<std::string, std::string, std::less<>>;
ExtendedResourceClasses MapExtendedResourceClasses(
    const std::vector<const api::DeviceClass*>& classes);
ExtendedResourceClasses MapExtendedResourceClasses(
    const std::vector<api::DeviceClass>& classes);

// True when some container of `pod` requests a positive amount of a resource
// a class serves (on a node without a device plugin for it, DRA serves it).
bool RequestsMappedExtendedResource(const api::Pod& pod,
                                    const ExtendedResourceClasses& classes);

// Whether `node` leaves `resource` to DRA: it lists no positive allocatable
// amount of it and a class serves it.
bool DelegatedToDra(std::string_view resource, const api::Node* node,
                    const ExtendedResourceClasses& classes);

// The requests and container mappings of the special claim for one node, as
// upstream's createRequestsAndMappings builds them: per DRA-served resource
// (in name order), one ExactCount request "container-<i>-request-<j>" per
// long-lived container asking for it (regular containers and restartable
// init containers; i counts init then regular containers, j is the
// resource's place among the container's requests in name order). A
// non-restartable init container first reuses the requests of long-lived
// containers at or after its index, and asks only for what they lack; of
// those init requests only the largest is kept and every init mapping points
// at it. Requests are in name order. Empty when the node serves everything
// through device plugins (or the pod asks for nothing DRA serves).
struct ExtendedResourceClaimPlan {
  std::vector<api::DeviceRequest> requests;
  std::vector<api::ContainerExtendedResourceRequest> mappings;
  bool empty() const { return requests.empty(); }
};
ExtendedResourceClaimPlan PlanExtendedResourceClaim(
    const api::Pod& pod, const api::Node* node,
    const ExtendedResourceClasses& classes);

// The claim to create for `plan`: generateName "<pod>-extended-resources-",
// the annotation, the pod as controlling owner, the plan's requests.
api::ResourceClaim BuildExtendedResourceClaim(
    const api::Pod& pod, const ExtendedResourceClaimPlan& plan);

// The pod status entry recording `claim_name` and the plan's mappings.
api::PodExtendedResourceClaimStatus ExtendedResourceClaimStatusFor(
    std::string claim_name, const ExtendedResourceClaimPlan& plan);

// Whether `claim` is the special claim the scheduler created for the pod
// with `pod_uid` (the annotation, and the pod as controlling owner).
bool IsExtendedResourceClaimOf(const api::ResourceClaim& claim,
                               std::string_view pod_uid);

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_EXTENDED_RESOURCE_CLAIM_H_
