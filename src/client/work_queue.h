// WorkQueue: a deduplicating FIFO of keys for controllers.
//
// A key added while queued is not added twice; a key added while being
// processed is queued again after Done(), so one key is never processed by
// two workers at once and no change is lost.
#ifndef DRALLOC_CLIENT_WORK_QUEUE_H_
#define DRALLOC_CLIENT_WORK_QUEUE_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include "common/string_hash.h"

namespace dralloc::client {

class WorkQueue {
 public:
  void Add(std::string key) {
    {
      std::lock_guard lock(mu_);
      auto [it, inserted] = entries_.try_emplace(std::move(key), kQueued);
      if (!inserted) {
        if (it->second == kProcessing) it->second = kProcessingChanged;
        return;  // queued already, or will be after Done()
      }
      items_.push_back(&*it);
    }
    cv_.notify_one();
  }

  // The next key, waiting up to `wait`; nullopt if none or shut down.
  std::optional<std::string> Pop(std::chrono::milliseconds wait) {
    std::unique_lock lock(mu_);
    if (items_.empty() && !shutdown_) {
      cv_.wait_for(lock, wait, [this] { return !items_.empty() || shutdown_; });
    }
    if (items_.empty() || shutdown_) return std::nullopt;
    Entry* entry = items_.front();
    items_.pop_front();
    entry->second = kProcessing;
    ++processing_;
    return entry->first;
  }

  void Done(const std::string& key) {
    {
      std::lock_guard lock(mu_);
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
    cv_.notify_one();
  }

  // Nothing queued and nothing being processed.
  bool Idle() const {
    std::lock_guard lock(mu_);
    return items_.empty() && processing_ == 0;
  }

  void ShutDown() {
    {
      std::lock_guard lock(mu_);
      shutdown_ = true;
    }
    cv_.notify_all();
  }

 private:
  enum State { kQueued, kProcessing, kProcessingChanged };
  using Entry = std::pair<const std::string, State>;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Every key queued or being processed; elements keep their address when
  // the table grows, so the FIFO points at them.
  StringKeyedMap<State> entries_;
  std::deque<Entry*> items_;
  size_t processing_ = 0;
  bool shutdown_ = false;
};

}  // namespace dralloc::client

#endif  // DRALLOC_CLIENT_WORK_QUEUE_H_
