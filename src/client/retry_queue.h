// RetryQueue: a WorkQueue whose failed keys come back after a backoff, as
// client-go's rate-limited work queue with its default per-item limiter
// (ItemExponentialFailureRateLimiter) and the maxRetries pattern of
// upstream's controllers:
//
//   key := queue.Pop(wait);             // Get
//   Status s = Sync(key);
//   queue.Finish(key, s.ok());          // Forget, or AddRateLimited, or
//                                       // Forget and drop; then Done
//
// - The n-th requeue of a key (n = 0, 1, ...) waits base_delay * 2^n, at
//   most max_delay (5 ms, 10 ms, 20 ms, ... by default).
// - After max_retries requeues without a success the key is dropped: its
//   count is forgotten and it waits for its next Add (the object's next
//   change) with a fresh budget.
// - A success forgets the count. An Add while a retry waits queues the key
//   now; the waiting retry still falls due later (a harmless second sync,
//   as in client-go).
// - client-go's overall 10 qps token bucket is not modelled.
//
// Times come from `options.clock`, so tests can move time by hand; Pop
// waits at most until the next retry falls due by that clock.
#ifndef DRALLOC_CLIENT_RETRY_QUEUE_H_
#define DRALLOC_CLIENT_RETRY_QUEUE_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "client/work_queue.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "common/string_hash.h"

namespace dralloc::client {

struct RetryQueueOptions {
  // Requeues after failures before a key is dropped (upstream's
  // maxRetries); 0 drops a key at its first failure.
  int max_retries = 5;
  std::chrono::milliseconds base_delay{5};
  std::chrono::milliseconds max_delay{std::chrono::seconds(1000)};
  std::function<SystemTime()> clock = [] {
    return std::chrono::system_clock::now();
  };
};

class RetryQueue {
 public:
  // What Finish did with a key.
  enum class Outcome {
    kDone,      // the sync succeeded; the key's failures are forgotten
    kRetrying,  // it failed and comes back after its backoff
    kDropped,   // it failed max_retries requeues in a row; forgotten
  };

  explicit RetryQueue(RetryQueueOptions options = {});

  // Queues `key` now (deduplicated as WorkQueue does).
  void Add(std::string key) { queue_.Add(std::move(key)); }
  // Queues `key` after `delay` (client-go's AddAfter), unless it is already
  // due earlier. Counts no failure.
  void AddAfter(const std::string& key, std::chrono::milliseconds delay)
      EXCLUDES(mu_);
  // The next key, waiting up to `wait` for one; a retry that falls due
  // within `wait` counts. nullopt if none or shut down.
  std::optional<std::string> Pop(std::chrono::milliseconds wait) EXCLUDES(mu_);
  // Ends the processing of a popped `key` whose sync `succeeded` or not.
  Outcome Finish(const std::string& key, bool succeeded) EXCLUDES(mu_);
  // Nothing queued, being processed or waiting for a retry.
  bool Idle() const EXCLUDES(mu_);
  // Keys waiting for their retry to fall due.
  size_t PendingRetries() const EXCLUDES(mu_);
  void ShutDown() {
    shut_down_ = true;
    queue_.ShutDown();
  }

  // How long requeue `requeue` (0 for the first) of a key waits.
  static std::chrono::milliseconds RetryDelay(const RetryQueueOptions& options,
                                              int requeue);

 private:
  // Moves the due retries into queue_; returns how long until the next
  // one falls due (nullopt: none waits).
  std::optional<std::chrono::milliseconds> QueueDueRetries() EXCLUDES(mu_);

  const RetryQueueOptions options_;
  WorkQueue queue_;
  std::atomic<bool> shut_down_{false};
  mutable Mutex mu_;
  // Requeues since the key last succeeded or was dropped (client-go's
  // NumRequeues).
  StringKeyedMap<int> requeues_ GUARDED_BY(mu_);
  // Keys waiting for their retry, and when it falls due.
  std::map<std::string, SystemTime> retry_at_ GUARDED_BY(mu_);
};

}  // namespace dralloc::client

#endif  // DRALLOC_CLIENT_RETRY_QUEUE_H_
