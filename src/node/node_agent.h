// NodeAgent: `dralloc node`, the kubelet's DRA side for one node, composed
// of its parts: the prepared-claim checkpoint (ClaimInfoCache), the Node
// object and heartbeats (NodeStatusReporter), driver registration
// (PluginWatcher + DraPluginManager), the DRA manager and the pod lifecycle
// (PodManager, simulated runtime) with CDI resolution, the
// PodResources API, and device health from drivers into pod status
// (DeviceHealthMonitor → DeviceHealthPodUpdater, KEP-4680).
//
// Start() in the kubelet's order: open the checkpoint (a corrupt one stops
// the agent: kDataLoss), register the Node, delete the node's
// ResourceSlices (drivers re-publish), watch the plugins registry, then
// sync pods. Stop() undoes it in reverse.
#ifndef DRALLOC_NODE_NODE_AGENT_H_
#define DRALLOC_NODE_NODE_AGENT_H_

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "client/api_client.h"
#include "common/status.h"
#include "node/cdi_device_resolver.h"
#include "node/claim_info_cache.h"
#include "node/container_log_server.h"
#include "node/container_runtime.h"
#include "node/device_health_cache.h"
#include "node/device_health_monitor.h"
#include "node/device_health_pod_updater.h"
#include "node/dra_manager.h"
#include "node/dra_plugin_manager.h"
#include "node/node_status.h"
#include "node/plugin_watcher.h"
#include "node/pod_manager.h"
#include "node/pod_resources_source.h"
#include "podresources/pod_resources_server.h"

namespace dralloc::node {

struct NodeAgentOptions {
  std::string node_name;
  std::string host_ip = "127.0.0.1";
  std::string plugins_registry;
  std::string plugins_dir;
  std::vector<std::string> cdi_dirs;  // later ones win
  std::string state_dir;
  std::string pod_resources_socket;  // "" = not served
  std::chrono::milliseconds prepare_timeout{45000};
  std::chrono::milliseconds wiping_delay{30000};
  std::chrono::milliseconds node_status_update_frequency{10000};
  std::chrono::milliseconds backoff_max{60000};
  // A pod waiting for its claims reads them again after this, doubling up
  // to claim_recheck_max (PodManagerOptions: the agent does not watch
  // claims).
  std::chrono::milliseconds claim_recheck_initial{200};
  std::chrono::milliseconds claim_recheck_max{2000};
  std::chrono::milliseconds sync_timeout{60000};
  int pod_workers = 16;  // pods synced at once
  // The Node's pods capacity and allocatable (the kubelet's --max-pods),
  // which the scheduler's NodeResourcesFit counts.
  int64_t max_pods = 110;
  DeviceHealthMonitorOptions health;
  // "simulated" or "process" (ProcessRuntime: no isolation, local
  // development only).
  std::string runtime = "simulated";
  // Container logs go under pods_dir/pods/ (process runtime).
  std::string pods_dir;
  // The container log server's port on host_ip (0: a free one).
  uint16_t kubelet_port = 0;
};

class NodeAgent {
 public:
  // `api` must outlive the agent.
  NodeAgent(client::ApiClient& api, NodeAgentOptions options);
  ~NodeAgent();
  NodeAgent(const NodeAgent&) = delete;
  NodeAgent& operator=(const NodeAgent&) = delete;

  Status Start();
  void Stop();

  // Valid after a successful Start().
  PodManager& pods() { return *pods_; }
  // The container log server's port (after Start).
  uint16_t kubelet_port() const { return logs_ ? logs_->port() : 0; }
  DraPluginManager& plugins() { return *plugins_; }
  DeviceHealthMonitor& health() { return *health_monitor_; }

 private:
  // Opens or ends the driver's health stream after a registration change.
  void WatchDriverHealth(const DriverRegistration& driver);
  // The container runtime of options_.runtime and its log server.
  Status StartRuntime();

  client::ApiClient& api_;
  const NodeAgentOptions options_;
  std::unique_ptr<ClaimInfoCache> cache_;
  std::unique_ptr<ContainerRuntime> runtime_;
  std::unique_ptr<ContainerLogServer> logs_;
  std::unique_ptr<NodeStatusReporter> node_status_;
  // Device health (KEP-4680): cache, pod status writer, driver streams.
  DeviceHealthCache health_cache_;
  std::unique_ptr<DeviceHealthPodUpdater> health_updater_;
  std::unique_ptr<DeviceHealthMonitor> health_monitor_;
  std::unique_ptr<DraPluginManager> plugins_;
  std::unique_ptr<PluginWatcher> watcher_;
  std::unique_ptr<DraManager> dra_;
  std::unique_ptr<CdiDeviceResolver> cdi_;
  std::unique_ptr<PodManager> pods_;
  std::unique_ptr<NodePodResourcesSource> pod_resources_source_;
  std::unique_ptr<podresources::PodResourcesServer> pod_resources_;
  // pods_ once built, for the plugin manager's thread; null when stopping.
  std::atomic<PodManager*> registration_listener_target_{nullptr};
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_NODE_AGENT_H_
