// HttpWorkerPool: the threads that run request handlers.
//
// A connection gets a thread only once a whole request has arrived; the
// handler may block (body writes, watch streams that last minutes). The pool
// grows whenever no thread is idle and keeps a finished thread around for
// `keep_idle` to serve the next request, so a steady load reuses threads
// while idle and stalled connections hold none. Its size is bounded by the
// server's connection bound (one request per connection at a time).
#ifndef DRALLOC_APISERVER_HTTP_WORKER_POOL_H_
#define DRALLOC_APISERVER_HTTP_WORKER_POOL_H_

#include <chrono>
#include <deque>
#include <functional>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace dralloc::apiserver {

class HttpWorkerPool {
 public:
  explicit HttpWorkerPool(
      std::chrono::milliseconds keep_idle = std::chrono::seconds(30));
  ~HttpWorkerPool();  // Stop(10 s)

  // Runs `job` on a pool thread; false once stopping (the job is dropped).
  bool Submit(std::function<void()> job) EXCLUDES(mu_);
  // Refuses new jobs, lets running ones finish and waits up to `timeout`
  // for every thread to end; false when some are still running.
  bool Stop(std::chrono::milliseconds timeout) EXCLUDES(mu_);
  size_t threads() const EXCLUDES(mu_);

 private:
  void RunWorker() EXCLUDES(mu_);

  const std::chrono::milliseconds keep_idle_;
  mutable Mutex mu_;
  CondVar work_or_stop_;
  CondVar all_exited_;
  std::deque<std::function<void()>> jobs_ GUARDED_BY(mu_);
  size_t threads_ GUARDED_BY(mu_) = 0;
  size_t idle_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_HTTP_WORKER_POOL_H_
