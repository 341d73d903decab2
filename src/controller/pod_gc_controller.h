// PodGcController: pod garbage collection (upstream's podgc controller),
// with one dralloc extension.
//
// - Orphaned pods: a pod bound to a node that does not exist is deleted
//   (grace period 0) once the node has been missing for
//   `orphan_quarantine` (upstream: 40 s, so that a pod bound just before
//   its node registers survives), as upstream's gcOrphaned.
// - Terminating pods that were never bound are deleted with grace period 0
//   (upstream's gcUnscheduledTerminating).
// - dralloc extension: a *terminating* pod (deletionTimestamp set) whose
//   node has no running node agent — the Node does not exist, or has no
//   Ready condition with status "True" — is deleted with grace period 0 at
//   once. Clusters built from manifests have no kubelet to finish a
//   graceful deletion; without this `kubectl delete pod` would wait for
//   ever. A terminating pod on a Ready node is left to its node agent.
//
// Event-driven: handlers on the pod and node informers queue the pods that
// may need work; each is decided against a fresh read of its node from the
// API (the informer may lag behind a node that just became Ready), and
// deleted with a uid precondition.
#ifndef DRALLOC_CONTROLLER_POD_GC_CONTROLLER_H_
#define DRALLOC_CONTROLLER_POD_GC_CONTROLLER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "client/api_client.h"
#include "client/informer.h"
#include "client/retry_queue.h"
#include "common/mutex.h"

namespace dralloc::controller {

struct PodGcOptions {
  // How long a node must be missing before its pods are deleted as
  // orphans. Terminating pods do not wait.
  std::chrono::milliseconds orphan_quarantine{40'000};
  // Requeues of a failing pod, each after client-go's backoff
  // (client/retry_queue.h), before it waits for its next change.
  int max_retries = 5;
};

struct PodGcMetrics {
  uint64_t orphans_deleted = 0;      // bound to a node that does not exist
  uint64_t terminating_deleted = 0;  // terminating without a node agent
  uint64_t sync_errors = 0;
  uint64_t syncs = 0;
};

// True if `node` has a Ready condition with status "True" (a node agent
// heartbeats it).
bool NodeIsReady(const api::Node& node);

class PodGcController {
 public:
  // The informers must not be pumped before the controller is constructed
  // (it registers handlers).
  PodGcController(client::ApiClient& client, client::Informer& pods,
                  client::Informer& nodes, PodGcOptions options = {});
  ~PodGcController();

  // Queues the orphans whose quarantine has ended, then processes one
  // queued pod, waiting up to `wait` for one; false when there was none.
  bool ProcessOne(std::chrono::milliseconds wait = std::chrono::milliseconds(0))
      EXCLUDES(mu_);
  // One worker thread until Stop().
  void Start();
  void Stop();
  bool Idle() const { return queue_.Idle(); }
  PodGcMetrics metrics() const EXCLUDES(mu_);

 private:
  void OnPod(const client::ObjectPtr& old, const client::ObjectPtr& now)
      EXCLUDES(mu_);
  void OnNode(const client::ObjectPtr& old, const client::ObjectPtr& now)
      EXCLUDES(mu_);
  // Deletes the pod at `key` if one of the rules above applies.
  Status Sync(const std::string& key) EXCLUDES(mu_);
  // The node's state as the API has it now: nullopt when it does not exist.
  StatusOr<std::optional<bool>> NodeReady(const std::string& node);
  Status ForceDelete(const api::Pod& pod);
  // Moves the quarantined orphans whose time has come into the queue.
  void QueueDueOrphans() EXCLUDES(mu_);

  client::ApiClient& client_;
  client::Informer& pods_;
  client::Informer& nodes_;
  PodGcOptions options_;
  client::RetryQueue queue_;

  // mu_ guards the maps below and the metrics; never held across an API
  // call.
  mutable Mutex mu_;
  // node name → keys of the pods bound to it (from the pod informer).
  std::unordered_map<std::string, std::set<std::string>> pods_by_node_
      GUARDED_BY(mu_);
  // pod key → when its node was first seen missing.
  std::unordered_map<std::string, std::chrono::steady_clock::time_point>
      orphaned_since_ GUARDED_BY(mu_);
  // Orphans waiting for their quarantine to end.
  std::set<std::string> quarantined_ GUARDED_BY(mu_);
  PodGcMetrics metrics_ GUARDED_BY(mu_);

  std::atomic<bool> stopping_{false};
  std::thread worker_;
};

}  // namespace dralloc::controller

#endif  // DRALLOC_CONTROLLER_POD_GC_CONTROLLER_H_
