#include "node/pod_resources_source.h"

#include <optional>

#include "node/prepared_device.h"

namespace dralloc::node {

podresources::ContainerClaim NodePodResourcesSource::Describe(
    const ContainerClaim& claim) const {
  podresources::ContainerClaim out;
  out.claim_name = claim.claim_name;
  out.claim_namespace = claim.claim_namespace;
  std::optional<ClaimInfo> info = claims_.Get(claim.claim_uid);
  if (!info) return out;
  for (const auto& [driver, state] : info->drivers) {
    for (const PreparedDevice& device : state.devices) {
      if (!ServesRequest(device, claim.request)) continue;
      out.devices.push_back({.driver = driver,
                             .pool = device.pool,
                             .device = device.device,
                             .cdi_ids = device.cdi_device_ids,
                             .share_id = device.share_id});
    }
  }
  return out;
}

std::vector<podresources::PodResources> NodePodResourcesSource::ListPods()
    const {
  std::vector<podresources::PodResources> out;
  for (const RunningPod& pod : pods_.RunningPods()) {
    podresources::PodResources& listed = out.emplace_back();
    listed.name = pod.name;
    listed.namespace_ = pod.namespace_;
    for (const auto& [name, claims] : pod.containers) {
      podresources::ContainerResources& container =
          listed.containers.emplace_back();
      container.name = name;
      for (const ContainerClaim& claim : claims) {
        container.claims.push_back(Describe(claim));
      }
    }
  }
  return out;
}

}  // namespace dralloc::node
