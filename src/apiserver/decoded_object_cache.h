// DecodedObjectCache: the decoded form of stored objects, by storage key,
// each valid for exactly one mod_revision.
//
// Components running inside the API server process (scheduler, claim
// controller) write typed objects and watch typed objects. Without this
// cache each write is encoded by the writer, decoded by the server, encoded
// for storage, decoded again for the writer's reply and once more by every
// in-process watcher. With it, the object admitted by a write is shared by
// the reply, the watchers and the next write's read of the current state.
//
// An entry is keyed by revision, so a stale entry is never returned; it only
// waits to be replaced. Only in-process paths insert: in-process writers and
// watchers, and writes of a resource while an in-process watcher of it is
// open (ResourceStorage::AddInProcessWatcher). HTTP traffic alone never
// grows the cache. Deletions erase.
#ifndef DRALLOC_APISERVER_DECODED_OBJECT_CACHE_H_
#define DRALLOC_APISERVER_DECODED_OBJECT_CACHE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/object.h"
#include "common/mutex.h"
#include "common/string_hash.h"

namespace dralloc::apiserver {

using SharedObject = std::shared_ptr<const api::Object>;

class DecodedObjectCache {
 public:
  // The object stored at `key` with mod_revision `revision`, or null.
  SharedObject Find(std::string_view key, int64_t revision) const;
  // Records `object` as the state of `key` at `revision` (a newer entry
  // for the key is kept).
  void Insert(std::string_view key, int64_t revision, SharedObject object);
  void Erase(std::string_view key);
  // Entries held (for tests and memory accounting).
  size_t size() const;

 private:
  struct Entry {
    int64_t revision = 0;
    SharedObject object;
  };
  struct Shard {
    mutable Mutex mutex;
    std::unordered_map<std::string, Entry, StringHash, std::equal_to<>> map
        GUARDED_BY(mutex);
  };
  Shard& ShardOf(std::string_view key) const {
    return shards_[StringHash{}(key) % shards_.size()];
  }

  mutable std::array<Shard, 16> shards_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_DECODED_OBJECT_CACHE_H_
