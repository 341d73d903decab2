#include "scheduler/scheduling_queue.h"

#include <algorithm>

namespace dralloc::scheduler {

void SchedulingQueue::SetPriority(const std::string& key, int32_t priority) {
  int32_t& stored = priority_[key];
  if (stored == priority) return;
  stored = priority;
  if (in_active_.contains(key)) {
    active_.erase(in_active_[key]);
    in_active_.erase(key);
    PushActive(key);
  }
}

void SchedulingQueue::PushActive(const std::string& key) {
  auto [stamp, first] = timestamp_.try_emplace(key, next_timestamp_);
  if (first) ++next_timestamp_;
  auto priority = priority_.find(key);
  ActiveEntry entry{priority == priority_.end() ? 0 : priority->second,
                    stamp->second, key};
  active_.insert(entry);
  in_active_.emplace(key, std::move(entry));
}

void SchedulingQueue::Activate(const std::string& key) {
  unschedulable_.erase(key);
  gated_.erase(key);
  waiting_for_driver_.erase(key);
  if (binding_.contains(key) || in_active_.contains(key) ||
      in_backoff_.contains(key)) {
    return;
  }
  auto attempts = attempts_.find(key);
  if (attempts != attempts_.end() && backoff_options_.initial.count() > 0) {
    auto delay =
        backoff_options_.initial * (1 << std::min(attempts->second - 1, 10));
    delay = std::min<std::chrono::milliseconds>(delay, backoff_options_.max);
    const auto when = Clock::now() + delay;
    backoff_.emplace(when, key);
    in_backoff_[key] = when;
    return;
  }
  PushActive(key);
  ready_cv_.Signal();
}

void SchedulingQueue::MoveAllUnschedulable() {
  // Pods waiting for a driver too: a cluster change may change their
  // potential nodes.
  std::vector<std::string> keys(unschedulable_.begin(), unschedulable_.end());
  keys.insert(keys.end(), waiting_for_driver_.begin(),
              waiting_for_driver_.end());
  std::sort(keys.begin(), keys.end());
  for (const std::string& key : keys) Activate(key);
}

void SchedulingQueue::Forget(const std::string& key) {
  unschedulable_.erase(key);
  gated_.erase(key);
  waiting_for_driver_.erase(key);
  binding_.erase(key);
  attempts_.erase(key);
  last_message_.erase(key);
  timestamp_.erase(key);
  priority_.erase(key);
  if (auto it = in_active_.find(key); it != in_active_.end()) {
    active_.erase(it->second);
    in_active_.erase(it);
  }
  if (auto it = in_backoff_.find(key); it != in_backoff_.end()) {
    auto [first, last] = backoff_.equal_range(it->second);
    for (auto b = first; b != last; ++b) {
      if (b->second == key) {
        backoff_.erase(b);
        break;
      }
    }
    in_backoff_.erase(it);
  }
}

std::optional<std::string> SchedulingQueue::Pop() {
  const auto now = Clock::now();
  while (!backoff_.empty() && backoff_.begin()->first <= now) {
    std::string key = backoff_.begin()->second;
    backoff_.erase(backoff_.begin());
    in_backoff_.erase(key);
    if (!in_active_.contains(key)) PushActive(key);
  }
  if (active_.empty()) return std::nullopt;
  std::string key = active_.begin()->key;
  active_.erase(active_.begin());
  in_active_.erase(key);
  return key;
}

void SchedulingQueue::WaitForWork(Mutex& mu, std::chrono::milliseconds wait,
                                  const std::atomic<bool>& stopping) {
  ready_cv_.WaitFor(mu, wait, [&] {
    return !active_.empty() || stopping ||
           (!backoff_.empty() && backoff_.begin()->first <= Clock::now());
  });
}

bool SchedulingQueue::MarkUnschedulable(const std::string& key,
                                        const std::string& message) {
  ++attempts_[key];
  timestamp_[key] = next_timestamp_++;  // re-queued: a new timestamp
  unschedulable_.insert(key);
  std::string& last = last_message_[key];
  const bool changed = last != message;
  last = message;
  return changed;
}

bool SchedulingQueue::MarkWaitingForDriver(const std::string& key,
                                           const std::string& message) {
  waiting_for_driver_.insert(key);
  std::string& last = last_message_[key];
  const bool changed = last != message;
  last = message;
  return changed;
}

void SchedulingQueue::DriverAnswered(const std::string& key) {
  if (waiting_for_driver_.contains(key) || unschedulable_.contains(key)) {
    Activate(key);
  }
}

void SchedulingQueue::WaitForClaim(const std::string& claim_key,
                                   const std::string& pod_key) {
  // A pod cycled again while it waits registers once.
  std::vector<std::string>& pods = waiting_for_claim_[claim_key];
  if (std::find(pods.begin(), pods.end(), pod_key) == pods.end()) {
    pods.push_back(pod_key);
  }
}

void SchedulingQueue::ClaimAdded(const std::string& claim_key) {
  auto waiting = waiting_for_claim_.find(claim_key);
  if (waiting == waiting_for_claim_.end()) return;
  std::vector<std::string> pods = std::move(waiting->second);
  waiting_for_claim_.erase(waiting);
  for (const std::string& pod_key : pods) {
    if (gated_.contains(pod_key) || unschedulable_.contains(pod_key) ||
        waiting_for_driver_.contains(pod_key)) {
      Activate(pod_key);
    }
  }
}

void SchedulingQueue::Bound(const std::string& key) {
  attempts_.erase(key);
  last_message_.erase(key);
}

void SchedulingQueue::BindFailed(const std::string& key) {
  binding_.erase(key);
  ++attempts_[key];
  timestamp_[key] = next_timestamp_++;
  Activate(key);
}

bool SchedulingQueue::WaitsUngated(const std::string& key) const {
  return !gated_.contains(key) &&
         (unschedulable_.contains(key) || waiting_for_driver_.contains(key) ||
          in_active_.contains(key) || in_backoff_.contains(key));
}

}  // namespace dralloc::scheduler
