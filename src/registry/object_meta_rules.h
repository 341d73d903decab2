// The server-managed metadata every kind shares (upstream's
// rest.BeforeCreate/BeforeUpdate and the finalizer rules of the generic
// store): uid, creationTimestamp, generation, the deletion fields and
// selfLink belong to the server, not to the writer.
#ifndef DRALLOC_REGISTRY_OBJECT_META_RULES_H_
#define DRALLOC_REGISTRY_OBJECT_META_RULES_H_

#include <string>

#include "api/field_error.h"
#include "api/types/object_meta.h"
#include "registry/name_generator.h"

namespace dralloc::registry {

// A new object's metadata: no namespace when cluster-scoped, the name from
// generateName when it has none, `uid` (kept as sent when empty: the caller
// assigns it), created `now`, generation 1, and no deletion, resourceVersion
// or selfLink.
void PrepareMetaForCreate(api::ObjectMeta& meta, bool namespaced,
                          NameGenerator& names, std::string uid,
                          std::string now);
// What an update keeps of the stored metadata: namespace, uid, creation,
// deletion fields and generation; selfLink is never stored.
void PrepareMetaForUpdate(api::ObjectMeta& next, const api::ObjectMeta& old);
// No finalizer may be added to an object being deleted.
api::ErrorList ValidateFinalizersWhileDeleting(const api::ObjectMeta& next,
                                               const api::ObjectMeta& old);

}  // namespace dralloc::registry

#endif  // DRALLOC_REGISTRY_OBJECT_META_RULES_H_
