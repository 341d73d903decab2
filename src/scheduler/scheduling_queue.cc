#include "scheduler/scheduling_queue.h"

#include <algorithm>

namespace dralloc::scheduler {

void SchedulingQueue::Activate(const std::string& key) {
  unschedulable_.erase(key);
  gated_.erase(key);
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
  active_.push_back(key);
  in_active_.insert(key);
  ready_cv_.Signal();
}

void SchedulingQueue::MoveAllUnschedulable() {
  std::vector<std::string> keys(unschedulable_.begin(), unschedulable_.end());
  std::sort(keys.begin(), keys.end());
  for (const std::string& key : keys) Activate(key);
}

void SchedulingQueue::Forget(const std::string& key) {
  unschedulable_.erase(key);
  gated_.erase(key);
  binding_.erase(key);
  attempts_.erase(key);
  last_message_.erase(key);
  if (in_active_.erase(key) > 0) std::erase(active_, key);
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
    if (!in_active_.contains(key)) {
      active_.push_back(key);
      in_active_.insert(key);
    }
  }
  if (active_.empty()) return std::nullopt;
  std::string key = std::move(active_.front());
  active_.pop_front();
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
  unschedulable_.insert(key);
  std::string& last = last_message_[key];
  const bool changed = last != message;
  last = message;
  return changed;
}

void SchedulingQueue::WaitForClaim(const std::string& claim_key,
                                   const std::string& pod_key) {
  waiting_for_claim_[claim_key].push_back(pod_key);
}

void SchedulingQueue::ClaimAdded(const std::string& claim_key) {
  auto waiting = waiting_for_claim_.find(claim_key);
  if (waiting == waiting_for_claim_.end()) return;
  std::vector<std::string> pods = std::move(waiting->second);
  waiting_for_claim_.erase(waiting);
  for (const std::string& pod_key : pods) {
    if (gated_.contains(pod_key) || unschedulable_.contains(pod_key)) {
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
  Activate(key);
}

bool SchedulingQueue::WaitsUngated(const std::string& key) const {
  return !gated_.contains(key) &&
         (unschedulable_.contains(key) || in_active_.contains(key) ||
          in_backoff_.contains(key));
}

}  // namespace dralloc::scheduler
