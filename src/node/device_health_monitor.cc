#include "node/device_health_monitor.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>

#include "common/log.h"
#include "k8s.io/kubelet/pkg/apis/dra-health/v1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/dra-health/v1alpha1/api.grpc.pb.h"

namespace dralloc::node {
namespace {

constexpr std::string_view kComponent = "dra-health";

// The generated names of one health API version.
struct HealthV1 {
  using Service = ::v1::DRAResourceHealth;
  using Request = ::v1::NodeWatchResourcesRequest;
  using Response = ::v1::NodeWatchResourcesResponse;
};
struct HealthV1alpha1 {
  using Service = ::v1alpha1::DRAResourceHealth;
  using Request = ::v1alpha1::NodeWatchResourcesRequest;
  using Response = ::v1alpha1::NodeWatchResourcesResponse;
};

// The wire enum (UNKNOWN = 0, HEALTHY = 1, UNHEALTHY = 2) of either version.
DeviceHealthStatus FromWire(int health) {
  switch (health) {
    case 1:
      return DeviceHealthStatus::kHealthy;
    case 2:
      return DeviceHealthStatus::kUnhealthy;
    default:
      return DeviceHealthStatus::kUnknown;
  }
}

template <typename Response>
std::vector<DeviceHealthReport> ReportsOf(const Response& response) {
  std::vector<DeviceHealthReport> reports;
  reports.reserve(response.devices_size());
  for (const auto& device : response.devices()) {
    reports.push_back(
        {device.device().pool_name(), device.device().device_name(),
         FromWire(static_cast<int>(device.health())), device.message(),
         device.health_check_timeout_seconds()});
  }
  return reports;
}

}  // namespace

const char* HealthServiceName(HealthApiVersion version) {
  return version == HealthApiVersion::kV1 ? "v1.DRAResourceHealth"
                                          : "v1alpha1.DRAResourceHealth";
}

std::optional<HealthApiVersion> NegotiateHealthVersion(
    const std::vector<std::string>& supported_versions) {
  for (HealthApiVersion version :
       {HealthApiVersion::kV1, HealthApiVersion::kV1alpha1}) {
    if (std::find(supported_versions.begin(), supported_versions.end(),
                  HealthServiceName(version)) != supported_versions.end()) {
      return version;
    }
  }
  return std::nullopt;
}

// One driver's stream, on its own thread, reopened with backoff until
// Stop().
class DeviceHealthMonitor::Watcher {
 public:
  Watcher(DeviceHealthMonitor& monitor, std::string driver,
          std::string endpoint, HealthApiVersion version)
      : monitor_(monitor),
        driver_(std::move(driver)),
        endpoint_(std::move(endpoint)),
        version_(version) {}
  ~Watcher() { Stop(); }

  void Start() {
    thread_ = std::thread([this] { Run(); });
  }
  void Stop() EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      stopped_ = true;
      if (context_) context_->TryCancel();
    }
    wake_.SignalAll();
    if (thread_.joinable()) thread_.join();
  }
  bool Serves(const std::string& endpoint, HealthApiVersion version) const {
    return endpoint == endpoint_ && version == version_;
  }

 private:
  void Run() EXCLUDES(mu_);
  // One stream until it ends; whether it delivered a message.
  template <typename Api>
  bool StreamOnce() EXCLUDES(mu_);
  // A context for the next stream, registered for cancellation; null once
  // stopped.
  std::shared_ptr<grpc::ClientContext> NewContext() EXCLUDES(mu_);
  void Received(const std::vector<DeviceHealthReport>& reports, bool first);

  DeviceHealthMonitor& monitor_;
  const std::string driver_;
  const std::string endpoint_;
  const HealthApiVersion version_;
  Mutex mu_;
  CondVar wake_;
  bool stopped_ GUARDED_BY(mu_) = false;
  std::shared_ptr<grpc::ClientContext> context_ GUARDED_BY(mu_);
  std::thread thread_;
};

void DeviceHealthMonitor::Watcher::Run() {
  std::chrono::milliseconds backoff = monitor_.options_.retry_initial;
  while (true) {
    const bool delivered = version_ == HealthApiVersion::kV1
                               ? StreamOnce<HealthV1>()
                               : StreamOnce<HealthV1alpha1>();
    // As the kubelet: without a stream the driver's health is unknown.
    std::vector<DeviceKey> cleared = monitor_.cache_.ClearDriver(driver_);
    {
      MutexLock monitor_lock(monitor_.mu_);
      if (monitor_.stopping_) return;  // shutting down: pods keep theirs
    }
    monitor_.Notify(cleared);
    if (delivered) backoff = monitor_.options_.retry_initial;
    MutexLock lock(mu_);
    if (stopped_) return;
    wake_.WaitFor(mu_, backoff, [this]() REQUIRES(mu_) { return stopped_; });
    if (stopped_) return;
    backoff = std::min(backoff * 2, monitor_.options_.retry_max);
  }
}

