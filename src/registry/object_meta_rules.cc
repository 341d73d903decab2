#include "registry/object_meta_rules.h"

#include <algorithm>

namespace dralloc::registry {

void PrepareMetaForCreate(api::ObjectMeta& meta, bool namespaced,
                          NameGenerator& names, std::string uid,
                          std::string now) {
  if (!namespaced) meta.namespace_.clear();
  if (meta.name.empty() && !meta.generate_name.empty()) {
    meta.name = names.GenerateName(meta.generate_name);
  }
  if (!uid.empty()) meta.uid = std::move(uid);
  meta.creation_timestamp = std::move(now);
  meta.deletion_timestamp.reset();
  meta.deletion_grace_period_seconds.reset();
  meta.resource_version.clear();
  meta.self_link.clear();
  meta.generation = 1;
}

void PrepareMetaForUpdate(api::ObjectMeta& next, const api::ObjectMeta& old) {
  next.namespace_ = old.namespace_;
  next.uid = old.uid;
  next.creation_timestamp = old.creation_timestamp;
  next.deletion_timestamp = old.deletion_timestamp;
  next.deletion_grace_period_seconds = old.deletion_grace_period_seconds;
  next.generation = old.generation;
  next.self_link.clear();
}

api::ErrorList ValidateFinalizersWhileDeleting(const api::ObjectMeta& next,
                                               const api::ObjectMeta& old) {
  if (!old.deletion_timestamp) return {};
  for (const std::string& finalizer : next.finalizers) {
    if (std::find(old.finalizers.begin(), old.finalizers.end(), finalizer) ==
        old.finalizers.end()) {
      return {api::Forbidden(api::FieldPath("metadata").Child("finalizers"),
                             "no new finalizers can be added if the object "
                             "is being deleted")};
    }
  }
  return {};
}

}  // namespace dralloc::registry
