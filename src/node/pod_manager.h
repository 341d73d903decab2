// PodManager: the node agent's pod lifecycle (the kubelet's pod workers, as
// far as DRA needs them), without a container runtime.
//
// It lists and watches this node's pods (fieldSelector spec.nodeName) and
// reads each claim of a pod with a live get, as a kubelet does: under the
// Node authorizer a node may only get the claims of pods bound to it, never
// list or watch claims. Every pod bound to this node is synced by one of
// `workers` threads (one pod is never synced by two at once; different pods
// are, as the kubelet's per-pod workers), in the kubelet's order:
//   1. each pod.spec.resourceClaims[] entry resolves to a claim (by
//      resourceClaimName or the generated name in status); that claim must
//      exist, be allocated and list the pod's UID in status.reservedFor.
//      Otherwise the pod does not start: a Warning Event names the claim and
//      why, and the pod's claims are read again after a short bounded
//      backoff (claim_recheck_initial doubling to claim_recheck_max), so it
//      starts soon after its claim is ready without a claim watch;
//   2. containers are reported waiting (ContainerCreating);
//   3. all claims are prepared, one call per driver (DraManager);
//   4. each container's claims (resources.claims[] name + request) map to
//      the CDI device IDs of the devices serving that request, which the
//      CDI resolver must know;
//   5. the containers are started by the ContainerRuntime (simulated by
//      default) and the pod's status is what the runtime reports; it is
//      written again whenever the runtime's container states change.
// Statuses are written in the background by a PodStatusWriter (the
// kubelet's status manager): per pod the latest wins, so a ContainerCreating
// status overtaken by Running before it was written is never sent.
// Failures of 3 and 4 are Warning Events (FailedPrepareDynamicResources)
// and retried with exponential backoff (backoff_initial to backoff_max).
//
// A pod that is deleted or gets a deletionTimestamp has its containers
// stopped, its claims unprepared when no other pod on the node uses them,
// and (when it still exists) is deleted with grace period 0. Unprepare
// failures are retried with backoff; nothing prepared is forgotten.
// At start, claims of pods that no longer exist are unprepared.
#ifndef DRALLOC_NODE_POD_MANAGER_H_
#define DRALLOC_NODE_POD_MANAGER_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cdi/spec.h"
#include "client/api_client.h"
#include "client/informer.h"
#include "client/work_queue.h"
#include "common/mutex.h"
#include "node/container_runtime.h"
#include "node/dra_manager.h"
#include "node/node_claim.h"
#include "node/pod_status_writer.h"
#include "node/simulated_runtime.h"

namespace dralloc::node {

struct PodManagerOptions {
  std::string node_name;
  std::string host_ip = "127.0.0.1";
  std::chrono::milliseconds backoff_initial{500};
  std::chrono::milliseconds backoff_max{60000};
  // A pod whose claims are not ready (missing, not allocated, not reserved
  // for it, or not readable yet) reads them again after this, doubling up
  // to claim_recheck_max; reset once they are ready.
  std::chrono::milliseconds claim_recheck_initial{200};
  std::chrono::milliseconds claim_recheck_max{2000};
  // Claims recorded for pods that are gone (e.g. force-deleted before the
  // agent synced them after a restart) are unprepared within this period,
  // as by the kubelet's DRA reconcile.
  std::chrono::milliseconds reconcile_period{60000};
  // Pods synced at once (each blocks on driver calls).
  int workers = 16;
  // Threads writing pod statuses (PodStatusWriter).
  int status_writers = 4;
  // Applied to every pod status before it is written (device health:
  // DeviceHealthPodUpdater::Decorate); may be empty.
  std::function<void(const api::Pod&, api::PodStatus&)> decorate_status;
};

// A claim a container uses (containers[].resources.claims[]), resolved.
struct ContainerClaim {
  std::string claim_uid;
  std::string claim_name;
  std::string claim_namespace;
  std::string request;  // "" = all of the claim
};

// A pod reported Running, with each container's claims (for PodResources).
struct RunningPod {
  std::string name;
  std::string namespace_;
  std::vector<std::pair<std::string, std::vector<ContainerClaim>>> containers;
};

class PodManager {
 public:
  // The container edits of CDI device IDs (CdiDeviceResolver::Resolve);
  // an error names the unresolvable IDs.
  using CdiResolver = std::function<StatusOr<cdi::ContainerEdits>(
      const std::vector<std::string>& cdi_device_ids)>;

  // `runtime` (null: a SimulatedRuntime of its own) must outlive the
  // manager.
  PodManager(client::ApiClient& api, DraManager& dra, CdiResolver cdi,
             PodManagerOptions options, ContainerRuntime* runtime = nullptr);
  ~PodManager();
  PodManager(const PodManager&) = delete;
  PodManager& operator=(const PodManager&) = delete;

  // Starts the pod informer, waits (up to `sync_timeout`) for its first
  // list, forgets claims of pods that are gone and starts the workers.
  Status Start(std::chrono::milliseconds sync_timeout) EXCLUDES(mu_);
  void Stop();

