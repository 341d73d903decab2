#include "podresources/pod_resources_proto.h"

namespace dralloc::podresources {
namespace {

void DeviceToProto(const ClaimDevice& device, v1::ClaimResource& out) {
  for (const std::string& id : device.cdi_ids) {
    out.add_cdi_devices()->set_name(id);
  }
  out.set_driver_name(device.driver);
  out.set_pool_name(device.pool);
  out.set_device_name(device.device);
  if (device.share_id.has_value()) out.set_share_id(*device.share_id);
}

void ClaimToProto(const ContainerClaim& claim, v1::DynamicResource& out) {
  out.set_claim_name(claim.claim_name);
  out.set_claim_namespace(claim.claim_namespace);
  for (const ClaimDevice& device : claim.devices) {
    DeviceToProto(device, *out.add_claim_resources());
  }
}

}  // namespace

void ToProto(const PodResources& pod, v1::PodResources& out) {
  out.Clear();
  out.set_name(pod.name);
  out.set_namespace_(pod.namespace_);
  for (const ContainerResources& container : pod.containers) {
    v1::ContainerResources* container_out = out.add_containers();
    container_out->set_name(container.name);
    for (const ContainerClaim& claim : container.claims) {
      ClaimToProto(claim, *container_out->add_dynamic_resources());
    }
  }
}

}  // namespace dralloc::podresources
