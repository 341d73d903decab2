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
// Locks: mu_ guards the task queue and stopping_; bound_mu_ guards bound_
// and is taken by the scheduling thread while it holds its own lock, never
// the other way round. in_flight_ is atomic.
#ifndef DRALLOC_SCHEDULER_BINDER_H_
#define DRALLOC_SCHEDULER_BINDER_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "client/api_client.h"
#include "scheduler/bind_task.h"
#include "scheduler/dra_plugin.h"

namespace dralloc::scheduler {

class Binder {
 public:
  // Called on the binding thread after a failed binding was unreserved.
  using FailureHandler = std::function<void(const BindTask& task)>;

  // `threads` 0 binds inline in Submit. `client` and `dra` must outlive
  // the binder.
  Binder(client::ApiClient& client, const DraPlugin& dra, int threads,
         FailureHandler on_failure);
  ~Binder();
  Binder(const Binder&) = delete;
  Binder& operator=(const Binder&) = delete;

  // Starts the binding threads.
  void Start();
  // Finishes the queued tasks and joins the threads; Submit must not be
  // called afterwards.
  void Stop();

  // Counts a task about to be submitted. The scheduling thread calls it
  // while it still holds its lock, so that no observer of that lock sees
  // the pod neither queued nor binding.
  void Announce() { ++in_flight_; }
  // Runs (threads 0) or queues an announced task.
  void Submit(BindTask task);
  // Tasks announced and not finished.
  int in_flight() const { return in_flight_.load(); }
  // Blocks until every announced task has finished.
  void WaitForBinds();
  // Moves the bindings that succeeded since the last call to `out` (empty).
  void TakeBound(std::vector<BoundPod>& out);

 private:
  void Run(BindTask task);
  void Loop();

  client::ApiClient& client_;
  const DraPlugin& dra_;
  const int threads_;
  const FailureHandler on_failure_;

  std::mutex mu_;  // guards queue_ and stopping_
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;  // in_flight_ reached 0
  std::deque<BindTask> queue_;
  bool stopping_ = false;

  std::mutex bound_mu_;  // guards bound_
  std::vector<BoundPod> bound_;

  std::atomic<int> in_flight_{0};
  std::vector<std::thread> workers_;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_BINDER_H_
