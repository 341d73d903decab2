// ApiClient: typed access to a Kubernetes-compatible API for controllers.
//
// The scheduler and the claim controller read through informers (list +
// watch) and write through this interface. Implementations: in memory
// (MemoryApiClient, for offline what-if runs), in process over a Store with
// the API server's admission (InProcessApiClient), and over HTTP against any
// Kubernetes-compatible API server (HttpApiClient, from a kubeconfig).
//
// Objects are api::Object in the hub version. resourceVersions are the
// decimal revisions every supported server uses (etcd revisions).
//
// Errors: kNotFound (404), kAlreadyExists (409 AlreadyExists), kAborted (409
// Conflict: stale resourceVersion or a failed precondition), kInvalidArgument
// (400/422: the message is the server's), kOutOfRange (410 Gone: a watch
// from a revision that is no longer available), kUnavailable (transport or
// 5xx), kCancelled (the client or a watch was stopped).
#ifndef DRALLOC_CLIENT_API_CLIENT_H_
#define DRALLOC_CLIENT_API_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/kind_traits.h"
#include "api/object.h"
#include "api/resource_registry.h"
#include "common/status.h"

namespace dralloc::client {

using ObjectPtr = std::shared_ptr<const api::Object>;

struct ObjectList {
  std::vector<ObjectPtr> items;
  int64_t resource_version = 0;
};

struct WatchEvent {
  enum class Type { kAdded, kModified, kDeleted, kBookmark };
  Type type = Type::kAdded;
  ObjectPtr object;  // null for bookmarks
  // The object's resourceVersion (the bookmark's for bookmarks; for a
  // deletion, the revision of the deletion when the server reports it).
  int64_t resource_version = 0;
};

// One watch stream. Not thread-safe except Stop(), which may be called from
// any thread to wake a blocked Next().
class WatchStream {
 public:
  virtual ~WatchStream() = default;
  // Waits up to `timeout` for events; returns those available (possibly
  // none). kOutOfRange: the start revision is too old (re-list);
  // kCancelled after Stop(); other errors: the stream broke (re-watch).
  virtual StatusOr<std::vector<WatchEvent>> Next(
      std::chrono::milliseconds timeout) = 0;
  virtual void Stop() = 0;
};

// The meta/v1 DeleteOptions a client sends.
struct DeleteOptions {
  // nullopt: the kind's default (a pod's terminationGracePeriodSeconds);
  // 0: remove at once (finalizers permitting).
  std::optional<int64_t> grace_period_seconds;
  // Precondition: delete only the object with this uid ("" : any).
  std::string uid;
  // propagationPolicy Orphan: leave the objects this one owns (the
  // default, Background, garbage-collects them). Only MemoryApiClient
  // supports it; the others answer kUnimplemented.
  bool orphan_dependents = false;
};

class ApiClient {
 public:
  virtual ~ApiClient() = default;

  // Every object of `resource` in all namespaces, and the list's revision.
  virtual StatusOr<ObjectList> List(const api::ResourceInfo& resource) = 0;
  // Events of `resource` (all namespaces) after `resource_version`, with
  // bookmarks where the server sends them.
  virtual StatusOr<std::unique_ptr<WatchStream>> Watch(
      const api::ResourceInfo& resource, int64_t resource_version) = 0;
  // As List / Watch, limited where the client can to objects whose fields
  // match `field_selector` (the API's fieldSelector, e.g.
  // "spec.nodeName=node-1"; an object that stops matching is DELETED). A
  // client that cannot filter returns everything: callers filter again
  // (the Informer's filter does).
  virtual StatusOr<ObjectList> ListMatching(const api::ResourceInfo& resource,
                                            std::string_view field_selector) {
    (void)field_selector;
    return List(resource);
  }
  virtual StatusOr<std::unique_ptr<WatchStream>> WatchMatching(
      const api::ResourceInfo& resource, int64_t resource_version,
      std::string_view field_selector) {
    (void)field_selector;
    return Watch(resource, resource_version);
  }
  // Objects come back shared and immutable: a caller that wants to change
  // one copies it. Never null on success.
  virtual StatusOr<ObjectPtr> Get(const api::ResourceInfo& resource,
                                  std::string_view namespace_,
                                  std::string_view name) = 0;

