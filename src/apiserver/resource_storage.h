// ResourceStorage: the REST semantics of every served resource over a Store.
//
// Objects are stored once, in their hub (storage) version, as compact JSON
// whose metadata.resourceVersion is the store revision of the write. Reads in
// the storage version return the stored bytes as they are; other versions
// are converted on the way out. Every write runs admission (defaulting,
// validation, immutability, the admin-access namespace rule) and keeps the
// server-managed metadata (uid, creationTimestamp, generation,
// resourceVersion, deletionTimestamp) under the server's control.
#ifndef DRALLOC_APISERVER_RESOURCE_STORAGE_H_
#define DRALLOC_APISERVER_RESOURCE_STORAGE_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/object.h"
#include "api/resource_registry.h"
#include "apiserver/admission_plugin.h"
#include "apiserver/api_error.h"
#include "apiserver/decoded_object_cache.h"
#include "apiserver/device_allocation_index.h"
#include "apiserver/managed_fields_writer.h"
#include "apiserver/request_body.h"
#include "apiserver/request_scope.h"
#include "apiserver/resource_lister.h"
#include "apiserver/selectors.h"
#include "registry/name_generator.h"
#include "store/store.h"

namespace dralloc::apiserver {

class ResourceStorage {
 public:
  explicit ResourceStorage(store::Store& store);

  ApiOr<WriteResult> Create(const RequestScope& scope, std::string_view body,
                            const WriteOptions& options);
  // Create and update of an already decoded object (in-process clients):
  // the same admission and semantics as a body, without its decoding.
  ApiOr<WriteResult> CreateObject(const RequestScope& scope, api::Object object,
                                  const WriteOptions& options);
  ApiOr<WriteResult> UpdateObject(const RequestScope& scope, api::Object object,
                                  const WriteOptions& options);
  // The stored object decoded (shared with in-process watchers and writers).
  ApiOr<SharedObject> GetObject(const RequestScope& scope) const;
  // The object of a stored key-value (a list item or a watch event's state),
  // decoded once and shared through the cache; `cache` false for a state
  // that is gone (a deletion event).
  StatusOr<SharedObject> ObjectOf(const store::KeyValue& kv, bool cache) const;
  // In-process watch streams of `resource` (InProcessApiClient) register for
  // their lifetime. While a resource has one, every write of it publishes
  // its typed object to the decoded-object cache, where the watcher finds
  // it instead of decoding the stored bytes; without one, only the objects
  // of in-process writers are cached, so a server with no in-process
  // components keeps no typed copies of what HTTP clients write (a typed
  // 128-device slice is about ten times its JSON).
  void AddInProcessWatcher(const api::ResourceInfo& resource) const;
  void RemoveInProcessWatcher(const api::ResourceInfo& resource) const;
  // Typed objects held in the decoded-object cache.
  size_t decoded_objects() const { return decoded_.size(); }
  // `min_revision` (from a GET's resourceVersion; 0: none) is served not
  // older than asked: a revision the store has not reached is waited for,
  // then 504, as upstream.
  ApiOr<std::string> Get(const RequestScope& scope,
                         int64_t min_revision = 0) const;
  // A `<Kind>List` document in the request's version, with Kubernetes'
  // list semantics (see ResourceLister).
  ApiOr<std::string> List(const RequestScope& scope,
                          const ListOptions& options) const {
    return lister_.List(scope, options);
  }
  // How long a read waits for the store to reach a requested
  // resourceVersion (upstream: 3 s).
  void set_too_large_resource_version_wait(std::chrono::milliseconds wait) {
    lister_.set_too_large_resource_version_wait(wait);
  }
  ApiOr<WriteResult> Update(const RequestScope& scope, std::string_view body,
                            const WriteOptions& options);
  ApiOr<WriteResult> Patch(const RequestScope& scope,
                           std::string_view content_type, std::string_view body,
                           const WriteOptions& options);
  // `body`: DeleteOptions (may be empty).
  ApiOr<WriteResult> Delete(const RequestScope& scope, std::string_view body,
                            const WriteOptions& options);
  // POST pods/<name>/binding: `body` is a v1 Binding; sets spec.nodeName
  // and the PodScheduled condition. 409 if the pod is already bound or the
  // Binding's metadata.uid differs from the pod's.
  ApiOr<WriteResult> Bind(const RequestScope& scope, std::string_view body,
                          const WriteOptions& options);
  // The binding itself, for in-process callers: the pod (scope.name) gets
  // spec.nodeName = node if it has none and, when `uid` is set, that uid.
  ApiOr<WriteResult> BindTo(const RequestScope& scope, const std::string& node,
                            const std::string& uid,
                            const WriteOptions& options);
  // Removes `finalizer` from the spec.finalizers of namespace `name`, as a
  // PUT of namespaces/<name>/finalize does; a namespace being deleted whose
  // finalizers are all gone is removed. No-op if the finalizer is absent.
  ApiOr<WriteResult> RemoveNamespaceFinalizer(std::string_view name,
                                              std::string_view finalizer);
  // Deletes (or marks for deletion, with finalizers) the object at `key`,
  // as the garbage collector does for dependents of a deleted owner.
  void DeleteKey(const std::string& key);
  // Deletes the object at `key` as a client's DELETE of it would (with its
  // admission), for each item of a deletecollection.
  ApiOr<WriteResult> DeleteKeyAs(const std::string& key,
                                 const WriteOptions& options);

