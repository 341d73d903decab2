// Scheduler: places pods on nodes, allocating their ResourceClaims.
//
// One scheduling cycle per pod, like kube-scheduler with its
// DynamicResources plugin: PreFilter (the pod's claims exist, generated
// claims are the pod's, classes resolve), Filter per node (node name,
// taints, node affinity; allocated claims' node selectors; the structured
// allocator for unallocated claims), Score (KEP-4816 prioritized-list
// scoring, optional pack/spread device placement), Reserve (the allocation
// is assumed so the next pod cannot take the same devices), then PreBind
// (claim finalizer, status.allocation and reservedFor, with optimistic
// concurrency) and Bind (pods/binding) on binder threads; Unreserve on
// failure. Pods that do not fit get PodScheduled=False with the reasons
// per node and a FailedScheduling event, and wait until a change (claim,
// slice, class, node) could help, with exponential backoff.
//
// The parts, cut along upstream's seams: SchedulingQueue (which pod next),
// ClusterSnapshot (nodes, devices, claims with assumptions), the Filter
// plugins (node_plugin.h, DefaultProfile) and DraPlugin (one method per
// extension point), and Binder (the binding cycle on its own threads).
// Scheduler wires them to the informers and runs the cycle.
#ifndef DRALLOC_SCHEDULER_SCHEDULER_H_
#define DRALLOC_SCHEDULER_SCHEDULER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>

#include "client/api_client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "common/mutex.h"
#include "scheduler/binder.h"
#include "scheduler/cluster_snapshot.h"
#include "scheduler/dra_plugin.h"
#include "scheduler/scheduling_framework.h"
#include "scheduler/scheduling_queue.h"

namespace dralloc::scheduler {

struct SchedulerOptions {
  std::string scheduler_name = "dralloc-scheduler";
  // Also schedule pods with no schedulerName or "default-scheduler" (for a
  // cluster without kube-scheduler, like `dralloc serve`).
  bool schedule_default_pods = true;
  Placement placement = Placement::kDefault;
  // Threads running PreBind + Bind; 0 binds inline in ScheduleOne.
  int binders = 4;
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{10000};
  // Allocator search budget per node.
  uint64_t max_steps = 2'000'000;
  // Evaluate every node instead of upstream's numFeasibleNodesToFind
  // (results then do not depend on the start node).
  bool evaluate_all_nodes = false;
  // KEP-5007: how long PreBind waits for the binding conditions of the
  // allocated devices (upstream's BindingTimeout), and how often it looks.
  BindingWaitOptions binding_wait;
};

struct SchedulerStats {
  uint64_t scheduled = 0;
  uint64_t unschedulable = 0;    // failed scheduling attempts
  uint64_t bind_failures = 0;    // PreBind/Bind failed (pod retried)
  uint64_t nodes_evaluated = 0;  // Filter calls
  uint64_t allocator_calls = 0;
  uint64_t deallocations = 0;  // PostFilter deallocations
};

// The informers the scheduler reads: the snapshot's (pods included).
using SchedulerInformers = SnapshotSources;

class Scheduler {
 public:
  // Registers handlers: construct before the informers are pumped.
  Scheduler(client::ApiClient& client, SchedulerInformers informers,
            SchedulerOptions options = {});
  ~Scheduler();

  // Schedules the next pod of the queue, waiting up to `wait` for one.
  // False when there was none.
  bool ScheduleOne(std::chrono::milliseconds wait =
                       std::chrono::milliseconds(0)) EXCLUDES(mu_);
  // Runs the scheduling loop and the binders until Stop().
  void Start();
  void Stop() EXCLUDES(mu_);
  // Only the binders (SchedulerOptions::binders threads), for a caller that
  // runs the scheduling loop itself with ScheduleOne; Stop() ends them.
  void StartBinders();
  // Blocks until every binding handed to the binders has finished.
  void WaitForBinds();
  // Builds the device inventory and node list from the informers now rather
  // than in the first scheduling cycle.
  void WarmUp() EXCLUDES(mu_);
  // No pod is queued (active or backing off) and no binding is in flight.
  bool Idle() const EXCLUDES(mu_);
  SchedulerStats stats() EXCLUDES(mu_);

