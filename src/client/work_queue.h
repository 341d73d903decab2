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
#include <unordered_set>

#include "common/string_hash.h"

namespace dralloc::client {

class WorkQueue {
 public:
  void Add(const std::string& key) {
    {
      std::lock_guard lock(mu_);
      if (processing_.contains(key)) {
        dirty_.insert(key);
        return;
      }
      if (!queued_.insert(key).second) return;
      items_.push_back(key);
    }
    cv_.notify_one();
  }

  // The next key, waiting up to `wait`; nullopt if none or shut down.
  std::optional<std::string> Pop(std::chrono::milliseconds wait) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, wait, [this] { return !items_.empty() || shutdown_; });
    if (items_.empty() || shutdown_) return std::nullopt;
    std::string key = std::move(items_.front());
    items_.pop_front();
    queued_.erase(key);
    processing_.insert(key);
    return key;
  }

  void Done(const std::string& key) {
    bool requeue = false;
    {
      std::lock_guard lock(mu_);
      processing_.erase(key);
      requeue = dirty_.erase(key) > 0;
    }
    if (requeue) Add(key);
  }

  // Nothing queued and nothing being processed.
  bool Idle() const {
    std::lock_guard lock(mu_);
    return items_.empty() && processing_.empty();
  }

  void ShutDown() {
    {
      std::lock_guard lock(mu_);
      shutdown_ = true;
    }
    cv_.notify_all();
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> items_;
  StringSet queued_;
  StringSet processing_;
  StringSet dirty_;
  bool shutdown_ = false;
};

}  // namespace dralloc::client

#endif  // DRALLOC_CLIENT_WORK_QUEUE_H_
