#include "client/retry_queue.h"

#include <algorithm>
#include <utility>

namespace dralloc::client {

RetryQueue::RetryQueue(RetryQueueOptions options)
    : options_(std::move(options)) {}

std::chrono::milliseconds RetryQueue::RetryDelay(
    const RetryQueueOptions& options, int requeue) {
  // Doubling stops at the cap (or at zero), so no count overflows it.
  std::chrono::milliseconds delay = options.base_delay;
  for (int i = 0; i < requeue && delay.count() > 0 && delay < options.max_delay;
       ++i) {
    delay *= 2;
  }
  return std::min(delay, options.max_delay);
}

std::optional<std::chrono::milliseconds> RetryQueue::QueueDueRetries() {
  std::optional<std::chrono::milliseconds> next;
  const SystemTime now = options_.clock();
  // Keys move under mu_, so Idle never sees one in neither place.
  MutexLock lock(mu_);
  for (auto it = retry_at_.begin(); it != retry_at_.end();) {
    if (it->second <= now) {
      queue_.Add(it->first);
      it = retry_at_.erase(it);
      continue;
    }
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(it->second - now);
    if (!next.has_value() || left < *next) next = left;
    ++it;
  }
  return next;
}

std::optional<std::string> RetryQueue::Pop(std::chrono::milliseconds wait) {
  // Waits in steps that end when the next retry falls due, so that retry
  // is queued before the following step.
  while (true) {
    const std::optional<std::chrono::milliseconds> next = QueueDueRetries();
    if (!next.has_value() || *next >= wait) return queue_.Pop(wait);
    if (std::optional<std::string> key = queue_.Pop(*next)) return key;
    if (shut_down_) return std::nullopt;
    wait -= *next;
  }
}

RetryQueue::Outcome RetryQueue::Finish(const std::string& key, bool succeeded) {
  Outcome outcome = Outcome::kDone;
  {
    MutexLock lock(mu_);
    if (succeeded) {
      requeues_.erase(key);
    } else if (int& requeues = requeues_[key];
               requeues >= options_.max_retries) {
      requeues_.erase(key);
      retry_at_.erase(key);
      outcome = Outcome::kDropped;
    } else {
      retry_at_[key] = options_.clock() + RetryDelay(options_, requeues);
      ++requeues;
      outcome = Outcome::kRetrying;
    }
  }
  queue_.Done(key);
  return outcome;
}

void RetryQueue::AddAfter(const std::string& key,
                          std::chrono::milliseconds delay) {
  const SystemTime when = options_.clock() + delay;
  MutexLock lock(mu_);
  auto [it, added] = retry_at_.try_emplace(key, when);
  if (!added && when < it->second) it->second = when;
}

bool RetryQueue::Idle() const {
  MutexLock lock(mu_);
  return retry_at_.empty() && queue_.Idle();
}

size_t RetryQueue::PendingRetries() const {
  MutexLock lock(mu_);
  return retry_at_.size();
}

}  // namespace dralloc::client
