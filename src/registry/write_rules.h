// The REST rules of a write, in the order upstream's generic store runs
// them, for any kind: server-managed metadata (object_meta_rules.h), the
// kind's strategy (strategy.h), defaulting, validation and admission, the
// generation bump, and the deletion rules. ResourceStorage and
// MemoryApiClient call these and own none of the rules; they keep only
// storage: keys, preconditions, revisions, events.
#ifndef DRALLOC_REGISTRY_WRITE_RULES_H_
#define DRALLOC_REGISTRY_WRITE_RULES_H_

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
// True if `object` (about to be stored) is deleted and no finalizer keeps
// it: it is removed instead.
bool ReadyToRemove(const api::Object& object);

}  // namespace dralloc::registry

#endif  // DRALLOC_REGISTRY_WRITE_RULES_H_
