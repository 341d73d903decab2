// ResourceStrategy: the per-kind REST rules of a write, shared by the API
// server (apiserver::ResourceStorage) and the in-memory API
// (client::MemoryApiClient), as upstream's pkg/registry/<group>/<kind>/
// strategy.go.
//
// A strategy holds only what differs between kinds; the sequence every write
// runs (server-managed metadata, defaulting, validation, admission, the
// generation bump, the deletion rules) is in registry/write_rules.h, which
// calls the strategy of the object's kind once per hook (one virtual call
// per hook and write, never per field). Strategies are stateless singletons.
#ifndef DRALLOC_REGISTRY_STRATEGY_H_
#define DRALLOC_REGISTRY_STRATEGY_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "api/field_error.h"
#include "api/object.h"
#include "api/resource_registry.h"

namespace dralloc::registry {

// What an update writes.
enum class WritePart {
  kObject,           // PUT of the main resource: the status stays as stored
  kStatus,           // PUT of /status: only the status changes
  kObjectAndStatus,  // pods/binding and in-process UpdateWithStatus
  kFinalize,         // PUT of namespaces/<name>/finalize
};

// Read access to namespaces for admission rules. Implementations are cheap
// to call only when asked: rules ask only when an object needs it.
class NamespaceLookup {
 public:
  // The labels of namespace `name`; nullopt when it does not exist.
  virtual std::optional<api::StringMap> Labels(std::string_view name) const = 0;

 protected:
  ~NamespaceLookup() = default;
};

class ResourceStrategy {
 public:
  virtual ~ResourceStrategy() = default;

  // Kind-specific state of a new object (a claim starts without status; a
  // namespace starts Active with the "kubernetes" finalizer).
  virtual void PrepareForCreate(api::Object& object) const;
  // Gives `next` what a write of `part` may not change in `old`: by
  // default a status write keeps everything but status and managedFields,
  // a main-resource write of a kind that serves /status keeps the status.
  virtual void PrepareForUpdate(const api::ResourceInfo& info,
                                api::Object& next, const api::Object& old,
                                WritePart part) const;
  // Field errors for immutable fields an update changes (none by default).
  virtual api::ErrorList ValidateUpdate(const api::Object& next,
                                        const api::Object& old) const;
  // Admission of a create beyond validation (none by default).
  virtual api::ErrorList AdmitCreate(const api::Object& object,
                                     const NamespaceLookup& namespaces) const;
  // True while finalizers other than metadata.finalizers (a namespace's
  // spec.finalizers) keep a deleted object stored.
  virtual bool HasSpecFinalizers(const api::Object& object) const;
  // Kind-specific state of an object marked for deletion (a namespace
  // becomes Terminating).
  virtual void PrepareForDelete(api::Object& object) const;
  // The grace period of a DELETE of `object` asking for `requested` seconds
  // (nullopt: none asked), for kinds that delete gracefully (upstream's
  // RESTGracefulDeleteStrategy.CheckGracefulDelete); nullopt (the default)
  // for kinds removed at once. 0 removes the object at once too.
  virtual std::optional<int64_t> GracefulDeletionPeriod(
      const api::Object& object, std::optional<int64_t> requested) const;
};

// The strategy of the kind `object` holds.
const ResourceStrategy& StrategyFor(const api::Object& object);

}  // namespace dralloc::registry

#endif  // DRALLOC_REGISTRY_STRATEGY_H_
