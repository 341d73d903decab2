// MemoryApiClient: a whole API in memory, typed, for offline runs.
//
// `dralloc schedule` runs the claim controller and the scheduler against it:
// the same ApiClient contract as a server (resourceVersions, optimistic
// concurrency, generateName, status subresource, pods/binding, finalizers and
// deletionTimestamp, owner-reference garbage collection of claims), without
// encoding a single JSON document. Objects are not validated here: callers
// validate their input first, as `dralloc schedule` does.
#ifndef DRALLOC_CLIENT_MEMORY_API_CLIENT_H_
#define DRALLOC_CLIENT_MEMORY_API_CLIENT_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "client/api_client.h"

namespace dralloc::client {

class MemoryApiClient : public ApiClient {
 public:
  MemoryApiClient();
  ~MemoryApiClient() override;

  StatusOr<ObjectList> List(const api::ResourceInfo& resource) override;
  StatusOr<std::unique_ptr<WatchStream>> Watch(
      const api::ResourceInfo& resource, int64_t resource_version) override;
  StatusOr<ObjectPtr> Get(const api::ResourceInfo& resource,
                          std::string_view namespace_,
                          std::string_view name) override;
  StatusOr<ObjectPtr> Create(api::Object object) override;
  StatusOr<ObjectPtr> Update(api::Object object) override;
  StatusOr<ObjectPtr> UpdateStatus(api::Object object) override;
  StatusOr<ObjectPtr> UpdateWithStatus(api::Object object) override;
  Status Delete(const api::ResourceInfo& resource, std::string_view namespace_,
                std::string_view name, std::string_view uid) override;
  Status Bind(std::string_view namespace_, std::string_view name,
              std::string_view uid, std::string_view node) override;
  Status CreateEvent(const api::Event& event) override;

  // Wakes blocked watches; later calls to Next return kCancelled.
  void Shutdown();
  int64_t revision() const;

  struct Collection;  // one resource's objects and event log
                      // (memory_api_client.cc)

 private:
  friend class MemoryWatchStream;
  Collection& CollectionFor(const api::ResourceInfo& resource);
  // Stores `object`, which nobody else holds yet (metadata.resourceVersion
  // set to the next revision), and records the event. mu_ held.
  ObjectPtr StoreLocked(Collection& collection, const std::string& key,
                        std::shared_ptr<api::Object> object, bool created);
  void RemoveLocked(Collection& collection, const std::string& key,
                    const ObjectPtr& last);
  // What a write replaces.
  enum class WrittenPart { kObject, kStatus, kObjectAndStatus };
  // `object` is the caller's own, not yet shared.
  StatusOr<ObjectPtr> Write(std::shared_ptr<api::Object> object,
                            WrittenPart part);
  // `current` with the status of `desired` (which it may take, or `desired`
  // itself when everything else already matches `current`); null when that
  // is no change.
  static std::shared_ptr<api::Object> WithStatusOf(
      const api::Object& current, std::shared_ptr<api::Object>& desired);
  // Gives `desired` what an update keeps of `current` (identity, status
  // unless `with_status`, generation, bumped on a spec change); false when
  // it then equals `current`.
  static bool CompleteUpdate(const api::ResourceInfo& info,
                             const api::Object& current, api::Object& desired,
                             bool with_status);
  // Deletes or marks for deletion; collects dependents to delete. mu_ held.
  Status DeleteLocked(const api::ResourceInfo& resource, const std::string& key,
                      std::string_view uid);

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string_view, std::unique_ptr<Collection>> collections_;
  // collections_ by registry entry address: callers pass a few entries over
  // and over, and a pointer is cheaper to look up than a name.
  std::unordered_map<const api::ResourceInfo*, Collection*> by_info_;
  int64_t revision_ = 1;
  uint64_t next_uid_ = 1;
  uint64_t next_name_ = 0;
  bool shutdown_ = false;
};

}  // namespace dralloc::client

#endif  // DRALLOC_CLIENT_MEMORY_API_CLIENT_H_
