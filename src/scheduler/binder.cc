#include "scheduler/binder.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "common/log.h"
#include "scheduler/binding_conditions.h"

namespace dralloc::scheduler {
namespace {

// Upstream's words for an error of the DynamicResources PreBind.
std::string PreBindError(std::string_view message) {
  return fmt::format("running PreBind plugin \"DynamicResources\": {}",
                     message);
}

}  // namespace

Binder::Binder(client::ApiClient& client, const DraPlugin& dra, int threads,
               FailureHandler on_failure, SuccessHandler on_success,
               BindingWaitOptions wait, PendingHandler on_pending,
               BindingFailedHandler on_binding_failed)
    : client_(client),
      dra_(dra),
      threads_(threads),
      on_failure_(std::move(on_failure)),
      on_success_(std::move(on_success)),
      wait_(wait),
      on_pending_(std::move(on_pending)),
      on_binding_failed_(std::move(on_binding_failed)) {}

Binder::~Binder() { Stop(); }

void Binder::Start() {
  for (int i = 0; i < threads_; ++i) {
    workers_.emplace_back([this] { Loop(); });
  }
  if (threads_ > 0 && !waiter_.joinable()) {
    waiter_ = std::thread([this] { WaitLoop(); });
  }
}

void Binder::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  work_cv_.SignalAll();
  waiter_cv_.SignalAll();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
  if (waiter_.joinable()) waiter_.join();
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
  if (!status.ok()) {
    Fail(task, done, PreBindError(status.message()));
    return;
  }
  const bool wait_for_devices =
      std::any_of(task.claims.begin(), task.claims.end(), [](const auto& w) {
        return HasBindingConditions(std::get<api::ResourceClaim>(*w.assumed));
      });
  if (!wait_for_devices) {
    BindAndFinish(task, std::move(done));
    return;
  }
  if (on_pending_) on_pending_(task);
  MutexLock lock(mu_);
  waiting_.push_back({std::move(task), std::move(done),
                      std::chrono::steady_clock::now() + wait_.timeout});
}

void Binder::BindAndFinish(const BindTask& task, BoundPod done) {
  const api::Pod& pod = std::get<api::Pod>(*task.pod);
  Status status = client_.Bind(pod.metadata.namespace_, pod.metadata.name,
                               pod.metadata.uid, task.node);
  if (!status.ok()) {
    Fail(task, done,
         fmt::format("binding rejected: running Bind plugin \"DefaultBinder\": "
                     "{}",
                     status.message()));
    return;
  }
  dra_.PostBind(task);
  if (on_success_) on_success_(task);
  {
    MutexLock lock(bound_mu_);
    bound_.push_back(std::move(done));
  }
  EndTask();
}

void Binder::Fail(const BindTask& task, const BoundPod& done,
                  const std::string& why) {
  log::Debug("scheduler", "binding pod {} to {} failed: {}", done.pod_key,
             task.node, why);
  dra_.Unreserve(task, done.written);
  on_failure_(task, why);
  EndTask();
}

void Binder::FailWaiting(const WaitingTask& entry, const std::string& why) {
  if (on_binding_failed_) on_binding_failed_(entry.task, why);
  Fail(entry.task, entry.done, PreBindError(why));
}

void Binder::EndTask() {
  if (--in_flight_ == 0) {
    // Under mu_, so that WaitForBinds cannot miss the wake-up between
    // testing the count and sleeping.
    { MutexLock lock(mu_); }
    done_cv_.SignalAll();
  }
}

int Binder::waiting() {
  MutexLock lock(mu_);
  return static_cast<int>(waiting_.size());
}

void Binder::CheckWaiting() {
  std::vector<WaitingTask> checking;
  {
    MutexLock lock(mu_);
    checking.swap(waiting_);
  }
  std::vector<WaitingTask> still_waiting;
  for (WaitingTask& entry : checking) {
    BindingCheck check;
    for (const ClaimWrite& write : entry.task.claims) {
      if (!HasBindingConditions(std::get<api::ResourceClaim>(*write.assumed))) {
        continue;
      }
      const auto& base = std::get<api::ResourceClaim>(*write.base);
      auto fresh = client_.Get(client::ResourceClaimsResource(),
                               base.metadata.namespace_, base.metadata.name);
      check =
          fresh.ok()
              ? CheckBindingConditions(std::get<api::ResourceClaim>(**fresh))
              : BindingCheck{BindingReadiness::kFailed,
                             fresh.status().message()};
      if (check.readiness != BindingReadiness::kReady) break;
    }
    if (check.readiness == BindingReadiness::kReady) {
      BindAndFinish(entry.task, std::move(entry.done));
    } else if (check.readiness == BindingReadiness::kFailed) {
      FailWaiting(entry, check.message);
    } else if (std::chrono::steady_clock::now() >= entry.deadline) {
      FailWaiting(entry, "device binding timeout");
    } else {
      still_waiting.push_back(std::move(entry));
    }
  }
  MutexLock lock(mu_);
  for (WaitingTask& entry : still_waiting) {
    waiting_.push_back(std::move(entry));
  }
}

void Binder::WaitLoop() {
  while (true) {
    {
      MutexLock lock(mu_);
      if (waiter_cv_.WaitFor(mu_, wait_.poll_interval,
                             [this]() REQUIRES(mu_) { return stopping_; })) {
        return;
      }
    }
    CheckWaiting();
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
