#include "apiserver/http_worker_pool.h"

#include <thread>
#include <utility>

namespace dralloc::apiserver {

HttpWorkerPool::HttpWorkerPool(std::chrono::milliseconds keep_idle)
    : keep_idle_(keep_idle) {}

HttpWorkerPool::~HttpWorkerPool() { Stop(std::chrono::seconds(10)); }

bool HttpWorkerPool::Submit(std::function<void()> job) {
  MutexLock lock(mu_);
  if (stopping_) return false;
  jobs_.push_back(std::move(job));
  // Every idle thread takes one queued job; more jobs than idle threads
  // need a new thread.
  if (jobs_.size() > idle_) {
    ++threads_;
    std::thread([this] { RunWorker(); }).detach();
  } else {
    work_or_stop_.Signal();
  }
  return true;
}

void HttpWorkerPool::RunWorker() {
  for (;;) {
    std::function<void()> job;
    {
      MutexLock lock(mu_);
      if (jobs_.empty() && !stopping_) {
        ++idle_;
        work_or_stop_.WaitFor(mu_, keep_idle_, [this]() REQUIRES(mu_) {
          return !jobs_.empty() || stopping_;
        });
        --idle_;
      }
      if (jobs_.empty()) {
        if (--threads_ == 0) all_exited_.SignalAll();
        return;
      }
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

bool HttpWorkerPool::Stop(std::chrono::milliseconds timeout) {
  MutexLock lock(mu_);
  stopping_ = true;
  work_or_stop_.SignalAll();
  return all_exited_.WaitFor(mu_, timeout,
                             [this]() REQUIRES(mu_) { return threads_ == 0; });
}

size_t HttpWorkerPool::threads() const {
  MutexLock lock(mu_);
  return threads_;
}

}  // namespace dralloc::apiserver
