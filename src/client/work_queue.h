// WorkQueue: a deduplicating FIFO of keys for controllers.
//
// A key added while queued is not added twice; a key added while being
// processed is queued again after Done(), so one key is never processed by
// two workers at once and no change is lost.
#ifndef DRALLOC_CLIENT_WORK_QUEUE_H_
#define DRALLOC_CLIENT_WORK_QUEUE_H_

#include <chrono>
#include <deque>
#include <optional>
#include <string>

#include "common/mutex.h"
#include "common/string_hash.h"

namespace dralloc::client {

class WorkQueue {
 public:
  void Add(std::string key) EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      auto [it, inserted] = entries_.try_emplace(std::move(key), kQueued);
      if (!inserted) {
        if (it->second == kProcessing) it->second = kProcessingChanged;
        return;  // queued already, or will be after Done()
      }
      items_.push_back(&*it);
    }
    cv_.Signal();
  }

  // The next key, waiting up to `wait`; nullopt if none or shut down.
  std::optional<std::string> Pop(std::chrono::milliseconds wait) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    if (items_.empty() && !shutdown_) {
      cv_.WaitFor(mu_, wait, [this]() REQUIRES(mu_) {
        return !items_.empty() || shutdown_;
      });
    }
    if (items_.empty() || shutdown_) return std::nullopt;
    Entry* entry = items_.front();
    items_.pop_front();
    entry->second = kProcessing;
    ++processing_;
    return entry->first;
  }

  void Done(const std::string& key) EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      auto it = entries_.find(key);
      if (it == entries_.end() || it->second == kQueued) return;
      --processing_;
      if (it->second == kProcessing) {
        entries_.erase(it);
        return;
      }
      it->second = kQueued;  // changed while processed: again, at the back
      items_.push_back(&*it);
    }
    cv_.Signal();
  }

  // Nothing queued and nothing being processed.
  bool Idle() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return items_.empty() && processing_ == 0;
  }

  void ShutDown() EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      shutdown_ = true;
    }
    cv_.SignalAll();
  }

 private:
  enum State { kQueued, kProcessing, kProcessingChanged };
  using Entry = std::pair<const std::string, State>;

  mutable Mutex mu_;
  CondVar cv_;
  // Every key queued or being processed; elements keep their address when
  // the table grows, so the FIFO points at them.
  StringKeyedMap<State> entries_ GUARDED_BY(mu_);
  std::deque<Entry*> items_ GUARDED_BY(mu_);
  size_t processing_ GUARDED_BY(mu_) = 0;
  bool shutdown_ GUARDED_BY(mu_) = false;
};

}  // namespace dralloc::client

#endif  // DRALLOC_CLIENT_WORK_QUEUE_H_
