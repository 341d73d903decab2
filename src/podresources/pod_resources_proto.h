// Mapping from PodResourcesSource's plain data to the PodResources v1
// protocol messages (KEP-3695 `dynamic_resources`).
#ifndef DRALLOC_PODRESOURCES_POD_RESOURCES_PROTO_H_
#define DRALLOC_PODRESOURCES_POD_RESOURCES_PROTO_H_

#include "k8s.io/kubelet/pkg/apis/podresources/v1/api.pb.h"
#include "podresources/pod_resources_source.h"

namespace dralloc::podresources {

// Fills `out` (cleared first) from `pod`: one ContainerResources per
// container, one DynamicResource per claim, one ClaimResource per device.
// Device plugin, CPU and memory fields stay empty: this node has none.
void ToProto(const PodResources& pod, v1::PodResources& out);

}  // namespace dralloc::podresources

#endif  // DRALLOC_PODRESOURCES_POD_RESOURCES_PROTO_H_
