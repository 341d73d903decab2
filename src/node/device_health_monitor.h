// DeviceHealthMonitor: the kubelet's side of DRAResourceHealth
// (KEP-4680). For each registered driver that advertised a health service
// it keeps one NodeWatchResources stream open on the driver's endpoint and
// feeds every message (the driver's full device list) into a
// DeviceHealthCache.
//
// Contract:
// - Watch(driver, endpoint, version) starts (or, for a new endpoint or
//   version, restarts) the driver's stream; Unwatch(driver) ends it (the
//   driver de-registered). Both may be called from any thread.
// - When a stream ends or cannot be opened while the driver is watched,
//   the driver's health is cleared (its devices read Unknown, as in the
//   kubelet) and the stream is opened again after a backoff that doubles
//   from retry_initial up to retry_max and starts over once a stream
//   delivered a message.
// - A thread sweeps the cache every expiry_interval so that devices whose
//   report timed out become Unknown.
// - Every change of the cache (message, stream end, expiry) is passed to
//   the change listener with the devices concerned, on the monitor's
//   threads, never with a lock of the monitor held.
#ifndef DRALLOC_NODE_DEVICE_HEALTH_MONITOR_H_
#define DRALLOC_NODE_DEVICE_HEALTH_MONITOR_H_

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "node/device_health_cache.h"

namespace dralloc::node {

enum class HealthApiVersion { kV1, kV1alpha1 };
// "v1.DRAResourceHealth" / "v1alpha1.DRAResourceHealth": the names in
// PluginInfo.supported_versions.
const char* HealthServiceName(HealthApiVersion version);
// The health service to use among a driver's supported_versions (v1
// preferred); nullopt when it advertises none.
std::optional<HealthApiVersion> NegotiateHealthVersion(
    const std::vector<std::string>& supported_versions);

struct DeviceHealthMonitorOptions {
  std::chrono::milliseconds retry_initial{500};
  std::chrono::milliseconds retry_max{30000};
  std::chrono::milliseconds expiry_interval{1000};
};

class DeviceHealthMonitor {
 public:
  using ChangeListener = std::function<void(const std::vector<DeviceKey>&)>;

  // `cache` must outlive the monitor.
  DeviceHealthMonitor(DeviceHealthCache& cache, ChangeListener on_change,
                      DeviceHealthMonitorOptions options = {});
  ~DeviceHealthMonitor();
  DeviceHealthMonitor(const DeviceHealthMonitor&) = delete;
  DeviceHealthMonitor& operator=(const DeviceHealthMonitor&) = delete;

  // Starts the expiry sweep.
  void Start() EXCLUDES(mu_);
  // Ends every stream and the sweep.
  void Stop() EXCLUDES(mu_);

  void Watch(const std::string& driver, const std::string& endpoint,
             HealthApiVersion version) EXCLUDES(mu_);
  void Unwatch(const std::string& driver) EXCLUDES(mu_);

  // How many streams to `driver` were opened and delivered a first message
  // (for tests and diagnostics).
  int StreamsEstablished(const std::string& driver) const EXCLUDES(mu_);

 private:
  class Watcher;

  void RunExpiry() EXCLUDES(mu_);
  void Notify(const std::vector<DeviceKey>& changed) const;

  DeviceHealthCache& cache_;
  const ChangeListener on_change_;
  const DeviceHealthMonitorOptions options_;

  mutable Mutex mu_;
  CondVar wake_;
  std::map<std::string, std::unique_ptr<Watcher>> watchers_ GUARDED_BY(mu_);
  std::map<std::string, int> established_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread expiry_thread_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_DEVICE_HEALTH_MONITOR_H_
