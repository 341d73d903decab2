// SchedulingQueue: which pod the scheduler tries next, and why the others
// wait (upstream's internal/queue).
//
// Every pod key is in at most one of these places:
// - active: ready now, popped in upstream's PrioritySort order: higher
//   spec.priority first, then the earlier queue timestamp (set when the pod
//   was first queued, refreshed when it failed an attempt);
// - backoff: ready at a time (exponential in its failed attempts);
// - unschedulable: failed, waits for a cluster change (MoveAllUnschedulable)
//   or for a claim it is waiting for (ClaimAdded);
// - gated: its claims are not there yet, waits for the pod or a claim;
// - waiting for a driver (classic DRA): waits for its claims' drivers to
//   answer in its PodSchedulingContext or to allocate (DriverAnswered,
//   ClaimAdded), or for a cluster change;
// - binding: handed to the binder, waits for its pod update.
// The queue knows pods only by key and claims only by the keys pods wait
// for. It is thread-compatible: the scheduler's lock guards every call
// (the scheduler's member is GUARDED_BY it), and WaitForWork sleeps on that
// lock.
#ifndef DRALLOC_SCHEDULER_SCHEDULING_QUEUE_H_
#define DRALLOC_SCHEDULER_SCHEDULING_QUEUE_H_

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/mutex.h"
#include "common/string_hash.h"

namespace dralloc::scheduler {

struct BackoffOptions {
  // A pod that failed n times waits initial * 2^(n-1), at most `max`;
  // 0 disables backoff.
  std::chrono::milliseconds initial{1000};
  std::chrono::milliseconds max{10000};
};

class SchedulingQueue {
 public:
  using Clock = std::chrono::steady_clock;

  explicit SchedulingQueue(BackoffOptions backoff)
      : backoff_options_(backoff) {}
  SchedulingQueue(const SchedulingQueue&) = delete;
  SchedulingQueue& operator=(const SchedulingQueue&) = delete;

  // The pod's spec.priority (0 when never set), for the active order.
  void SetPriority(const std::string& key, int32_t priority);
  // Makes `key` ready: it leaves unschedulable/gated and joins the active
  // queue, or backoff if it has failed before. No-op while it is active,
  // backing off or binding.
  void Activate(const std::string& key);
  // Activates every unschedulable pod, in key order (the queue order must
  // not depend on hashing).
  void MoveAllUnschedulable();
  // Drops every trace of `key` (the pod is gone, bound or not ours).
  void Forget(const std::string& key);
  // Moves due backoff entries to the back of the active queue, then takes
  // the front of the active queue.
  std::optional<std::string> Pop();
  // Sleeps on `mu` (the lock guarding this queue, held) until a pod is
  // ready, `stopping` is set or `wait` has passed.
  void WaitForWork(Mutex& mu, std::chrono::milliseconds wait,
                   const std::atomic<bool>& stopping) REQUIRES(mu);
  // Wakes WaitForWork (on Stop).
  void WakeAll() { ready_cv_.SignalAll(); }

  // The cycle's verdicts for a popped pod.
  void MarkGated(const std::string& key) { gated_.insert(key); }
  // Parks the pod until a driver answers (no failed attempt: waiting for a
  // driver is no error); true if `message` differs from the one reported
  // last time for it.
  bool MarkWaitingForDriver(const std::string& key, const std::string& message);
  // A driver wrote the pod's PodSchedulingContext status: activates it if
  // it waits for a driver or is unschedulable (its unsuitable nodes may
  // have changed).
  void DriverAnswered(const std::string& key);
  // Counts a failed attempt and parks the pod; true if `message` differs
  // from the one reported last time for it.
  bool MarkUnschedulable(const std::string& key, const std::string& message);
  void MarkBinding(const std::string& key) { binding_.insert(key); }
  bool IsBinding(const std::string& key) const {
    return binding_.contains(key);
  }
  // The pod waits for claim `claim_key` to appear.
  void WaitForClaim(const std::string& claim_key, const std::string& pod_key);
  // Claim `claim_key` appeared (or, for a classic claim, its driver
  // allocated it): activates the gated, unschedulable or driver-waiting
  // pods waiting for it.
  void ClaimAdded(const std::string& claim_key);

  // Binding outcomes. A bound pod keeps its binding mark until its update
  // arrives (Forget); a failed one is activated with one more attempt.
  void Bound(const std::string& key);
  void BindFailed(const std::string& key);

  // Active, backing off or unschedulable, and not gated: an update that
  // does not change the pod's placement inputs need not activate it.
  bool WaitsUngated(const std::string& key) const;
  // Nothing active, backing off or binding.
  bool Idle() const {
    return active_.empty() && backoff_.empty() && binding_.empty();
  }

 private:
  const BackoffOptions backoff_options_;
  CondVar ready_cv_;  // with the caller's lock

  // The active order: priority descending, then timestamp ascending.
  struct ActiveEntry {
    int32_t priority = 0;
    uint64_t timestamp = 0;
    std::string key;
    friend bool operator<(const ActiveEntry& a, const ActiveEntry& b) {
      if (a.priority != b.priority) return a.priority > b.priority;
      if (a.timestamp != b.timestamp) return a.timestamp < b.timestamp;
      return a.key < b.key;
    }
  };
  void PushActive(const std::string& key);
  std::set<ActiveEntry> active_;
  StringKeyedMap<ActiveEntry> in_active_;  // the entries of active_ by key
  // Queue timestamps: a counter, so that equal times cannot tie.
  uint64_t next_timestamp_ = 1;
  StringKeyedMap<uint64_t> timestamp_;
  StringKeyedMap<int32_t> priority_;
  std::multimap<Clock::time_point, std::string> backoff_;
  std::unordered_map<std::string, Clock::time_point> in_backoff_;
  StringSet unschedulable_;
  StringSet gated_;
  StringSet waiting_for_driver_;
  StringSet binding_;
  // claim key → pods that found it missing.
  StringKeyedMap<std::vector<std::string>> waiting_for_claim_;
  StringKeyedMap<int> attempts_;  // failed attempts since the last success
  StringKeyedMap<std::string> last_message_;  // last reported reason
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_SCHEDULING_QUEUE_H_
