#include "client/informer.h"

#include <algorithm>
#include <array>

#include "common/log.h"

namespace dralloc::client {

std::string ObjectKey(std::string_view namespace_, std::string_view name) {
  if (namespace_.empty()) return std::string(name);
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  key.append(namespace_).append("/").append(name);
  return key;
}

std::string ObjectKey(const api::Object& object) {
  const api::ObjectMeta& meta = api::MetaOf(object);
  return ObjectKey(meta.namespace_, meta.name);
}

Informer::Informer(ApiClient& client, const api::ResourceInfo& resource,
                   Filter filter)
    : client_(client), resource_(resource), filter_(std::move(filter)) {}

Informer::~Informer() { Stop(); }

void Informer::AddHandler(Handler handler) {
  handlers_.push_back(std::move(handler));
}

void Informer::Notify(const ObjectPtr& old, const ObjectPtr& now) {
  for (const Handler& handler : handlers_) handler(old, now);
}

void Informer::Apply(std::string key, ObjectPtr now) {
  if (now && filter_.keep && !filter_.keep(*now)) now = nullptr;
  ObjectPtr old;
  {
    WriterMutexLock lock(cache_mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) old = it->second;
    if (now) {
      if (it != cache_.end()) {
        it->second = now;
      } else {
        cache_.emplace(std::move(key), now);
      }
    } else if (it != cache_.end()) {
      cache_.erase(it);
    }
  }
  if (old || now) Notify(old, now);
}

Status Informer::Relist() {
  ASSIGN_OR_RETURN(
      ObjectList listed,
      filter_.field_selector.empty()
          ? client_.List(resource_)
          : client_.ListMatching(resource_, filter_.field_selector));
  std::unordered_map<std::string, ObjectPtr> fresh;
  fresh.reserve(listed.items.size());
  for (ObjectPtr& item : listed.items) {
    if (filter_.keep && !filter_.keep(*item)) continue;
    std::string key = ObjectKey(*item);
    fresh.emplace(std::move(key), std::move(item));
  }
  std::vector<std::string> gone;
  {
    ReaderMutexLock lock(cache_mu_);
    for (const auto& [key, object] : cache_) {
      if (!fresh.contains(key)) gone.push_back(key);
    }
  }
  for (std::string& key : gone) Apply(std::move(key), nullptr);
  // Name order, so that single-threaded runs are reproducible.
  std::vector<std::pair<std::string, ObjectPtr>> ordered(fresh.begin(),
                                                         fresh.end());
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [key, object] : ordered) {
    ObjectPtr current = Get(key);
    if (current && api::MetaOf(*current).resource_version ==
                       api::MetaOf(*object).resource_version) {
      continue;
    }
    Apply(key, object);
  }
  revision_ = listed.resource_version;
  {
    MutexLock lock(sync_mu_);
    synced_ = true;
  }
  synced_cv_.SignalAll();
  listed_ = true;
  return OkStatus();
}

StatusOr<size_t> Informer::Pump(std::chrono::milliseconds wait) {
  size_t changes = 0;
  if (!listed_) {
    RETURN_IF_ERROR(Relist());
    changes = size();
  }
  if (!watch_) {
    auto watch = filter_.field_selector.empty()
                     ? client_.Watch(resource_, revision_.load())
                     : client_.WatchMatching(resource_, revision_.load(),
                                             filter_.field_selector);
    if (!watch.ok()) {
      if (watch.status().code() == StatusCode::kOutOfRange) listed_ = false;
      return watch.status();
    }
    MutexLock lock(watch_mu_);
    watch_ = std::move(*watch);
    if (stopping_) watch_->Stop();
  }
  auto events = watch_->Next(wait);
  if (!events.ok()) {
    if (events.status().code() == StatusCode::kOutOfRange) {
      log::Info("informer", "{} watch expired at revision {}; listing again",
                resource_.plural, revision_.load());
      listed_ = false;
    }
    MutexLock lock(watch_mu_);
    watch_.reset();
    return events.status();
  }
  for (WatchEvent& event : *events) {
    if (event.type != WatchEvent::Type::kBookmark) {
      std::string key = ObjectKey(*event.object);
      Apply(std::move(key), event.type == WatchEvent::Type::kDeleted
                                ? nullptr
                                : std::move(event.object));
      ++changes;
    }
    if (event.resource_version > revision_) {
      revision_ = event.resource_version;
    }
  }
  return changes;
}

void Informer::Start() {
  thread_ = std::thread([this] {
    while (!stopping_) {
      auto pumped = Pump(std::chrono::milliseconds(500));
      if (!pumped.ok() && !stopping_ &&
          pumped.status().code() != StatusCode::kOutOfRange) {
        log::Warn("informer", "{}: {}", resource_.plural,
                  pumped.status().message());
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    }
  });
}

void Informer::Stop() {
  stopping_ = true;
  {
    MutexLock lock(watch_mu_);
    if (watch_) watch_->Stop();
  }
  if (thread_.joinable()) thread_.join();
}

bool Informer::WaitForSync(std::chrono::milliseconds timeout) {
  MutexLock lock(sync_mu_);
  return synced_cv_.WaitFor(sync_mu_, timeout,
                            [this]() REQUIRES(sync_mu_) { return synced_; });
}

ObjectPtr Informer::Get(std::string_view key) const {
  ReaderMutexLock lock(cache_mu_);
  auto it = cache_.find(key);
  return it == cache_.end() ? nullptr : it->second;
}

ObjectPtr Informer::Get(std::string_view namespace_,
                        std::string_view name) const {
  if (namespace_.empty()) return Get(name);
  // The key is built on the stack: lookups are frequent, and a std::string
  // of this length would be a heap allocation.
  std::array<char, 256> key;
  const size_t size = namespace_.size() + 1 + name.size();
  if (size > key.size()) return Get(ObjectKey(namespace_, name));
  std::copy(namespace_.begin(), namespace_.end(), key.begin());
  key[namespace_.size()] = '/';
  std::copy(name.begin(), name.end(), key.begin() + namespace_.size() + 1);
  return Get(std::string_view(key.data(), size));
}

std::vector<ObjectPtr> Informer::List() const {
  ReaderMutexLock lock(cache_mu_);
  std::vector<ObjectPtr> out;
  out.reserve(cache_.size());
  for (const auto& [key, object] : cache_) out.push_back(object);
  return out;
}

size_t Informer::size() const {
  ReaderMutexLock lock(cache_mu_);
  return cache_.size();
}

}  // namespace dralloc::client
