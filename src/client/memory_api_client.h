// MemoryApiClient: a whole API in memory, typed, for offline runs.
//
// `dralloc schedule` runs the claim controller and the scheduler against it:
// the same ApiClient contract as a server (resourceVersions, optimistic
// concurrency, generateName, status subresource, pods/binding, finalizers and
// deletionTimestamp, owner-reference garbage collection of claims), without
// encoding a single JSON document. Writes follow the registry's rules
// (registry/write_rules.h), as the API server's do, with two differences
// kept for offline runs: validation (api::Validate and immutability) runs
// only with MemoryApiOptions::validate, since callers validate their input
// first, as `dralloc schedule` does; and a namespace need not exist to hold
// objects (one being deleted refuses new ones, as on a server).
#ifndef DRALLOC_CLIENT_MEMORY_API_CLIENT_H_
#define DRALLOC_CLIENT_MEMORY_API_CLIENT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "client/api_client.h"
#include "common/mutex.h"
#include "registry/name_generator.h"
#include "registry/strategy.h"

namespace dralloc::client {

struct MemoryApiOptions {
  // Validate every write as the API server does (its error messages too).
  bool validate = false;
  // Create keeps a uid the object carries (for loading a cluster's state,
  // where claims' reservedFor and owner references name objects by uid);
  // objects without one get a fresh uid. Off: every create gets a fresh
  // uid, as the API server gives.
  bool keep_uids = false;
};

class MemoryApiClient : public ApiClient, private registry::NamespaceLookup {
 public:
  explicit MemoryApiClient(MemoryApiOptions options = {});
  ~MemoryApiClient() override;

  StatusOr<ObjectList> List(const api::ResourceInfo& resource) override
      EXCLUDES(mu_);
  StatusOr<std::unique_ptr<WatchStream>> Watch(
      const api::ResourceInfo& resource, int64_t resource_version) override
      EXCLUDES(mu_);
  StatusOr<ObjectPtr> Get(const api::ResourceInfo& resource,
                          std::string_view namespace_,
                          std::string_view name) override EXCLUDES(mu_);
  StatusOr<ObjectPtr> Create(api::Object object) override EXCLUDES(mu_);
  StatusOr<ObjectPtr> Update(api::Object object) override;
  StatusOr<ObjectPtr> UpdateStatus(api::Object object) override;
  StatusOr<ObjectPtr> UpdateWithStatus(api::Object object) override;
  Status Delete(const api::ResourceInfo& resource, std::string_view namespace_,
                std::string_view name, std::string_view uid) override
      EXCLUDES(mu_);
  Status Delete(const api::ResourceInfo& resource, std::string_view namespace_,
                std::string_view name, const DeleteOptions& options) override
      EXCLUDES(mu_);
  Status Bind(std::string_view namespace_, std::string_view name,
              std::string_view uid, std::string_view node) override
      EXCLUDES(mu_);
  Status CreateEvent(const api::Event& event) override;

  // Wakes blocked watches; later calls to Next return kCancelled.
  void Shutdown() EXCLUDES(mu_);
  int64_t revision() const EXCLUDES(mu_);

  struct Collection;  // one resource's objects and event log
                      // (memory_api_client.cc)

 private:
  friend class MemoryWatchStream;
  Collection& CollectionFor(const api::ResourceInfo& resource) REQUIRES(mu_);
  // Stores `object`, which nobody else holds yet (metadata.resourceVersion
  // set to the next revision), and records the event.
  ObjectPtr StoreLocked(Collection& collection, const std::string& key,
                        std::shared_ptr<api::Object> object, bool created)
      REQUIRES(mu_);
  void RemoveLocked(Collection& collection, const std::string& key,
                    const ObjectPtr& last) REQUIRES(mu_);
  // What a write replaces.
  enum class WrittenPart { kObject, kStatus, kObjectAndStatus };
  // `object` is the caller's own, not yet shared.
  StatusOr<ObjectPtr> Write(std::shared_ptr<api::Object> object,
                            WrittenPart part) EXCLUDES(mu_);
  // For admission rules: the labels of a stored namespace.
  std::optional<api::StringMap> Labels(std::string_view name) const override
      EXCLUDES(mu_);
  // The 403 of a create of `meta` in a namespace being deleted; `named`:
  // the object was sent with a name (not only generateName).
  Status NamespaceLifecycleLocked(const api::ResourceInfo& info,
                                  const api::ObjectMeta& meta, bool named)
      REQUIRES(mu_);
  // Deletes or marks for deletion; collects dependents to delete.
  Status DeleteLocked(const api::ResourceInfo& resource, const std::string& key,
                      const DeleteOptions& options) REQUIRES(mu_);

  // mu_ guards every collection (and so the watches' positions in them).
  mutable Mutex mu_;
  CondVar changed_;
  std::map<std::string_view, std::unique_ptr<Collection>> collections_
      GUARDED_BY(mu_);
  // collections_ by registry entry address: callers pass a few entries over
  // and over, and a pointer is cheaper to look up than a name.
  std::unordered_map<const api::ResourceInfo*, Collection*> by_info_
      GUARDED_BY(mu_);
  const MemoryApiOptions options_;
  registry::DeterministicNameGenerator names_;
  int64_t revision_ GUARDED_BY(mu_) = 1;
  uint64_t next_uid_ GUARDED_BY(mu_) = 1;
  bool shutdown_ GUARDED_BY(mu_) = false;
};

}  // namespace dralloc::client

#endif  // DRALLOC_CLIENT_MEMORY_API_CLIENT_H_
