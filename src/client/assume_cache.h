// AssumeCache: objects a component has just written (or is about to write),
// laid over an informer until the informer has caught up.
//
// The scheduler assumes a claim's allocation the moment it picks devices, so
// the next pod cannot take them although the write is still in flight.
// Assume() records the expected object; Confirm() records the revision the
// write produced; Observe() (from the informer's handler) drops the
// assumption once the informer reports that revision or a newer one;
// Restore() drops it when the write failed. Thread-safe.
#ifndef DRALLOC_CLIENT_ASSUME_CACHE_H_
#define DRALLOC_CLIENT_ASSUME_CACHE_H_

#include <cstdint>
#include <string>
#include <unordered_map>

#include "client/informer.h"
#include "common/mutex.h"
#include "common/string_hash.h"

namespace dralloc::client {

class AssumeCache {
 public:
  explicit AssumeCache(const Informer& informer) : informer_(informer) {}

  // The assumed object if there is one, else the informer's (or null).
  ObjectPtr Get(const std::string& key) const EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      auto it = assumed_.find(key);
      if (it != assumed_.end()) return it->second.object;
    }
    return informer_.Get(key);
  }
  bool IsAssumed(const std::string& key) const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return assumed_.contains(key);
  }
  void Assume(const std::string& key, ObjectPtr object) EXCLUDES(mu_) {
    const bool creates = informer_.Get(key) == nullptr;
    MutexLock lock(mu_);
    auto [it, inserted] = assumed_.try_emplace(key);
    // An object assumed again keeps counting as created until the informer
    // has delivered it.
    it->second.creates = inserted ? creates : it->second.creates && creates;
    it->second.object = std::move(object);
    it->second.confirmed_revision = 0;
  }
  // The write for `key` succeeded with `resource_version`. An assumption
  // about an object the informer held goes when the informer holds none
  // now: the object was deleted since (its deletion may have been observed
  // while the write was in flight). One about an object the write created
  // stays until the informer delivers it (or its deletion).
  void Confirm(const std::string& key, int64_t resource_version) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    auto it = assumed_.find(key);
    if (it == assumed_.end()) return;
    ObjectPtr current = informer_.Get(key);
    if (current == nullptr && it->second.creates) {
      it->second.confirmed_revision = resource_version;
    } else if (current == nullptr || RevisionOf(*current) >= resource_version) {
      assumed_.erase(it);
    } else {
      it->second.confirmed_revision = resource_version;
    }
  }
  void Restore(const std::string& key) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    assumed_.erase(key);
  }
  // The informer now holds `now` for `key` (null: deleted). Returns true if
  // an assumption was dropped because the informer caught up with it.
  bool Observe(const std::string& key, const ObjectPtr& now) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    auto it = assumed_.find(key);
    if (it == assumed_.end() || it->second.confirmed_revision == 0) {
      return false;
    }
    if (now && RevisionOf(*now) < it->second.confirmed_revision) return false;
    assumed_.erase(it);
    return true;
  }
  size_t size() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return assumed_.size();
  }

  static int64_t RevisionOf(const api::Object& object) {
    return ParseResourceVersion(api::MetaOf(object).resource_version);
  }

 private:
  struct Entry {
    ObjectPtr object;
    int64_t confirmed_revision = 0;  // 0: the write is still in flight
    bool creates = false;            // the informer held no object when assumed
  };
  const Informer& informer_;
  mutable Mutex mu_;
  StringKeyedMap<Entry> assumed_ GUARDED_BY(mu_);
};

}  // namespace dralloc::client

#endif  // DRALLOC_CLIENT_ASSUME_CACHE_H_
