#include "node/node_agent.h"

#include <filesystem>

#include "common/log.h"
#include "node/process_runtime.h"

namespace dralloc::node {

NodeAgent::NodeAgent(client::ApiClient& api, NodeAgentOptions options)
    : api_(api), options_(std::move(options)) {}

NodeAgent::~NodeAgent() { Stop(); }

Status NodeAgent::Start() {
  ASSIGN_OR_RETURN(cache_, ClaimInfoCache::Open(options_.state_dir));
  std::error_code ec;
  std::filesystem::create_directories(options_.plugins_dir, ec);
  RETURN_IF_ERROR(StartRuntime());

  NodeStatusOptions status_options;
  status_options.node_name = options_.node_name;
  status_options.host_ip = options_.host_ip;
  status_options.update_frequency = options_.node_status_update_frequency;
  status_options.kubelet_port = logs_->port();
  status_options.runtime_name = options_.runtime;
  status_options.max_pods = options_.max_pods;
  node_status_ = std::make_unique<NodeStatusReporter>(api_, status_options);
  RETURN_IF_ERROR(node_status_->Register());
  node_status_->Start();

  health_updater_ = std::make_unique<DeviceHealthPodUpdater>(
      api_, *cache_, health_cache_, options_.node_name);
  health_monitor_ = std::make_unique<DeviceHealthMonitor>(
      health_cache_,
      [this](const std::vector<DeviceKey>& changed) {
        health_updater_->OnHealthChanged(changed);
      },
      options_.health);
  health_monitor_->Start();

  DraPluginManagerOptions plugin_options;
  plugin_options.node_name = options_.node_name;
  plugin_options.call_timeout = options_.prepare_timeout;
  plugin_options.wiping_delay = options_.wiping_delay;
  plugins_ = std::make_unique<DraPluginManager>(&api_, plugin_options);
  // As the kubelet: slices of this node go at startup; drivers re-publish.
  RETURN_IF_ERROR(plugins_->WipeNodeSlices("").WithPrefix(
      "deleting the ResourceSlices of node " + options_.node_name));
  // A driver that registers lets the pods waiting for it start at once.
  plugins_->SetRegistrationListener([this](const std::string&) {
    if (PodManager* pods = registration_listener_target_.load()) {
      pods->RequeueWaitingPods();
    }
  });
  plugins_->SetDriverListener(
      [this](const DriverRegistration& driver) { WatchDriverHealth(driver); });
  plugins_->Start();
  watcher_ = std::make_unique<PluginWatcher>(
      options_.plugins_registry, [this](const PluginSocketEvent& event) {
        plugins_->OnSocketEvent(event);
      });
  RETURN_IF_ERROR(watcher_->Start());

  dra_ = std::make_unique<DraManager>(*cache_, [this](std::string_view driver) {
    return plugins_->GetClient(driver);
  });
  cdi_ = std::make_unique<CdiDeviceResolver>(std::vector<std::filesystem::path>(
      options_.cdi_dirs.begin(), options_.cdi_dirs.end()));
  PodManagerOptions pod_options;
  pod_options.node_name = options_.node_name;
  pod_options.host_ip = options_.host_ip;
  pod_options.backoff_max = options_.backoff_max;
  pod_options.claim_recheck_initial = options_.claim_recheck_initial;
  pod_options.claim_recheck_max = options_.claim_recheck_max;
  pod_options.workers = options_.pod_workers;
  pod_options.decorate_status = [this](const api::Pod& pod,
                                       api::PodStatus& status) {
    health_updater_->Decorate(pod, status);
  };
  pods_ = std::make_unique<PodManager>(
      api_, *dra_,
      [this](const std::vector<std::string>& ids) {
        return cdi_->Resolve(ids);
      },
      pod_options, runtime_.get());
  registration_listener_target_ = pods_.get();
  RETURN_IF_ERROR(pods_->Start(options_.sync_timeout));
  if (!options_.pod_resources_socket.empty()) {
    pod_resources_source_ =
        std::make_unique<NodePodResourcesSource>(*pods_, *cache_);
    pod_resources_ = std::make_unique<podresources::PodResourcesServer>(
        *pod_resources_source_);
    RETURN_IF_ERROR(pod_resources_->Start(options_.pod_resources_socket));
  }
  return OkStatus();
}

void NodeAgent::Stop() {
  registration_listener_target_ = nullptr;
  if (pod_resources_) pod_resources_->Stop();
  if (pods_) pods_->Stop();
  if (watcher_) watcher_->Stop();
  if (plugins_) plugins_->Stop();
  if (health_monitor_) health_monitor_->Stop();
  if (node_status_) node_status_->Stop();
  if (logs_) logs_->Stop();
}

Status NodeAgent::StartRuntime() {
  if (options_.runtime == "process") {
    ProcessRuntimeOptions runtime_options;
    runtime_options.node_name = options_.node_name;
    runtime_options.host_ip = options_.host_ip;
    runtime_options.logs_root =
        options_.pods_dir.empty() ? options_.state_dir : options_.pods_dir;
    runtime_ = std::make_unique<ProcessRuntime>(runtime_options);
  } else if (options_.runtime == "simulated" || options_.runtime.empty()) {
    runtime_ = std::make_unique<SimulatedRuntime>(options_.node_name,
                                                  options_.host_ip);
  } else {
    return InvalidArgumentError("runtime: Unsupported value: \"" +
                                options_.runtime +
                                "\": supported values: \"process\", "
                                "\"simulated\"");
  }
  logs_ = std::make_unique<ContainerLogServer>(
      *runtime_,
      ContainerLogServerOptions{options_.host_ip, options_.kubelet_port});
  return logs_->Start();
}

void NodeAgent::WatchDriverHealth(const DriverRegistration& driver) {
  std::optional<HealthApiVersion> version =
      NegotiateHealthVersion(driver.supported_versions);
  if (driver.registered && version) {
    health_monitor_->Watch(driver.driver, driver.endpoint, *version);
  } else {
    health_monitor_->Unwatch(driver.driver);
  }
}

}  // namespace dralloc::node
