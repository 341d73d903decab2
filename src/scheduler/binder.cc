#include "scheduler/binder.h"

#include "common/log.h"

namespace dralloc::scheduler {

Binder::Binder(client::ApiClient& client, const DraPlugin& dra, int threads,
               FailureHandler on_failure, SuccessHandler on_success)
    : client_(client),
      dra_(dra),
      threads_(threads),
      on_failure_(std::move(on_failure)),
      on_success_(std::move(on_success)) {}

Binder::~Binder() { Stop(); }

void Binder::Start() {
  for (int i = 0; i < threads_; ++i) {
    workers_.emplace_back([this] { Loop(); });
  }
}

void Binder::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  work_cv_.SignalAll();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

void Binder::Submit(BindTask task) {
  if (threads_ <= 0) {
    Run(std::move(task));
    return;
  }
  {
    MutexLock lock(mu_);
    queue_.push_back(std::move(task));
  }
  work_cv_.Signal();
}

void Binder::WaitForBinds() {
  MutexLock lock(mu_);
  while (in_flight_.load() != 0) done_cv_.Wait(mu_);
}

void Binder::TakeBound(std::vector<BoundPod>& out) {
  MutexLock lock(bound_mu_);
  out.swap(bound_);
}

void Binder::Run(BindTask task) {
  BoundPod done{client::ObjectKey(*task.pod), {}};
  Status status = dra_.PreBind(task, done.written);
  if (status.ok()) {
    const api::Pod& pod = std::get<api::Pod>(*task.pod);
    status = client_.Bind(pod.metadata.namespace_, pod.metadata.name,
                          pod.metadata.uid, task.node);
  }
  if (status.ok()) {
    if (on_success_) on_success_(task);
    MutexLock lock(bound_mu_);
    bound_.push_back(std::move(done));
  } else {
    log::Debug("scheduler", "binding pod {} to {} failed: {}", done.pod_key,
               task.node, status.message());
    dra_.Unreserve(task, done.written);
    on_failure_(task);
  }
  if (--in_flight_ == 0) {
    // Under mu_, so that WaitForBinds cannot miss the wake-up between
    // testing the count and sleeping.
    { MutexLock lock(mu_); }
    done_cv_.SignalAll();
  }
}

void Binder::Loop() {
  while (true) {
    BindTask task;
    {
      MutexLock lock(mu_);
      while (!stopping_ && queue_.empty()) work_cv_.Wait(mu_);
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    Run(std::move(task));
  }
}

}  // namespace dralloc::scheduler
