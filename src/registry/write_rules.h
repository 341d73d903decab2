// The REST rules of a write, in the order upstream's generic store runs
// them, for any kind: server-managed metadata (object_meta_rules.h), the
// kind's strategy (strategy.h), defaulting, validation and admission, the
// generation bump, and the deletion rules. ResourceStorage and
// MemoryApiClient call these and own none of the rules; they keep only
// storage: keys, preconditions, revisions, events.
#ifndef DRALLOC_REGISTRY_WRITE_RULES_H_
#define DRALLOC_REGISTRY_WRITE_RULES_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "api/field_error.h"
#include "api/object.h"
#include "api/resource_registry.h"
#include "registry/name_generator.h"
#include "registry/strategy.h"

namespace dralloc::registry {

struct WriteContext {
  // Run api::Validate and the immutability rules. The in-memory API may skip
  // them (its callers validated their input); defaulting and admission
  // always run.
  bool validate = true;
  const NamespaceLookup* namespaces = nullptr;  // required
};

// Prepares a create of `object` (`info` its resource): metadata (see
// PrepareMetaForCreate, `uid`, `now`), the kind's create rules, defaults,
// validation and admission. Non-empty field errors: the create is invalid.
api::ErrorList PrepareCreate(const api::ResourceInfo& info, api::Object& object,
                             NameGenerator& names, std::string uid,
                             std::string now, const WriteContext& context);

// Prepares an update of `old` into `next` writing `part`: the kind's update
// rules, the metadata the writer may not change, the finalizer rule,
// defaults, validation and immutability, then the generation bump on a
// spec change, the stored resourceVersion, and managedFields kept when the
// writer sent none. Non-empty field errors: the update is invalid.
api::ErrorList PrepareUpdate(const api::ResourceInfo& info, api::Object& next,
                             const api::Object& old, WritePart part,
                             const WriteContext& context);

// True while finalizers keep `object` stored after its deletion.
bool HasFinalizers(const api::Object& object);
// Marks `object`, which HasFinalizers, for deletion at `now`.
void MarkForDeletion(api::Object& object, std::string now);
// True if `object` (about to be stored) is deleted, with no grace period
// left, and no finalizer keeps it: it is removed instead. (A pod in its
// grace period stays stored through its status updates until a DELETE
// with grace period 0, as upstream's ShouldDeleteDuringUpdate.)
bool ReadyToRemove(const api::Object& object);

// What a DELETE does with the stored object (see PrepareDeletion).
enum class DeletionStep {
  kRemove,     // remove it from storage now
  kStore,      // store it as PrepareDeletion changed it
  kUnchanged,  // already being deleted no later than asked: keep it as is
};

// The deletion rules of upstream's generic store (rest.BeforeDelete, then
// the finalizer rules) for a DELETE of `object` asking for
// `grace_period_seconds` (nullopt: none given) at `now`:
// - a kind that deletes gracefully (ResourceStrategy::
//   GracefulDeletionPeriod > 0: a bound, running pod) gets
//   deletionTimestamp = now + period and deletionGracePeriodSeconds =
//   period, and stays stored (kStore);
// - an object already in its grace period may only have it shortened: the
//   deletionTimestamp moves earlier by the difference; shortened to 0 it is
//   removed unless finalizers keep it; a period not shorter is kUnchanged;
// - otherwise finalizers keep the object, marked with grace period 0
//   (kStore, or kUnchanged when already marked), and without finalizers it
//   is removed (kRemove).
// A negative period counts as 1 second, as upstream.
DeletionStep PrepareDeletion(api::Object& object,
                             std::optional<int64_t> grace_period_seconds,
                             std::chrono::system_clock::time_point now);

// `time` as Kubernetes writes timestamps ("2026-11-22T14:05:09Z").
std::string FormatRfc3339(std::chrono::system_clock::time_point time);
// A timestamp as Kubernetes writes them; nullopt when it is not one.
std::optional<std::chrono::system_clock::time_point> ParseRfc3339(
    const std::string& text);

}  // namespace dralloc::registry

#endif  // DRALLOC_REGISTRY_WRITE_RULES_H_
