// RbacPolicyFeed: keeps an rbac::PolicyIndex current from the store. Lists
// the four RBAC prefixes at one revision, then watches them from there on
// one thread; a watch that falls behind the event window (or fails) makes
// it list everything again. The authorizer reads the index; nothing reads
// the store per request.
#ifndef DRALLOC_APISERVER_RBAC_POLICY_FEED_H_
#define DRALLOC_APISERVER_RBAC_POLICY_FEED_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"
#include "rbac/policy_index.h"
#include "store/store.h"

namespace dralloc::apiserver {

class RbacPolicyFeed {
 public:
  // Called on the feed thread after each change applied to the index, with
  // whether a ClusterRole changed (the aggregation's trigger).
  using ChangeListener = std::function<void(bool cluster_roles_changed)>;

  // `store` and `index` must outlive the feed.
  RbacPolicyFeed(store::Store& store, rbac::PolicyIndex& index);
  ~RbacPolicyFeed();
  RbacPolicyFeed(const RbacPolicyFeed&) = delete;
  RbacPolicyFeed& operator=(const RbacPolicyFeed&) = delete;

  // Set before Start.
  void set_change_listener(ChangeListener listener) {
    listener_ = std::move(listener);
  }
  // Lists synchronously (the index is complete when it returns), then
  // starts the watch thread.
  Status Start();
  void Stop();

  // Waits up to `timeout` until the index reflects every write up to
  // `revision` of the store; false on timeout. For tests and for callers
  // that must see their own write (bounded, never unbounded).
  bool WaitForRevision(int64_t revision, std::chrono::milliseconds timeout);
  // The store revision the index is known to reflect.
  int64_t synced_revision() const;
  // Lists done (1 after Start; more after watch expiry).
  int64_t lists() const { return lists_.load(); }

 private:
  // Lists the four prefixes at one revision into the index and opens the
  // watches after it.
  Status Relist();
  void Run();
  // One pass over the watches; an error asks for a relist.
  Status PollOnce();
  void ApplyEvent(const store::WatchEvent& event, bool& cluster_roles_changed);
  void MarkSynced(int64_t revision);

  store::Store& store_;
  rbac::PolicyIndex& index_;
  ChangeListener listener_;
  std::vector<std::unique_ptr<store::Watcher>> watchers_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> lists_{0};
  mutable Mutex mu_;
  CondVar synced_cv_;
  int64_t synced_revision_ GUARDED_BY(mu_) = 0;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_RBAC_POLICY_FEED_H_
