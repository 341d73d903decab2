#include "client/memory_api_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "api/pod_conditions.h"
#include "client/informer.h"
#include "common/clock.h"
#include "common/string_hash.h"
#include "registry/pod_strategy.h"
#include "registry/rest_errors.h"
#include "registry/write_rules.h"

namespace dralloc::client {
namespace {

Status Conflict(const api::ResourceInfo& info, std::string_view name,
                std::string_view detail) {
  return Status(StatusCode::kAborted,
                registry::ConflictMessage(info, name, detail));
}

Status Invalid(const api::ResourceInfo& info, std::string_view name,
               const api::ErrorList& errors) {
  return InvalidArgumentError(registry::InvalidMessage(info, name, errors));
}

Status NotFound(const api::ResourceInfo& info, std::string_view name) {
  return NotFoundError(
      fmt::format("{} \"{}\" not found", info.QualifiedResource(), name));
}

const api::ResourceInfo& NamespacesResource() {
  static const api::ResourceInfo& info = *api::FindResourceByKind("Namespace");
  return info;
}

bool IsTerminating(const api::Namespace& ns) {
  return ns.metadata.deletion_timestamp || ns.status.phase == "Terminating";
}

}  // namespace

struct MemoryApiClient::Collection {
  // By ObjectKey; hashed because every write looks a key up.
  std::unordered_map<std::string, ObjectPtr, StringHash, std::equal_to<>>
      objects;
  // Revision order. Event i of the collection's history is log[i - trimmed];
  // the first `trimmed` events are gone (Trim).
  std::deque<WatchEvent> log;
  size_t trimmed = 0;
  // Revision of the newest trimmed event: watches must start at or after it.
  int64_t trimmed_revision = 0;
  // Open watches, each at the history index it reads next.
  std::unordered_map<const void*, size_t> readers;

  size_t end() const { return trimmed + log.size(); }
  // Drops events every open watch has read, keeping the newest
  // `kRetainedEvents` for watches that start later. Old object versions then
  // go, so a long run does not grow without bound.
  void Trim() {
    constexpr size_t kRetainedEvents = 1024;
    if (log.size() < 2 * kRetainedEvents) return;
    size_t upto = end() - kRetainedEvents;
    for (const auto& [reader, position] : readers) {
      upto = std::min(upto, position);
    }
    if (upto <= trimmed) return;
    trimmed_revision = log[upto - trimmed - 1].resource_version;
    log.erase(log.begin(),
              log.begin() + static_cast<ptrdiff_t>(upto - trimmed));
    trimmed = upto;
  }
};

class MemoryWatchStream : public WatchStream {
 public:
  MemoryWatchStream(MemoryApiClient& api, MemoryApiClient::Collection& c,
                    size_t position)
      : api_(api), collection_(c), position_(position) {
    collection_.readers[this] = position_;  // mu_ held by Watch
  }
  ~MemoryWatchStream() override {
    MutexLock lock(api_.mu_);
    collection_.readers.erase(this);
  }

  StatusOr<std::vector<WatchEvent>> Next(
      std::chrono::milliseconds timeout) override {
    MutexLock lock(api_.mu_);
    auto ready = [&]() REQUIRES(api_.mu_) {
      return stopped_ || api_.shutdown_ || position_ < collection_.end();
    };
    if (!ready() && timeout.count() > 0) {
      api_.changed_.WaitFor(api_.mu_, timeout, ready);
    }
    if (stopped_ || api_.shutdown_) {
      return Status(StatusCode::kCancelled, "watch stopped");
    }
    const auto first = collection_.log.begin() +
                       static_cast<ptrdiff_t>(position_ - collection_.trimmed);
    std::vector<WatchEvent> events(first, collection_.log.end());
    position_ = collection_.end();
    collection_.readers[this] = position_;
    return events;
  }

  void Stop() override {
    {
      MutexLock lock(api_.mu_);
      stopped_ = true;
    }
    api_.changed_.SignalAll();
  }

