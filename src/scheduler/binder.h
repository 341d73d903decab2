// Binder: the binding cycle. Runs PreBind (DraPlugin) and Bind
// (pods/binding) for each task the scheduling cycle reserved, on its own
// threads, and Unreserve when either fails.
//
// Successful bindings are not booked here: they wait in a list that the
// scheduling thread takes with TakeBound while it holds its own lock
// anyway, so a binder never takes the scheduling lock per pod (taking it
// made the two threads take turns on it). Failures are rare and go to the
// failure handler, which takes the scheduling lock to restore the
// snapshot and requeue the pod.
//
// KEP-5007: when a claim the task wrote has devices with binding
// conditions, the task does not bind right away. It waits in waiting_,
// without holding a binder thread, until every binding condition of those
// devices is True in the claim's status.devices (then Bind), or a binding
// failure condition is True or BindingWaitOptions::timeout passed (then
// Unreserve, which releases the allocation, and the failure handler, which
// sends the pod back to the queue). One waiter thread re-checks the waiting
// tasks every poll_interval; CheckWaiting does one round (for tests and
// threads 0). A waiting task stays in flight; Stop abandons waiting tasks
// (their claims stay allocated and reserved, the pod unbound, and
// WaitForBinds must not be called afterwards).
//
// Locks: mu_ guards the task queue, waiting_ and stopping_; bound_mu_ guards
// bound_ and is taken by the scheduling thread while it holds its own lock,
// never the other way round. in_flight_ is atomic.
#ifndef DRALLOC_SCHEDULER_BINDER_H_
#define DRALLOC_SCHEDULER_BINDER_H_

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "client/api_client.h"
#include "common/mutex.h"
#include "scheduler/bind_task.h"
#include "scheduler/dra_plugin.h"

namespace dralloc::scheduler {

struct BindingWaitOptions {
  // Upstream's BindingTimeout (DynamicResources plugin args), 600 s.
  std::chrono::seconds timeout{600};
  // How often the waiter re-reads the waiting claims.
  std::chrono::milliseconds poll_interval{500};
};

class Binder {
 public:
  // Called on the binding thread after a failed binding was unreserved.
  // `why` is the scheduling error as upstream words it ("running PreBind
  // plugin \"DynamicResources\": ...", "binding rejected: ...").
  using FailureHandler =
      std::function<void(const BindTask& task, const std::string& why)>;
  // Called on the binding thread after a pod was bound.
  using SuccessHandler = std::function<void(const BindTask& task)>;
  // Called once when a task starts waiting for binding conditions.
  using PendingHandler = std::function<void(const BindTask& task)>;
  // Called when a binding failure condition or the timeout ends the wait,
  // before Unreserve; `why` is upstream's PreBind error text.
  using BindingFailedHandler =
      std::function<void(const BindTask& task, const std::string& why)>;

  // `threads` 0 binds inline in Submit. `client` and `dra` must outlive
  // the binder.
  Binder(client::ApiClient& client, const DraPlugin& dra, int threads,
         FailureHandler on_failure, SuccessHandler on_success = nullptr,
         BindingWaitOptions wait = {}, PendingHandler on_pending = nullptr,
         BindingFailedHandler on_binding_failed = nullptr);
  ~Binder();
  Binder(const Binder&) = delete;
  Binder& operator=(const Binder&) = delete;

  // Starts the binding threads.
  void Start();
  // Finishes the queued tasks and joins the threads; Submit must not be
  // called afterwards.
  void Stop() EXCLUDES(mu_);

  // Counts a task about to be submitted. The scheduling thread calls it
  // while it still holds its lock, so that no observer of that lock sees
  // the pod neither queued nor binding.
  void Announce() { ++in_flight_; }
  // Runs (threads 0) or queues an announced task.
  void Submit(BindTask task) EXCLUDES(mu_, bound_mu_);
  // Tasks announced and not finished.
  int in_flight() const { return in_flight_.load(); }
  // Blocks until every announced task has finished.
  void WaitForBinds() EXCLUDES(mu_);
  // Moves the bindings that succeeded since the last call to `out` (empty).
  void TakeBound(std::vector<BoundPod>& out) EXCLUDES(bound_mu_);
  // Re-checks every task waiting for binding conditions once: binds the
  // ready ones, fails the failed and timed-out ones, keeps the others.
  void CheckWaiting() EXCLUDES(mu_, bound_mu_);
  // Tasks waiting for binding conditions.
  int waiting() EXCLUDES(mu_);

 private:
  struct WaitingTask {
    BindTask task;
    BoundPod done;
    std::chrono::steady_clock::time_point deadline;
  };

  void Run(BindTask task) EXCLUDES(mu_, bound_mu_);
  // Bind after a successful PreBind (and binding conditions), then book
  // the result or unreserve; ends the task.
  void BindAndFinish(const BindTask& task, BoundPod done)
      EXCLUDES(mu_, bound_mu_);
  void Fail(const BindTask& task, const BoundPod& done, const std::string& why)
      EXCLUDES(mu_);
  // A binding failure condition or the timeout ended the wait.
  void FailWaiting(const WaitingTask& entry, const std::string& why)
      EXCLUDES(mu_);
  void EndTask() EXCLUDES(mu_);
  void Loop() EXCLUDES(mu_, bound_mu_);
  void WaitLoop() EXCLUDES(mu_, bound_mu_);

  client::ApiClient& client_;
  const DraPlugin& dra_;
  const int threads_;
  const FailureHandler on_failure_;
  const SuccessHandler on_success_;
  const BindingWaitOptions wait_;
  const PendingHandler on_pending_;
  const BindingFailedHandler on_binding_failed_;

  Mutex mu_;
  CondVar work_cv_;
  CondVar done_cv_;    // in_flight_ reached 0
  CondVar waiter_cv_;  // stopping_ set
  std::deque<BindTask> queue_ GUARDED_BY(mu_);
  std::vector<WaitingTask> waiting_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;

  Mutex bound_mu_;
  std::vector<BoundPod> bound_ GUARDED_BY(bound_mu_);

  std::atomic<int> in_flight_{0};
  std::vector<std::thread> workers_;
  std::thread waiter_;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_BINDER_H_
