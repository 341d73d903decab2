// GarbageCollector: deletes dependents whose owners are gone.
//
// Background propagation, as Kubernetes does by default: when an object is
// deleted, every object with an ownerReference to its uid is deleted too
// (objects with finalizers are marked for deletion instead). At startup,
// objects whose owners no longer exist are deleted as well.
#ifndef DRALLOC_APISERVER_GARBAGE_COLLECTOR_H_
#define DRALLOC_APISERVER_GARBAGE_COLLECTOR_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "apiserver/resource_storage.h"
#include "store/store.h"

namespace dralloc::apiserver {

class GarbageCollector {
 public:
  explicit GarbageCollector(ResourceStorage& storage);
  ~GarbageCollector();
  void Start();
  void Stop();

 private:
  // Records the owners `key` depends on; returns the object's uid.
  std::string Track(const std::string& key, const std::string& value);
  void Run(std::unique_ptr<store::Watcher> watcher);
  void Collect(const std::string& owner_uid);

  ResourceStorage& storage_;
  std::unordered_multimap<std::string, std::string> dependents_;  // uid → key
  std::unique_ptr<store::Watcher> watcher_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_GARBAGE_COLLECTOR_H_
