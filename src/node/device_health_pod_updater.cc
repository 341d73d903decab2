#include "node/device_health_pod_updater.h"

#include <algorithm>

#include "client/informer.h"
#include "common/log.h"
#include "node/device_health_status.h"

namespace dralloc::node {
namespace {

constexpr std::string_view kComponent = "dra-health";
constexpr int kConflictAttempts = 3;

std::string KeyOf(const api::Pod& pod) {
  return client::ObjectKey(pod.metadata.namespace_, pod.metadata.name);
}

}  // namespace

DeviceHealthPodUpdater::DeviceHealthPodUpdater(client::ApiClient& api,
                                               const ClaimInfoCache& claims,
                                               const DeviceHealthCache& health,
                                               std::string node_name)
    : api_(api),
      claims_(claims),
      health_(health),
      node_name_(std::move(node_name)) {}

void DeviceHealthPodUpdater::Decorate(const api::Pod& pod,
                                      api::PodStatus& status) const {
  const bool uses_claims = std::any_of(
      pod.spec.containers.begin(), pod.spec.containers.end(),
      [](const api::Container& c) { return !c.resources.claims.empty(); });
  if (!uses_claims) return;  // nothing to report: skip copying the claims
  SetAllocatedResourcesStatus(pod, claims_.ClaimsOfPod(pod.metadata.uid),
                              health_, status);
}

void DeviceHealthPodUpdater::OnHealthChanged(
    const std::vector<DeviceKey>& changed) {
  const std::set<std::string> uids = PodsUsingDevices(claims_.List(), changed);
  if (uids.empty()) return;
  MutexLock lock(mu_);
  // Only this node's pods: the Node authorizer lets a node list pods with
  // this field selector alone.
  StatusOr<client::ObjectList> pods =
      api_.ListMatching(client::PodsResource(), "spec.nodeName=" + node_name_);
  if (!pods.ok()) {
    log::Warn(kComponent, "device health changed; listing pods: {}",
              pods.status().message());
    return;
  }
  for (const client::ObjectPtr& object : pods->items) {
    const api::Pod* pod = client::As<api::Pod>(object);
    if (pod == nullptr || pod->spec.node_name != node_name_ ||
        !uids.contains(pod->metadata.uid)) {
      continue;
    }
    Status updated = UpdatePod(*pod);
    if (!updated.ok()) {
      log::Warn(kComponent, "pod {}: allocatedResourcesStatus: {}", KeyOf(*pod),
                updated.message());
    }
  }
}

Status DeviceHealthPodUpdater::UpdatePod(const api::Pod& pod) {
  client::ObjectPtr fresh;
  const api::Pod* current = &pod;
  for (int attempt = 0; attempt < kConflictAttempts; ++attempt) {
    api::Pod update = *current;
    Decorate(*current, update.status);
    if (update.status == current->status) return OkStatus();
    auto written = api_.UpdateStatus(update);
    if (written.ok()) {
      log::Info(kComponent, "pod {}: device health updated", KeyOf(pod));
      return OkStatus();
    }
    if (written.status().code() != StatusCode::kAborted) {
      return written.status();
    }
    auto got = api_.Get(client::PodsResource(), pod.metadata.namespace_,
                        pod.metadata.name);
    if (!got.ok()) return got.status();
    fresh = *got;
    current = client::As<api::Pod>(fresh);
    if (current == nullptr || current->metadata.uid != pod.metadata.uid) {
      return OkStatus();  // replaced: the new pod gets its own status
    }
  }
  return Status(StatusCode::kAborted, "too many conflicts");
}

}  // namespace dralloc::node
