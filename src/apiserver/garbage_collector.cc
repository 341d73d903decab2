#include "apiserver/garbage_collector.h"

#include <simdjson.h>

#include <chrono>
#include <thread>
#include <vector>

namespace dralloc::apiserver {
namespace {

// Least time between two reads of the watch while writes keep coming.
constexpr auto kBatchInterval = std::chrono::milliseconds(10);

struct Ownership {
  std::string uid;
  std::vector<std::string> owner_uids;
};

Ownership ReadOwnership(const std::string& value) {
  thread_local simdjson::dom::parser parser;
  Ownership out;
  simdjson::dom::element root;
  if (parser.parse(value).get(root) != simdjson::SUCCESS) return out;
  std::string_view uid;
  if (root["metadata"]["uid"].get(uid) == simdjson::SUCCESS) {
    out.uid = std::string(uid);
  }
  simdjson::dom::array owners;
  if (root["metadata"]["ownerReferences"].get(owners) == simdjson::SUCCESS) {
    for (simdjson::dom::element owner : owners) {
      std::string_view owner_uid;
      if (owner["uid"].get(owner_uid) == simdjson::SUCCESS) {
        out.owner_uids.emplace_back(owner_uid);
      }
    }
  }
  return out;
}

// The text of metadata.ownerReferences in stored (compact) JSON, "" when
// there is none: enough to tell whether a write changed the owners.
std::string_view OwnerReferencesText(std::string_view value) {
  static constexpr std::string_view kField = "\"ownerReferences\":[";
  const size_t start = value.find(kField);
  if (start == std::string_view::npos) return {};
  // Owner references hold no arrays: the first ']' closes the list.
  const size_t end = value.find(']', start + kField.size());
  if (end == std::string_view::npos) return value.substr(start);
  return value.substr(start, end + 1 - start);
}

}  // namespace

GarbageCollector::GarbageCollector(ResourceStorage& storage)
    : storage_(storage) {}

GarbageCollector::~GarbageCollector() { Stop(); }

void GarbageCollector::Start() {
  store::Store& store = storage_.store();
  store::ListResult all = store.List("/", "", 0);
  std::unordered_set<std::string> live_uids;
  for (const store::KeyValue& kv : all.items) {
    const std::string uid = Track(kv.key, *kv.value);
    if (!uid.empty()) live_uids.insert(uid);
  }
  // Dependents whose owners vanished while the server was down.
  std::vector<std::string> orphans;
  for (const auto& [owner_uid, key] : dependents_) {
    if (!live_uids.contains(owner_uid)) orphans.push_back(key);
  }
  for (const std::string& key : orphans) storage_.DeleteKey(key);
  auto watcher = store.Watch("/", all.revision);
  if (!watcher.ok()) return;
  thread_ = std::thread(
      [this, w = std::move(*watcher)]() mutable { Run(std::move(w)); });
}

void GarbageCollector::Stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

std::string GarbageCollector::Track(const std::string& key,
                                    const std::string& value) {
  Ownership ownership = ReadOwnership(value);
  for (const std::string& owner : ownership.owner_uids) {
    bool known = false;
    auto range = dependents_.equal_range(owner);
    for (auto it = range.first; it != range.second; ++it) {
      if (it->second == key) known = true;
    }
    if (!known) dependents_.emplace(owner, key);
  }
  return ownership.uid;
}

void GarbageCollector::Collect(const std::string& owner_uid) {
  std::vector<std::string> keys;
  auto range = dependents_.equal_range(owner_uid);
  for (auto it = range.first; it != range.second; ++it) {
    keys.push_back(it->second);
  }
  dependents_.erase(owner_uid);
  for (const std::string& key : keys) storage_.DeleteKey(key);
}

void GarbageCollector::Run(std::unique_ptr<store::Watcher> watcher) {
  while (!stopping_) {
    auto events = watcher->Next(std::chrono::milliseconds(200));
    if (!events.ok()) {
      if (events.status().code() == StatusCode::kCancelled) return;
      // Fell behind the window: rebuild from a fresh list.
      store::ListResult all = storage_.store().List("/", "", 0);
      dependents_.clear();
      for (const store::KeyValue& kv : all.items) Track(kv.key, *kv.value);
      auto fresh = storage_.store().Watch("/", all.revision);
      if (!fresh.ok()) return;
      watcher = std::move(*fresh);
      continue;
    }
    for (const store::WatchEvent& event : *events) {
      // Only objects with owners need parsing on writes; a deletion is
      // parsed for the uid whose dependents go with it.
      const std::string& value = *event.kv.value;
      if (event.type == store::WatchEvent::Type::kPut) {
        const std::string_view owners = OwnerReferencesText(value);
        if (owners.empty()) continue;
        // Most updates (status, finalizers) leave the owners as they were.
        if (event.previous && OwnerReferencesText(*event.previous) == owners) {
          continue;
        }
        Track(event.kv.key, value);
      } else {
        const std::string uid = ReadOwnership(value).uid;
        if (!uid.empty()) Collect(uid);
      }
    }
    // This watch sees every write; under a write storm, waking for each
    // one costs two context switches per write. Collection is background
    // work: take the events in batches instead.
    if (!events->empty()) std::this_thread::sleep_for(kBatchInterval);
  }
}

}  // namespace dralloc::apiserver
