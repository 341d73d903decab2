// What a whole pod requests and is limited to, as upstream's resource helper
// (k8s.io/component-helpers/resource PodRequests, PodLimits) computes it for
// quota, and its QoS class (k8s.io/kubernetes/pkg/apis/core/v1/helper/qos).
//
// Per resource: the sum over regular containers and restartable init
// containers (sidecars), or the largest non-restartable init container plus
// the sidecars started before it when that is more. Pod-level resources
// (spec.resources) replace that for cpu, memory and hugepages-*; then
// spec.overhead is added (to limits only where a limit is non-zero).
// Container statuses (in-place resize) and claims' node-allocatable
// resources play no part here.
#ifndef DRALLOC_API_POD_RESOURCES_H_
#define DRALLOC_API_POD_RESOURCES_H_

#include <string_view>

#include "api/types/core.h"
#include "api/types/resource_quota.h"

namespace dralloc::api {

ResourceList TotalPodRequests(const Pod& pod);
ResourceList TotalPodLimits(const Pod& pod);

// Whether spec.resources may name `resource`: cpu, memory, hugepages-*.
bool IsSupportedPodLevelResource(std::string_view resource);

// QoS class BestEffort: no non-zero cpu or memory request or limit, read
// from spec.resources when it sets a pod-level resource and from every
// container otherwise.
bool IsBestEffort(const Pod& pod);

}  // namespace dralloc::api

#endif  // DRALLOC_API_POD_RESOURCES_H_
