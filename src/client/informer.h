// Informer: a local cache of one resource, kept current by list + watch.
//
// Handlers see every change in order: (nullptr, now) for an addition,
// (old, now) for an update, (old, nullptr) for a deletion. After a watch
// falls out of the server's event window the informer lists again and turns
// the difference into the same callbacks, so handlers never miss a state.
//
// Two ways to drive it: Start() runs a thread that pumps until Stop(); or a
// single-threaded owner calls Pump() itself (offline runs, deterministic
// order). Get/List are safe from any thread; handlers run on the pumping
// thread, one at a time.
#ifndef DRALLOC_CLIENT_INFORMER_H_
#define DRALLOC_CLIENT_INFORMER_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "client/api_client.h"
#include "common/mutex.h"
#include "common/string_hash.h"

namespace dralloc::client {

// "namespace/name", or "name" for cluster-scoped objects.
std::string ObjectKey(std::string_view namespace_, std::string_view name);
std::string ObjectKey(const api::Object& object);

class Informer {
 public:
  using Handler =
      std::function<void(const ObjectPtr& old, const ObjectPtr& now)>;

  // Limits the cache to some objects: `field_selector` goes to the server
  // (ApiClient::ListMatching/WatchMatching) and `keep` decides on this
  // side (a client may not filter); an object `keep` rejects is absent,
  // and one that stops matching is seen as deleted.
  struct Filter {
    std::string field_selector;
    std::function<bool(const api::Object&)> keep;
  };

  Informer(ApiClient& client, const api::ResourceInfo& resource,
           Filter filter = {});
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Register before the first Pump/Start.
  void AddHandler(Handler handler);

  // Lists if needed, then applies watch events that arrive within `wait`.
  // Returns the number of changes applied (0: nothing happened). Errors are
  // retried on the next call (the informer re-lists or re-watches).
  StatusOr<size_t> Pump(std::chrono::milliseconds wait);

  // Pumps on a thread of its own until Stop(). Each pump takes every event
  // that has arrived (the watch stream reads on while data is there), so
  // a busy stream is handled in batches without waiting: a pause per pump
  // would cap the informer at one batch per pause and delay every event
  // behind it.
  void Start();
  void Stop() EXCLUDES(watch_mu_);
  // True once the first list has been applied (waits up to `timeout`).
  bool WaitForSync(std::chrono::milliseconds timeout) EXCLUDES(sync_mu_);

  ObjectPtr Get(std::string_view key) const EXCLUDES(cache_mu_);
  ObjectPtr Get(std::string_view namespace_, std::string_view name) const
      EXCLUDES(cache_mu_);
  std::vector<ObjectPtr> List() const EXCLUDES(cache_mu_);
  size_t size() const EXCLUDES(cache_mu_);
  // The revision the cache reflects.
  int64_t revision() const { return revision_.load(); }
  const api::ResourceInfo& resource() const { return resource_; }

 private:
  Status Relist() EXCLUDES(cache_mu_, sync_mu_);
  void Apply(std::string key, ObjectPtr now) EXCLUDES(cache_mu_);
  void Notify(const ObjectPtr& old, const ObjectPtr& now);

  ApiClient& client_;
  const api::ResourceInfo& resource_;
  const Filter filter_;
  std::vector<Handler> handlers_;

  mutable SharedMutex cache_mu_;
  std::unordered_map<std::string, ObjectPtr, StringHash, std::equal_to<>> cache_
      GUARDED_BY(cache_mu_);
  std::atomic<int64_t> revision_{0};

  // Owned by the pumping thread, which reads it without a lock and replaces
  // it with watch_mu_ held, so that Stop() from another thread (under
  // watch_mu_) sees either no stream or a whole one. Not GUARDED_BY: the
  // analysis has no word for "one writer, who also reads unlocked".
  std::unique_ptr<WatchStream> watch_;
  bool listed_ = false;  // pumping thread only

  Mutex sync_mu_;
  CondVar synced_cv_;
  bool synced_ GUARDED_BY(sync_mu_) = false;

  Mutex watch_mu_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// Typed access to an informer's objects.
template <typename T>
const T* As(const ObjectPtr& object) {
  return object ? std::get_if<T>(object.get()) : nullptr;
}

}  // namespace dralloc::client

#endif  // DRALLOC_CLIENT_INFORMER_H_