  // Storage keys: "/<plural>/<namespace>/<name>" or "/<plural>/<name>".
  static std::string Key(const api::ResourceInfo& info,
                         std::string_view namespace_, std::string_view name);
  // Prefix of a collection; all namespaces when `namespace_` is empty.
  static std::string Prefix(const api::ResourceInfo& info,
                            std::string_view namespace_);
  // The resource a storage key belongs to.
  static const api::ResourceInfo* InfoForKey(std::string_view key);

  // The stored JSON converted to `scope.version` (a copy of the bytes in
  // the storage version).
  static ApiOr<std::string> ToVersion(const RequestScope& scope,
                                      const std::string& stored);
  // True if the stored object passes the selectors.
  static bool Selected(const RequestScope&, const std::string& stored,
                       const LabelSelector& labels,
                       const FieldSelector& fields) {
    return ResourceLister::Selected(stored, labels, fields);
  }

  store::Store& store() { return store_; }

  // Adds an admission step to every write (see AdmissionPlugin). Register
  // before serving; plugins run in registration order.
  void AddAdmissionPlugin(std::unique_ptr<AdmissionPlugin> plugin) {
    admission_.push_back(std::move(plugin));
  }

  // ResourceLister::WaitForRevision.
  std::optional<ApiError> WaitForRevision(int64_t revision) const {
    return lister_.WaitForRevision(revision);
  }