  // Creates `object` (metadata.generateName is honoured). Returns the stored
  // object.
  virtual StatusOr<ObjectPtr> Create(api::Object object) = 0;
  // Replaces the object (everything but status); fails with kAborted when
  // metadata.resourceVersion is set and stale.
  virtual StatusOr<ObjectPtr> Update(api::Object object) = 0;
  // Replaces the status (the `status` subresource), same precondition.
  virtual StatusOr<ObjectPtr> UpdateStatus(api::Object object) = 0;
  // Replaces the object and its status, same precondition. In-process
  // clients write both at once (one store write, one event); this default,
  // as over HTTP, is an Update and then an UpdateStatus of its result with
  // `object`'s status, so a failure can leave the first write done.
  virtual StatusOr<ObjectPtr> UpdateWithStatus(api::Object object);
  // Deletes the object (no grace period given: the kind's default, see
  // below); with a non-empty `uid` only if it still has that uid (kAborted
  // otherwise).
  virtual Status Delete(const api::ResourceInfo& resource,
                        std::string_view namespace_, std::string_view name,
                        std::string_view uid) = 0;
  // Deletes the object as a DELETE with `options` does: a pod bound to a
  // node and not terminal is only marked (deletionTimestamp + grace period)
  // unless the grace period is 0; objects with finalizers are marked;
  // others are removed. Every client in this tree implements it; this
  // default (for other implementations) serves options without a grace
  // period through the overload above and answers kUnimplemented otherwise.
  virtual Status Delete(const api::ResourceInfo& resource,
                        std::string_view namespace_, std::string_view name,
                        const DeleteOptions& options);
  // Binds a pod to a node (POST pods/<name>/binding): kAborted if the pod
  // is already bound or its uid differs from `uid` (when non-empty).
  virtual Status Bind(std::string_view namespace_, std::string_view name,
                      std::string_view uid, std::string_view node) = 0;
  // Records an Event (best effort).
  virtual Status CreateEvent(const api::Event& event) = 0;
};

// The Status a client sees for an API error response with HTTP `code` and
// Status `reason` (the mapping in the header comment).
Status StatusForApiError(int code, std::string_view reason,
                         std::string message);
// A resourceVersion as a revision (0 when it is not a decimal number).
int64_t ParseResourceVersion(std::string_view text);

// A Warning event about a pod, named like upstream's ("<pod>.<hex ns>"),
// stamped now, reported by `component`.
api::Event PodWarningEvent(const api::Pod& pod, std::string reason,
                           std::string message, const std::string& component);

// The registry entry of kind T (an alternative of api::Object):
// ResourceFor<api::Pod>().
template <typename T>
const api::ResourceInfo& ResourceFor() {
  return api::ResourceInfoFor<T>();
}

// The same under the names existing callers use.
inline const api::ResourceInfo& PodsResource() {
  return ResourceFor<api::Pod>();
}
inline const api::ResourceInfo& NodesResource() {
  return ResourceFor<api::Node>();
}
inline const api::ResourceInfo& ResourceClaimsResource() {
  return ResourceFor<api::ResourceClaim>();
}
inline const api::ResourceInfo& ResourceClaimTemplatesResource() {
  return ResourceFor<api::ResourceClaimTemplate>();
}
inline const api::ResourceInfo& ResourceSlicesResource() {
  return ResourceFor<api::ResourceSlice>();
}
inline const api::ResourceInfo& DeviceClassesResource() {
  return ResourceFor<api::DeviceClass>();
}
inline const api::ResourceInfo& DeviceTaintRulesResource() {
  return ResourceFor<api::DeviceTaintRule>();
}
inline const api::ResourceInfo& ResourceSlicePatchesResource() {
  return ResourceFor<api::ResourceSlicePatch>();
}
inline const api::ResourceInfo& ResourcePoolStatusRequestsResource() {
  return ResourceFor<api::ResourcePoolStatusRequest>();
}
inline const api::ResourceInfo& EventsResource() {
  return ResourceFor<api::Event>();
}
// The resource an object belongs to.
const api::ResourceInfo& ResourceOf(const api::Object& object);

}  // namespace dralloc::client

#endif  // DRALLOC_CLIENT_API_CLIENT_H_
