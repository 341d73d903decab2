// DraPluginManager: which DRA drivers are registered on this node, after
// the kubelet's plugin registration handshake and its DRAPluginManager.
//
// For each socket the PluginWatcher reports, a worker thread dials it,
// calls Registration.GetInfo (bounded by a deadline) and accepts only type
// "DRAPlugin" with a non-empty name and a DRA service version it speaks
// (v1.DRAPlugin preferred over v1beta1.DRAPlugin); it answers with
// NotifyRegistrationStatus (plugin_registered and, when rejected, why). A
// An empty PluginInfo.endpoint means the registration socket itself serves
// the DRA service (as in the kubelet). A
// socket nothing answers on (stale) is retried with exponential backoff
// while the file exists.
//
// One driver may be registered several times (a rolling update): the
// newest registration serves calls, older ones remain as fallbacks until
// their socket goes. When a driver's last socket goes, the driver is
// unregistered at once, and after `wiping_delay` without a new
// registration its ResourceSlices of this node are deleted (drivers
// re-publish when they come back). WipeNodeSlices deletes all of the
// node's slices, as the kubelet does at startup.
#ifndef DRALLOC_NODE_DRA_PLUGIN_MANAGER_H_
#define DRALLOC_NODE_DRA_PLUGIN_MANAGER_H_

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "client/api_client.h"
#include "common/mutex.h"
#include "common/status.h"
#include "node/dra_plugin_client.h"
#include "node/plugin_watcher.h"

namespace dralloc::node {

struct DraPluginManagerOptions {
  std::string node_name;
  // Deadline of each NodePrepare/NodeUnprepare call (kubelet: 45 s).
  std::chrono::milliseconds call_timeout{45000};
  // Deadline of GetInfo and NotifyRegistrationStatus.
  std::chrono::milliseconds registration_timeout{5000};
  // How long a driver may be gone before its slices are deleted.
  std::chrono::milliseconds wiping_delay{30000};
  // Backoff of registration and slice-deletion retries.
  std::chrono::milliseconds retry_initial{100};
  std::chrono::milliseconds retry_max{30000};
};

// A driver's newest registration (registered) or its going (!registered):
// what the device health monitor needs.
struct DriverRegistration {
  std::string driver;
  bool registered = false;
  std::string endpoint;                         // when registered
  std::vector<std::string> supported_versions;  // when registered
};

class DraPluginManager {
 public:
  // `api` (may be null: no slices are wiped) must outlive the manager.
  DraPluginManager(client::ApiClient* api, DraPluginManagerOptions options);
  ~DraPluginManager();
  DraPluginManager(const DraPluginManager&) = delete;
  DraPluginManager& operator=(const DraPluginManager&) = delete;

  // Called (on the manager's thread) after each successful registration,
  // with the driver's name. Set before Start().
  void SetRegistrationListener(std::function<void(const std::string&)> f) {
    on_registered_ = std::move(f);
  }

  // Called when a driver's newest registration changes and when its last
  // one goes, on the manager's or the plugin watcher's thread, without
  // locks held. Set before Start().
  void SetDriverListener(std::function<void(const DriverRegistration&)> f) {
    on_driver_ = std::move(f);
  }

  void Start();
  void Stop() EXCLUDES(mu_);

  // The PluginWatcher's handler.
  void OnSocketEvent(const PluginSocketEvent& event) EXCLUDES(mu_);

  // The client of the newest registration of `driver`; kUnavailable
  // "driver X is not registered" when there is none.
  StatusOr<std::shared_ptr<const DraPluginClient>> GetClient(
      std::string_view driver) const EXCLUDES(mu_);
  std::vector<std::string> RegisteredDrivers() const EXCLUDES(mu_);

  // Deletes this node's ResourceSlices (of `driver` only, when non-empty).
  Status WipeNodeSlices(std::string_view driver);

 private:
  using Clock = std::chrono::steady_clock;
  struct Registration {
    std::string socket;
    std::shared_ptr<const DraPluginClient> client;
    std::vector<std::string> supported_versions;
  };
  struct PendingSocket {
    Clock::time_point due;
    std::chrono::milliseconds backoff;
  };
  struct PendingWipe {
    Clock::time_point due;
    std::chrono::milliseconds backoff;
  };

  void Run() EXCLUDES(mu_);
  // Does what is due; returns when the next task is due.
  Clock::time_point RunDueTasks() EXCLUDES(mu_);
  // One registration attempt; false when it should be retried.
  bool TryRegister(const std::string& socket) EXCLUDES(mu_);
  void AddRegistration(const std::string& socket,
                       std::shared_ptr<const DraPluginClient> client,
                       std::vector<std::string> supported_versions)
      EXCLUDES(mu_);
  void RemoveSocket(const std::string& socket) EXCLUDES(mu_);
  // Removes `socket`; adds the drivers' changes to `changes`.
  void EraseSocket(const std::string& socket,
                   std::vector<DriverRegistration>& changes) EXCLUDES(mu_);
  std::chrono::milliseconds NextBackoff(std::chrono::milliseconds now) const;

  client::ApiClient* const api_;
  const DraPluginManagerOptions options_;
  std::function<void(const std::string&)> on_registered_;
  std::function<void(const DriverRegistration&)> on_driver_;

  mutable Mutex mu_;
  CondVar wake_;
  // Driver name → its registrations, oldest first.
  std::map<std::string, std::vector<Registration>, std::less<>> drivers_
      GUARDED_BY(mu_);
  // Sockets waiting for a (re)try of the handshake.
  std::map<std::string, PendingSocket> pending_sockets_ GUARDED_BY(mu_);
  // Drivers whose slices are to be deleted.
  std::map<std::string, PendingWipe> pending_wipes_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  bool kicked_ GUARDED_BY(mu_) = false;  // new work: re-plan at once
  std::thread thread_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_DRA_PLUGIN_MANAGER_H_