 private:
  MemoryApiClient& api_;
  MemoryApiClient::Collection& collection_;
  size_t position_ GUARDED_BY(api_.mu_);
  bool stopped_ GUARDED_BY(api_.mu_) = false;
};

MemoryApiClient::MemoryApiClient(MemoryApiOptions options)
    : options_(options) {}
MemoryApiClient::~MemoryApiClient() { Shutdown(); }

void MemoryApiClient::Shutdown() {
  {
    MutexLock lock(mu_);
    shutdown_ = true;
  }
  changed_.SignalAll();
}

int64_t MemoryApiClient::revision() const {
  MutexLock lock(mu_);
  return revision_;
}

MemoryApiClient::Collection& MemoryApiClient::CollectionFor(
    const api::ResourceInfo& resource) {
  if (auto known = by_info_.find(&resource); known != by_info_.end()) {
    return *known->second;
  }
  auto& slot = collections_[resource.store_prefix];
  if (!slot) slot = std::make_unique<Collection>();
  by_info_.emplace(&resource, slot.get());
  return *slot;
}

ObjectPtr MemoryApiClient::StoreLocked(Collection& collection,
                                       const std::string& key,
                                       std::shared_ptr<api::Object> object,
                                       bool created) {
  ++revision_;
  api::MetaOf(*object).resource_version = std::to_string(revision_);
  ObjectPtr stored = std::move(object);
  collection.objects.insert_or_assign(key, stored);
  collection.log.push_back(
      {created ? WatchEvent::Type::kAdded : WatchEvent::Type::kModified, stored,
       revision_});
  collection.Trim();
  changed_.SignalAll();
  return stored;
}

void MemoryApiClient::RemoveLocked(Collection& collection,
                                   const std::string& key,
                                   const ObjectPtr& last) {
  ++revision_;
  collection.objects.erase(key);
  collection.log.push_back({WatchEvent::Type::kDeleted, last, revision_});
  collection.Trim();
  changed_.SignalAll();
}

StatusOr<ObjectList> MemoryApiClient::List(const api::ResourceInfo& resource) {
  MutexLock lock(mu_);
  Collection& collection = CollectionFor(resource);
  ObjectList out;
  out.resource_version = revision_;
  std::vector<const std::pair<const std::string, ObjectPtr>*> sorted;
  sorted.reserve(collection.objects.size());
  for (const auto& entry : collection.objects) sorted.push_back(&entry);
  // Key order, so that offline runs are reproducible.
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  out.items.reserve(sorted.size());
  for (const auto* entry : sorted) out.items.push_back(entry->second);
  return out;
}

StatusOr<std::unique_ptr<WatchStream>> MemoryApiClient::Watch(
    const api::ResourceInfo& resource, int64_t resource_version) {
  MutexLock lock(mu_);
  Collection& collection = CollectionFor(resource);
  if (resource_version < collection.trimmed_revision) {
    return OutOfRangeError(fmt::format("too old resource version: {} ({})",
                                       resource_version,
                                       collection.trimmed_revision));
  }
  auto first = std::upper_bound(
      collection.log.begin(), collection.log.end(), resource_version,
      [](int64_t rv, const WatchEvent& e) { return rv < e.resource_version; });
  const size_t position =
      collection.trimmed + static_cast<size_t>(first - collection.log.begin());
  return std::unique_ptr<WatchStream>(
      std::make_unique<MemoryWatchStream>(*this, collection, position));
}

StatusOr<ObjectPtr> MemoryApiClient::Get(const api::ResourceInfo& resource,
                                         std::string_view namespace_,
                                         std::string_view name) {
  MutexLock lock(mu_);
  Collection& collection = CollectionFor(resource);
  auto it = collection.objects.find(
      ObjectKey(resource.namespaced ? namespace_ : "", name));
  if (it == collection.objects.end()) return NotFound(resource, name);
  return it->second;
}

std::optional<api::StringMap> MemoryApiClient::Labels(
    std::string_view name) const {
  MutexLock lock(mu_);
  auto collection = collections_.find(NamespacesResource().store_prefix);
  if (collection == collections_.end()) return std::nullopt;
  auto it = collection->second->objects.find(ObjectKey("", name));
  if (it == collection->second->objects.end()) return std::nullopt;
  return api::MetaOf(*it->second).labels;
}

Status MemoryApiClient::NamespaceLifecycleLocked(const api::ResourceInfo& info,
                                                 const api::ObjectMeta& meta,
                                                 bool named) {
  Collection& namespaces = CollectionFor(NamespacesResource());
  auto it = namespaces.objects.find(ObjectKey("", meta.namespace_));
  if (it == namespaces.objects.end()) return OkStatus();
  const auto* ns = std::get_if<api::Namespace>(it->second.get());
  if (ns == nullptr || !IsTerminating(*ns)) return OkStatus();
  return FailedPreconditionError(registry::NamespaceTerminatingMessage(
      info, named ? meta.name : "", meta.namespace_));
}

StatusOr<ObjectPtr> MemoryApiClient::Create(api::Object object) {
  // Moved once into its shared home; edited there until it is published.
  auto fresh = std::make_shared<api::Object>(std::move(object));
  api::Object& copy = *fresh;
  const api::ResourceInfo& info = ResourceOf(copy);
  api::ObjectMeta& meta = api::MetaOf(copy);
  const bool named = !meta.name.empty();
  const std::string kept_uid = options_.keep_uids ? meta.uid : "";
  // Everything that does not need the lock first: writers contend for it.
  // The uid is assigned under the lock, to created objects only.
  api::ErrorList errors = registry::PrepareCreate(
      info, copy, names_, "", NowRfc3339(),
      {.validate = options_.validate, .namespaces = this});
  if (!errors.empty()) return Invalid(info, meta.name, errors);
  if (meta.name.empty()) {
    return InvalidArgumentError(
        fmt::format("{}: metadata.name: Required value", info.kind));
  }
  MutexLock lock(mu_);
  if (info.namespaced) {
    Status lifecycle = NamespaceLifecycleLocked(info, meta, named);
    if (!lifecycle.ok()) return lifecycle;
  }
  Collection& collection = CollectionFor(info);
  const std::string key = ObjectKey(meta.namespace_, meta.name);
  if (collection.objects.contains(key)) {
    return Status(StatusCode::kAlreadyExists,
                  fmt::format("{} \"{}\" already exists",
                              info.QualifiedResource(), meta.name));
  }
  // The two families of a shared resource have one name space
  // (docs/classic-dra.md, section 3).
  if (info.sibling != nullptr &&
      CollectionFor(*info.sibling).objects.contains(key)) {
    return Status(StatusCode::kAlreadyExists,
                  fmt::format("{} \"{}\" already exists as a {} object",
                              info.QualifiedResource(), meta.name,
                              info.sibling->GroupVersion(
                                  info.sibling->versions.front())));
  }
  meta.uid = !kept_uid.empty()
                 ? kept_uid
                 : fmt::format("00000000-0000-4000-8000-{:012d}", next_uid_++);
  return StoreLocked(collection, key, std::move(fresh), true);
}

StatusOr<ObjectPtr> MemoryApiClient::Write(std::shared_ptr<api::Object> object,
                                           WrittenPart part) {
  const api::ResourceInfo& info = ResourceOf(*object);
  api::ObjectMeta& meta = api::MetaOf(*object);
  const std::string key =
      ObjectKey(info.namespaced ? meta.namespace_ : "", meta.name);
  const registry::WritePart written =
      part == WrittenPart::kStatus ? registry::WritePart::kStatus
      : part == WrittenPart::kObjectAndStatus
          ? registry::WritePart::kObjectAndStatus
          : registry::WritePart::kObject;
  // The preconditions the writer sent; preparing the write replaces them.
  const std::string sent_version = meta.resource_version;
  const std::string sent_uid = meta.uid;
  // The new version is built outside the lock, from the version current
  // when the preconditions were checked, and stored only if that is still
  // current (otherwise checked and built again).
  for (bool retry = false;; retry = true) {
    if (retry) {
      meta.resource_version = sent_version;
      meta.uid = sent_uid;
    }
    ObjectPtr current_ptr;
    {
      MutexLock lock(mu_);
      Collection& collection = CollectionFor(info);
      auto it = collection.objects.find(key);
      if (it == collection.objects.end()) return NotFound(info, meta.name);
      current_ptr = it->second;
    }
    const api::Object& current = *current_ptr;
    const api::ObjectMeta& old_meta = api::MetaOf(current);
    if (!meta.resource_version.empty() &&
        meta.resource_version != old_meta.resource_version) {
      return Conflict(info, meta.name, registry::kStaleObject);
    }
    if (!meta.uid.empty() && meta.uid != old_meta.uid) {
      return Conflict(info, meta.name,
                      registry::UidPreconditionFailed(meta.uid, old_meta.uid));
    }
    api::ErrorList errors = registry::PrepareUpdate(
        info, *object, current, written,
        {.validate = options_.validate, .namespaces = this});
    if (!errors.empty()) return Invalid(info, meta.name, errors);
    if (*object == current) return current_ptr;  // nothing changes
    MutexLock lock(mu_);
    Collection& collection = CollectionFor(info);
    auto it = collection.objects.find(key);
    if (it == collection.objects.end() || it->second != current_ptr) continue;
    if (registry::ReadyToRemove(*object)) {
      ObjectPtr last = std::move(object);
      RemoveLocked(collection, key, last);
      return last;
    }
    return StoreLocked(collection, key, std::move(object), false);
  }
}

StatusOr<ObjectPtr> MemoryApiClient::Update(api::Object object) {
  return Write(std::make_shared<api::Object>(std::move(object)),
               WrittenPart::kObject);
}

StatusOr<ObjectPtr> MemoryApiClient::UpdateStatus(api::Object object) {
  return Write(std::make_shared<api::Object>(std::move(object)),
               WrittenPart::kStatus);
}

StatusOr<ObjectPtr> MemoryApiClient::UpdateWithStatus(api::Object object) {
  return Write(std::make_shared<api::Object>(std::move(object)),
               WrittenPart::kObjectAndStatus);
}

Status MemoryApiClient::DeleteLocked(const api::ResourceInfo& resource,
                                     const std::string& key,
                                     const DeleteOptions& options) {
  Collection& collection = CollectionFor(resource);
  auto it = collection.objects.find(key);
  if (it == collection.objects.end()) {
    return NotFound(resource, key.substr(key.find('/') + 1));
  }
  ObjectPtr current = it->second;
  const api::ObjectMeta& meta = api::MetaOf(*current);
  if (!options.uid.empty() && options.uid != meta.uid) {
    return Conflict(resource, meta.name,
                    registry::UidPreconditionFailed(options.uid, meta.uid));
  }
  auto marked = std::make_shared<api::Object>(*current);
  const registry::DeletionStep step = registry::PrepareDeletion(
      *marked, options.grace_period_seconds, std::chrono::system_clock::now());
  if (step == registry::DeletionStep::kUnchanged) return OkStatus();
  if (step == registry::DeletionStep::kStore) {
    StoreLocked(collection, key, std::move(marked), false);
    return OkStatus();
  }
  const std::string owner_uid = meta.uid;
  RemoveLocked(collection, key, current);
  if (options.orphan_dependents) return OkStatus();
  // Background garbage collection of dependents.
  for (const api::ResourceInfo& info : api::AllResources()) {
    Collection& other = CollectionFor(info);
    std::vector<std::string> dependents;
    for (const auto& [other_key, object] : other.objects) {
      const auto& owners = api::MetaOf(*object).owner_references;
      if (std::any_of(owners.begin(), owners.end(),
                      [&](const auto& o) { return o.uid == owner_uid; })) {
        dependents.push_back(other_key);
      }
    }
    std::sort(dependents.begin(), dependents.end());
    for (const std::string& dependent : dependents) {
      (void)DeleteLocked(info, dependent, {});
    }
  }
  return OkStatus();
}

Status MemoryApiClient::Delete(const api::ResourceInfo& resource,
                               std::string_view namespace_,
                               std::string_view name,
                               const DeleteOptions& options) {
  MutexLock lock(mu_);
  return DeleteLocked(resource,
                      ObjectKey(resource.namespaced ? namespace_ : "", name),
                      options);
}

Status MemoryApiClient::Delete(const api::ResourceInfo& resource,
                               std::string_view namespace_,
                               std::string_view name, std::string_view uid) {
  return Delete(resource, namespace_, name,
                DeleteOptions{.uid = std::string(uid)});
}

Status MemoryApiClient::Bind(std::string_view namespace_, std::string_view name,
                             std::string_view uid, std::string_view node) {
  const api::ResourceInfo& info = PodsResource();
  const std::string key = ObjectKey(namespace_, name);
  const std::string now = NowRfc3339();
  while (true) {  // as Write: built outside the lock, stored if still current
    ObjectPtr current;
    {
      MutexLock lock(mu_);
      Collection& collection = CollectionFor(info);
      auto it = collection.objects.find(key);
      if (it == collection.objects.end()) return NotFound(info, name);
      current = it->second;
    }
    auto next = std::make_shared<api::Object>(std::in_place_type<api::Pod>,
                                              std::get<api::Pod>(*current));
    api::Pod& pod = std::get<api::Pod>(*next);
    if (auto conflict = registry::BindingConflict(pod, uid)) {
      return Conflict(info, name, *conflict);
    }
    api::MarkBound(pod, node, now);
    // As the server's binding: an update of the pod and its status.
    api::ErrorList errors = registry::PrepareUpdate(
        info, *next, *current, registry::WritePart::kObjectAndStatus,
        {.validate = options_.validate, .namespaces = this});
    if (!errors.empty()) return Invalid(info, name, errors);
    MutexLock lock(mu_);
    Collection& collection = CollectionFor(info);
    auto it = collection.objects.find(key);
    if (it == collection.objects.end() || it->second != current) continue;
    StoreLocked(collection, key, std::move(next), false);
    return OkStatus();
  }
}

Status MemoryApiClient::CreateEvent(const api::Event& event) {
  return Create(api::Object(event)).status();
}

}  // namespace dralloc::client