std::shared_ptr<grpc::ClientContext>
DeviceHealthMonitor::Watcher::NewContext() {
  MutexLock lock(mu_);
  if (stopped_) return nullptr;
  context_ = std::make_shared<grpc::ClientContext>();
  return context_;
}

template <typename Api>
bool DeviceHealthMonitor::Watcher::StreamOnce() {
  std::shared_ptr<grpc::ClientContext> context = NewContext();
  if (context == nullptr) return false;
  grpc::ChannelArguments arguments;
  // A fresh subchannel per stream: no reconnect backoff inherited from the
  // broken one (gRPC's own backoff would delay ours).
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto channel = grpc::CreateCustomChannel(
      "unix://" + endpoint_, grpc::InsecureChannelCredentials(), arguments);
  auto stub = Api::Service::NewStub(channel);
  auto reader =
      stub->NodeWatchResources(context.get(), typename Api::Request());
  typename Api::Response response;
  bool delivered = false;
  while (reader->Read(&response)) {
    Received(ReportsOf(response), !delivered);
    delivered = true;
  }
  grpc::Status status = reader->Finish();
  MutexLock lock(mu_);
  if (!stopped_) {
    log::Warn(kComponent,
              "DRA driver {}: {} NodeWatchResources on {} ended: {} (code "
              "{}); its devices are Unknown until the stream is back",
              driver_, HealthServiceName(version_), endpoint_,
              status.error_message(), static_cast<int>(status.error_code()));
  }
  return delivered;
}

void DeviceHealthMonitor::Watcher::Received(
    const std::vector<DeviceHealthReport>& reports, bool first) {
  if (first) {
    log::Info(kComponent, "DRA driver {}: watching device health ({}) on {}",
              driver_, HealthServiceName(version_), endpoint_);
    MutexLock lock(monitor_.mu_);
    ++monitor_.established_[driver_];
  }
  monitor_.Notify(monitor_.cache_.Update(driver_, reports,
                                         DeviceHealthCache::Clock::now()));
}

DeviceHealthMonitor::DeviceHealthMonitor(DeviceHealthCache& cache,
                                         ChangeListener on_change,
                                         DeviceHealthMonitorOptions options)
    : cache_(cache), on_change_(std::move(on_change)), options_(options) {}

DeviceHealthMonitor::~DeviceHealthMonitor() { Stop(); }

void DeviceHealthMonitor::Start() {
  expiry_thread_ = std::thread([this] { RunExpiry(); });
}

void DeviceHealthMonitor::Stop() {
  std::map<std::string, std::unique_ptr<Watcher>> watchers;
  {
    MutexLock lock(mu_);
    stopping_ = true;
    watchers.swap(watchers_);
  }
  wake_.SignalAll();
  watchers.clear();  // joins each
  if (expiry_thread_.joinable()) expiry_thread_.join();
}

void DeviceHealthMonitor::Watch(const std::string& driver,
                                const std::string& endpoint,
                                HealthApiVersion version) {
  std::unique_ptr<Watcher> old;
  {
    MutexLock lock(mu_);
    if (stopping_) return;
    auto it = watchers_.find(driver);
    if (it != watchers_.end()) {
      if (it->second->Serves(endpoint, version)) return;
      old = std::move(it->second);
      watchers_.erase(it);
    }
  }
  // The old stream ends (and clears the driver) before the new one starts.
  old.reset();
  auto watcher = std::make_unique<Watcher>(*this, driver, endpoint, version);
  MutexLock lock(mu_);
  if (stopping_ || watchers_.contains(driver)) return;
  watcher->Start();
  watchers_[driver] = std::move(watcher);
}

void DeviceHealthMonitor::Unwatch(const std::string& driver) {
  std::unique_ptr<Watcher> old;
  {
    MutexLock lock(mu_);
    auto it = watchers_.find(driver);
    if (it == watchers_.end()) return;
    old = std::move(it->second);
    watchers_.erase(it);
  }
  old.reset();  // ends the stream and clears the driver's health
}

int DeviceHealthMonitor::StreamsEstablished(const std::string& driver) const {
  MutexLock lock(mu_);
  auto it = established_.find(driver);
  return it == established_.end() ? 0 : it->second;
}

void DeviceHealthMonitor::RunExpiry() {
  while (true) {
    {
      MutexLock lock(mu_);
      wake_.WaitFor(mu_, options_.expiry_interval,
                    [this]() REQUIRES(mu_) { return stopping_; });
      if (stopping_) return;
    }
    Notify(cache_.ExpireStale(DeviceHealthCache::Clock::now()));
  }
}

void DeviceHealthMonitor::Notify(const std::vector<DeviceKey>& changed) const {
  if (!changed.empty() && on_change_) on_change_(changed);
}

}  // namespace dralloc::node