  bool Responsible(const api::Pod& pod) const;

 private:
  struct Outcome;  // one cycle's result (scheduler.cc)

  // Informer handlers.
  void OnPod(const client::ObjectPtr& old, const client::ObjectPtr& now)
      EXCLUDES(mu_);
  void OnClaim(const client::ObjectPtr& old, const client::ObjectPtr& now)
      EXCLUDES(mu_);
  void OnDeviceSource(const client::ObjectPtr& old,
                      const client::ObjectPtr& now) EXCLUDES(mu_);
  void OnNode(const client::ObjectPtr& old, const client::ObjectPtr& now)
      EXCLUDES(mu_);
  // Classic DRA: a v1alpha2 claim changed (its driver allocated or
  // deallocated it), or a driver answered in a PodSchedulingContext.
  void OnClassicClaim(const client::ObjectPtr& old,
                      const client::ObjectPtr& now) EXCLUDES(mu_);
  void OnSchedulingContext(const client::ObjectPtr& old,
                           const client::ObjectPtr& now) EXCLUDES(mu_);

  // The scheduling cycle: the plugins in upstream's order.
  Outcome Cycle(const client::ObjectPtr& pod_object) REQUIRES(mu_);
  // Confirms the claims the finished bindings wrote and counts their pods.
  void BookBound() REQUIRES(mu_);
  // The binder's failure handler (binder thread). A binding failed with
  // `why`: the assumptions go, the pod is queued again with backoff, and it
  // gets a FailedScheduling event and PodScheduled=False (SchedulerError).
  void OnBindFailed(const BindTask& task, const std::string& why) EXCLUDES(mu_);
  void ReportSchedulerError(const api::Pod& pod, const std::string& why);
  // Records the FailedScheduling event `message` for `pod`.
  void RecordFailedScheduling(const api::Pod& pod, const std::string& message);
  // A FailedScheduling event (every attempt, as upstream; the recorder
  // counts repeats) and, when the message `changed`, PodScheduled=False.
  void ReportUnschedulable(const api::Pod& pod, const std::string& message,
                           bool changed) EXCLUDES(mu_);
  // The binder's success handler (binder thread): the Scheduled event.
  void ReportScheduled(const BindTask& task);
  // The binder's pending handler (binder thread): upstream's
  // BindingConditionsPending event.
  void ReportBindingConditionsPending(const BindTask& task);

  client::ApiClient& client_;
  client::EventRecorder events_;
  SchedulerInformers informers_;
  const SchedulerOptions options_;

  // mu_ guards the queue, the snapshot (and so every DraPlugin method that
  // reads it), next_start_node_ and stats_. The informer handlers, the
  // scheduling cycle and failed bindings take it; successful bindings do
  // not (BookBound collects them). Binder::bound_mu_ is taken after it.
  // dra_ reads snapshot_ through a reference the analysis cannot see: its
  // scheduling-side methods are called with mu_ held.
  mutable Mutex mu_;
  SchedulingQueue queue_ GUARDED_BY(mu_);
  ClusterSnapshot snapshot_ GUARDED_BY(mu_);
  size_t next_start_node_ GUARDED_BY(mu_) = 0;
  SchedulerStats stats_ GUARDED_BY(mu_);

  // The plugins: stateless, or (dra_) stateful only through the snapshot
  // above; framework_ runs them (under mu_).
  DraPlugin dra_;
  SchedulingFramework framework_ GUARDED_BY(mu_);
  // Its own locks (binder.h); takes mu_ only through OnBindFailed.
  Binder binder_;

  std::atomic<bool> stopping_{false};
  std::thread loop_;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_SCHEDULER_H_
