// DeviceHealthPodUpdater: keeps pod.status.containerStatuses[]
// .allocatedResourcesStatus of this node's pods in step with device health
// (the kubelet's resource-health status updates, KEP-4680).
//
// - Decorate() is the pod status writer's hook: every status the node
//   agent writes carries the current health of the pod's devices.
// - OnHealthChanged() (the DeviceHealthMonitor's listener) rewrites the
//   status of every pod on this node whose prepared claims hold one of the
//   changed devices, reading each pod fresh from the API server and
//   retrying on conflicts; a status already right is not written.
// Thread-safe; updates are serialized.
#ifndef DRALLOC_NODE_DEVICE_HEALTH_POD_UPDATER_H_
#define DRALLOC_NODE_DEVICE_HEALTH_POD_UPDATER_H_

#include <set>
#include <string>
#include <vector>

#include "client/api_client.h"
#include "common/mutex.h"
#include "common/status.h"
#include "node/claim_info_cache.h"
#include "node/device_health_cache.h"

namespace dralloc::node {

class DeviceHealthPodUpdater {
 public:
  // All references must outlive the updater.
  DeviceHealthPodUpdater(client::ApiClient& api, const ClaimInfoCache& claims,
                         const DeviceHealthCache& health,
                         std::string node_name);

  // Sets allocatedResourcesStatus in `status`, a status about to be
  // written for `pod`.
  void Decorate(const api::Pod& pod, api::PodStatus& status) const;

  void OnHealthChanged(const std::vector<DeviceKey>& changed) EXCLUDES(mu_);

 private:
  // Writes the decorated status of `pod` when it differs.
  Status UpdatePod(const api::Pod& pod) REQUIRES(mu_);

  client::ApiClient& api_;
  const ClaimInfoCache& claims_;
  const DeviceHealthCache& health_;
  const std::string node_name_;
  Mutex mu_;  // one update at a time
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_DEVICE_HEALTH_POD_UPDATER_H_