  // Syncs again, now, every pod that is not running yet and everything
  // waiting for a retry (a driver registered).
  void RequeueWaitingPods() EXCLUDES(mu_);

  // Per container of a pod ("namespace/name"), its CDI IDs and edits; set
  // before the pod is reported Running.
  std::vector<ContainerDevices> DevicesOf(const std::string& pod_key) const
      EXCLUDES(mu_);
  // Whether the pod was reported Running.
  bool IsRunning(const std::string& pod_key) const EXCLUDES(mu_);
  // Every pod reported Running, by key order.
  std::vector<RunningPod> RunningPods() const EXCLUDES(mu_);

 private:
  struct PodRecord {
    std::string uid;
    bool running = false;
    bool creating_reported = false;
    std::string last_warning;  // suppresses repeats of the same Event
    std::chrono::milliseconds backoff{0};
    uint64_t written_version = 0;  // runtime StateVersion last written
    std::vector<ContainerDevices> devices;
    RunningPod running_pod;  // when running
    bool released = false;   // finished, and its claims unprepared
    // The wait before its claims are read again (0: they were ready).
    std::chrono::milliseconds claim_recheck{0};
  };
  using Clock = std::chrono::steady_clock;

  void OnPod(const client::ObjectPtr& old, const client::ObjectPtr& now);
  void Run();
  void QueueDueRetries() EXCLUDES(mu_);
  // Syncs one pod key; false when it should be retried with backoff.
  bool SyncPod(const std::string& key) EXCLUDES(mu_);
  bool StartPod(const std::string& key, const api::Pod& pod) EXCLUDES(mu_);
  // Writes the runtime's status of a started pod when its states changed.
  bool SyncRunningPod(const std::string& key, const api::Pod& pod)
      EXCLUDES(mu_);
  // Unprepares the claims of a pod that finished (once).
  bool ReleaseFinished(const std::string& key, const api::Pod& pod)
      EXCLUDES(mu_);
  bool TerminatePod(const std::string& key, const std::string& uid,
                    const api::Pod* pod) EXCLUDES(mu_);
  // The claims of `pod`, each read from the API (a get per claim, of
  // either family) and existing, allocated and reserved for it. With
  // KEP-5004, the claim named by status.extendedResourceClaimStatus is last.
  StatusOr<std::vector<NodeClaim>> PodClaims(const api::Pod& pod) const;
  // Claim `name` in the pod's namespace: resource.k8s.io/v1, else (when
  // `either_family`) v1alpha2; kFailedPrecondition when neither exists.
  StatusOr<NodeClaim> FetchClaim(const api::Pod& pod, const std::string& name,
                                 const std::string& what,
                                 bool either_family) const;
  // Generated claims must be the pod's; every claim allocated and reserved
  // for the pod. Errors start with `what`.
  static Status CheckUsable(const NodeClaim& claim, const api::Pod& pod,
                            bool generated, const std::string& what);
  StatusOr<std::vector<ContainerDevices>> ContainerDevicesOf(
      const api::Pod& pod, const std::vector<NodeClaim>& claims) const;
  static RunningPod RunningPodOf(const api::Pod& pod,
                                 const std::vector<NodeClaim>& claims);
  // Has `status_of` (then decorate_status) written in the background.
  void SetStatus(const std::string& key, const api::Pod& pod,
                 std::function<api::PodStatus(const api::Pod&)> status_of);
  void OnStatusWriteFailed(const std::string& key, const Status& error)
      EXCLUDES(mu_);
  void Warn(const std::string& key, const api::Pod& pod,
            const std::string& reason, const std::string& message)
      EXCLUDES(mu_);
  void ScheduleRetry(const std::string& key) EXCLUDES(mu_);
  // The UIDs of the pods whose claims stay recorded: this node's pods that
  // have not finished, and every pod the agent keeps a record of.
  std::set<std::string> ActivePodUids() const EXCLUDES(mu_);
  // Forgets the pods not active and unprepares the claims no pod uses.
  Status ReconcileClaims();
  void QueueReconcileWhenDue() EXCLUDES(mu_);
  // Whether the pod `key` with `uid` may be published terminal: its claims
  // were unprepared, or the agent keeps no record of it.
  bool Released(const std::string& key, const std::string& uid) const
      EXCLUDES(mu_);
  // Syncs `key` again after its claim recheck backoff, which then doubles.
  void ScheduleClaimRecheck(const std::string& key) EXCLUDES(mu_);

  client::ApiClient& api_;
  DraManager& dra_;
  const CdiResolver cdi_;
  const PodManagerOptions options_;
  std::unique_ptr<SimulatedRuntime> own_runtime_;
  ContainerRuntime* runtime_;
  client::Informer pods_;
  client::WorkQueue queue_;
  PodStatusWriter status_writer_;

  mutable Mutex mu_;
  std::map<std::string, PodRecord> records_ GUARDED_BY(mu_);
  std::map<std::string, Clock::time_point> retries_ GUARDED_BY(mu_);
  std::chrono::milliseconds unused_backoff_ GUARDED_BY(mu_){0};
  Clock::time_point next_reconcile_ GUARDED_BY(mu_);

  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_POD_MANAGER_H_