 private:
  // A decoded request body (DecodeBody) or the object a write computes.
  using Decoded = RequestBody;
  static ApiOr<api::Object> DecodeStored(const RequestScope& scope,
                                         const std::string& stored);
  // The current object of `kv` (from the cache when it holds that
  // revision; inserted there after decoding when `cache`).
  ApiOr<SharedObject> Current(const RequestScope& scope,
                              const store::KeyValue& kv, bool cache) const;
  ApiOr<WriteResult> CreateDecoded(const RequestScope& scope, Decoded decoded,
                                   const WriteOptions& options);
  // The store encoder of a write of `text` at `key`. When `object` is not
  // null (`text` is its exact encoding), the encoder finishes it as
  // decoding the stored bytes would (resourceVersion, apiVersion, kind),
  // moves it into `*published` and puts it in the decoded-object cache
  // under the write's revision before the write commits: watchers woken by
  // the commit (the informers) find it there instead of decoding the bytes.
  // A caller whose write then fails erases `key` from the cache.
  // With a store that assigns the revision at commit (etcd), the encoder
  // leaves `object` alone and the caller calls Publish once the write has
  // returned.
  store::ValueEncoder Publisher(const RequestScope& scope,
                                const std::string& key, const std::string& text,
                                api::Object* object,
                                SharedObject* published) const;
  // Finishes `object` as written at `revision` (see Publisher), moves it
  // into the result and puts it in the decoded-object cache.
  SharedObject Publish(const RequestScope& scope, const std::string& key,
                       int64_t revision, api::Object& object) const;
  // The reply to a successful write of `stored` (the text), whose decoded
  // form is `published` (from Publisher) when the text is its exact
  // encoding (else null).
  ApiOr<WriteResult> Written(const RequestScope& scope,
                             const WriteOptions& options, int code,
                             const store::KeyValue& stored,
                             SharedObject published,
                             std::vector<std::string> warnings) const;
  // The namespace of a create: the request's, existing and not being
  // deleted (NamespaceLifecycle admission).
  // The answer for a name `info`'s store does not hold: 404, or 406 when
  // the other family of a shared resource holds it.
  ApiError Absent(const api::ResourceInfo& info, std::string_view namespace_,
                  std::string_view name) const;
  std::optional<ApiError> CheckNamespace(const RequestScope& scope,
                                         api::ObjectMeta& meta) const;
  // A server-side apply of an absent object creates it from `create_body`.
  ApiOr<WriteResult> ApplyCreate(const RequestScope& scope,
                                 const WriteOptions& options,
                                 std::string_view create_body);
  // The preconditions of an update of `current` (name, namespace,
  // resourceVersion, uid), then the registry's update rules on `next`.
  std::optional<ApiError> PrepareUpdate(const RequestScope& scope,
                                        const WriteOptions& options,
                                        api::Object& next,
                                        const api::Object& current) const;
  // Stores the prepared update `next` of `current` (read as `kv`, encoded
  // as `text`), or removes it when it is deleted and finalized; nullopt
  // when `kv` is no longer current (the caller retries).
  // Deletes `key`; in a shared store a claim holding devices (`claim`)
  // releases their reservations in the same step.
  StatusOr<store::KeyValue> DeleteStored(const std::string& key,
                                         store::Precondition precondition,
                                         const api::ResourceClaim* claim);
  std::optional<ApiOr<WriteResult>> StoreUpdate(
      const RequestScope& scope, const WriteOptions& options,
      const std::string& key, const store::KeyValue& kv,
      const api::Object& current, api::Object& next, const std::string& text,
      std::vector<std::string>& warnings);
  // The read-modify-write loop shared by update and patch: `compute` builds
  // the desired object from the current one.
  using Compute = std::function<ApiOr<Decoded>(const api::Object& current,
                                               const std::string& stored)>;
  // `apply`: a server-side apply, which has set managedFields itself and
  // creates the object from `create_body` when it is absent.
  ApiOr<WriteResult> UpdateLoop(const RequestScope& scope,
                                const WriteOptions& options,
                                const Compute& compute, bool apply,
                                std::string_view create_body);
  ApiOr<WriteResult> Respond(const RequestScope& scope, int code,
                             const std::string& stored,
                             std::vector<std::string> warnings) const;
  // What StoredText returns when `next` cannot be encoded.
  static constexpr std::string_view kUnencodable =
      ManagedFieldsWriter::kUnencodable;
  // The JSON to store for `next` by `manager` ("" keeps managedFields as
  // they are): ManagedFieldsWriter::StoredText.
  static std::string StoredText(const RequestScope& scope,
                                const api::Object* old, api::Object& next,
                                const std::string& manager) {
    return ManagedFieldsWriter(scope, manager).StoredText(old, next);
  }
  static std::string WithRevision(std::string text, int64_t revision) {
    return ManagedFieldsWriter::WithRevision(std::move(text), revision);
  }

  // The admission plugins' verdict on a write (nullopt: admitted).
  std::optional<ApiError> Admit(AdmissionOperation operation,
                                const RequestScope& scope,
                                const WriteOptions& options,
                                const api::Object* object,
                                const api::Object* old_object) const;

  store::Store& store_;
  std::vector<std::unique_ptr<AdmissionPlugin>> admission_;
  ResourceLister lister_;
  registry::RandomNameGenerator names_;
  DeviceAllocationIndex allocations_;
  mutable DecodedObjectCache decoded_;
  // In-process watch streams per resource, by index in api::AllResources().
  mutable std::vector<std::atomic<int>> in_process_watchers_;
  // Whether a write of `resource` publishes its typed object (see
  // AddInProcessWatcher).
  bool PublishesWrites(const api::ResourceInfo& resource,
                       const WriteOptions& options) const;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_RESOURCE_STORAGE_H_
