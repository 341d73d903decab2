#include "apiserver/namespace_finalizer.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "api/codec.h"
#include "api/well_known.h"
#include "common/log.h"

namespace dralloc::apiserver {
namespace {

constexpr std::string_view kNamespacePrefix = "/namespaces/";
// How often namespaces still waiting are looked at again without an event
// in them (e.g. after a failed write).
constexpr auto kRetryInterval = std::chrono::seconds(2);
// Least time between two reads of the watch while writes keep coming.
constexpr auto kBatchInterval = std::chrono::milliseconds(10);

// True if the stored namespace is deleted and still holds our finalizer.
bool NeedsFinalizing(const std::string& stored) {
  std::vector<api::DecodeResult> decoded =
      api::DecodeDocument(stored, {.strict = false});
  if (decoded.size() != 1 || !decoded[0].object) return false;
  const auto* ns = std::get_if<api::Namespace>(&*decoded[0].object);
  if (ns == nullptr || !ns->metadata.deletion_timestamp) return false;
  const auto& finalizers = ns->spec.finalizers;
  return std::find(finalizers.begin(), finalizers.end(),
                   api::kNamespaceFinalizer) != finalizers.end();
}

// The namespace a namespaced object's storage key is in, or "".
std::string NamespaceOfKey(const std::string& key) {
  const api::ResourceInfo* info = ResourceStorage::InfoForKey(key);
  if (info == nullptr || !info->namespaced) return "";
  const size_t start = info->store_prefix.size() + 2;  // "/<prefix>/"
  const size_t slash = key.find('/', start);
  if (start >= key.size() || slash == std::string::npos) return "";
  return key.substr(start, slash - start);
}

}  // namespace

NamespaceFinalizer::NamespaceFinalizer(ResourceStorage& storage)
    : storage_(storage) {}

NamespaceFinalizer::~NamespaceFinalizer() { Stop(); }

std::set<std::string> NamespaceFinalizer::ListTerminating() const {
  std::set<std::string> names;
  store::ListResult all = storage_.store().List(kNamespacePrefix, "", 0);
  for (const store::KeyValue& kv : all.items) {
    if (NeedsFinalizing(*kv.value)) {
      names.insert(kv.key.substr(kNamespacePrefix.size()));
    }
  }
  return names;
}

void NamespaceFinalizer::Start() {
  const int64_t revision = storage_.store().Revision();
  terminating_ = ListTerminating();
  // Watching from the revision read before the list misses no change.
  auto watcher = storage_.store().Watch("/", revision);
  if (!watcher.ok()) {
    log::Warn("apiserver", "namespace finalizer cannot watch: {}",
              watcher.status().message());
    return;
  }
  thread_ = std::thread(
      [this, w = std::move(*watcher)]() mutable { Run(std::move(w)); });
}

void NamespaceFinalizer::Stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

bool NamespaceFinalizer::Finalize(const std::string& namespace_) {
  store::Store& store = storage_.store();
  bool content_remains = false;
  for (const api::ResourceInfo& info : api::AllResources()) {
    if (!info.namespaced) continue;
    const std::string prefix = ResourceStorage::Prefix(info, namespace_);
    for (const store::KeyValue& kv : store.List(prefix, "", 0).items) {
      // Marks objects with finalizers; no write if already marked.
      storage_.DeleteKey(kv.key);
    }
    if (!store.List(prefix, "", 1).items.empty()) content_remains = true;
  }
  // Objects with finalizers: their deletion events bring us back.
  if (content_remains) return false;
  auto released =
      storage_.RemoveNamespaceFinalizer(namespace_, api::kNamespaceFinalizer);
  if (!released.ok() && released.error().code != 404) {
    log::Warn("apiserver", "finalizing namespace {}: {}", namespace_,
              released.error().message);
    return false;
  }
  return true;
}

void NamespaceFinalizer::Run(std::unique_ptr<store::Watcher> watcher) {
  std::set<std::string> dirty = terminating_;
  auto last_retry = std::chrono::steady_clock::now();
  while (!stopping_) {
    for (const std::string& name : dirty) {
      if (stopping_) return;
      if (Finalize(name)) terminating_.erase(name);
    }
    dirty.clear();
    auto events = watcher->Next(std::chrono::milliseconds(200));
    if (!events.ok()) {
      if (events.status().code() == StatusCode::kCancelled) return;
      // Fell behind the watch window: start again from a fresh list.
      const int64_t revision = storage_.store().Revision();
      terminating_ = ListTerminating();
      dirty = terminating_;
      auto fresh = storage_.store().Watch("/", revision);
      if (!fresh.ok()) return;
      watcher = std::move(*fresh);
      continue;
    }
    for (const store::WatchEvent& event : *events) {
      const std::string& key = event.kv.key;
      if (key.starts_with(kNamespacePrefix)) {
        const std::string name = key.substr(kNamespacePrefix.size());
        if (event.type == store::WatchEvent::Type::kPut &&
            NeedsFinalizing(*event.kv.value)) {
          terminating_.insert(name);
          dirty.insert(name);
        } else {
          terminating_.erase(name);
          dirty.erase(name);
        }
        continue;
      }
      // A change inside a namespace being emptied: an object went, or one
      // was created just before the namespace was marked.
      if (terminating_.empty()) continue;
      const std::string name = NamespaceOfKey(key);
      if (terminating_.contains(name)) dirty.insert(name);
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - last_retry >= kRetryInterval) {
      dirty.insert(terminating_.begin(), terminating_.end());
      last_retry = now;
    }
    // As the garbage collector: this watch sees every write, so events are
    // taken in batches rather than one wake-up per write.
    if (!events->empty()) std::this_thread::sleep_for(kBatchInterval);
  }
}

}  // namespace dralloc::apiserver
