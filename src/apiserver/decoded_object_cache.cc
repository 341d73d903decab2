#include "apiserver/decoded_object_cache.h"

#include <utility>

namespace dralloc::apiserver {

SharedObject DecodedObjectCache::Find(std::string_view key,
                                      int64_t revision) const {
  Shard& shard = ShardOf(key);
  MutexLock lock(shard.mutex);
  auto it = shard.map.find(key);
  if (it == shard.map.end() || it->second.revision != revision) return nullptr;
  return it->second.object;
}

void DecodedObjectCache::Insert(std::string_view key, int64_t revision,
                                SharedObject object) {
  Shard& shard = ShardOf(key);
  SharedObject replaced;  // released outside the lock
  MutexLock lock(shard.mutex);
  auto it = shard.map.find(key);
  if (it == shard.map.end()) {
    shard.map.emplace(std::string(key), Entry{revision, std::move(object)});
    return;
  }
  if (it->second.revision > revision) return;
  replaced = std::exchange(it->second.object, std::move(object));
  it->second.revision = revision;
}

void DecodedObjectCache::Erase(std::string_view key) {
  Shard& shard = ShardOf(key);
  SharedObject erased;
  MutexLock lock(shard.mutex);
  auto it = shard.map.find(key);
  if (it == shard.map.end()) return;
  erased = std::move(it->second.object);
  shard.map.erase(it);
}

size_t DecodedObjectCache::size() const {
  size_t entries = 0;
  for (const Shard& shard : shards_) {
    MutexLock lock(shard.mutex);
    entries += shard.map.size();
  }
  return entries;
}

}  // namespace dralloc::apiserver
