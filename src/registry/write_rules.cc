#include "registry/write_rules.h"

#include <utility>

#include "api/defaults.h"
#include "api/validation/validation.h"
#include "registry/object_meta_rules.h"

namespace dralloc::registry {
namespace {

void Append(api::ErrorList& to, api::ErrorList more) {
  if (to.empty()) {
    to = std::move(more);
  } else {
    to.insert(to.end(), more.begin(), more.end());
  }
}

// Spec change after defaulting: a client that omits defaulted fields
// (kubectl's client-side apply of an atomic list) has not changed it.
bool SpecChanged(const api::Object& next, const api::Object& old) {
  return std::visit(
      [&](const auto& target) {
        using T = std::decay_t<decltype(target)>;
        if constexpr (api::kHasSpec<T>) {
          return !(target.spec == std::get<T>(old).spec);
        } else {
          return false;
        }
      },
      next);
}

}  // namespace

api::ErrorList PrepareCreate(const api::ResourceInfo& info, api::Object& object,
                             NameGenerator& names, std::string uid,
                             std::string now, const WriteContext& context) {
  const ResourceStrategy& strategy = StrategyFor(object);
  strategy.PrepareForCreate(object);
  PrepareMetaForCreate(api::MetaOf(object), info.namespaced, names,
                       std::move(uid), std::move(now));
  api::ApplyDefaults(object);
  api::ErrorList errors;
  if (context.validate) errors = api::Validate(object);
  Append(errors, strategy.AdmitCreate(object, *context.namespaces));
  return errors;
}

api::ErrorList PrepareUpdate(const api::ResourceInfo& info, api::Object& next,
                             const api::Object& old, WritePart part,
                             const WriteContext& context) {
  const ResourceStrategy& strategy = StrategyFor(next);
  strategy.PrepareForUpdate(info, next, old, part);
  api::ObjectMeta& meta = api::MetaOf(next);
  const api::ObjectMeta& old_meta = api::MetaOf(old);
  PrepareMetaForUpdate(meta, old_meta);
  api::ErrorList errors = ValidateFinalizersWhileDeleting(meta, old_meta);
  if (!errors.empty()) return errors;
  api::ApplyDefaults(next);
  if (context.validate) {
    errors = api::Validate(next);
    Append(errors, strategy.ValidateUpdate(next, old));
    if (!errors.empty()) return errors;
  }
  if (SpecChanged(next, old)) ++meta.generation;
  meta.resource_version = old_meta.resource_version;
  if (meta.managed_fields.empty())
    meta.managed_fields = old_meta.managed_fields;
  return errors;
}

bool HasFinalizers(const api::Object& object) {
  return !api::MetaOf(object).finalizers.empty() ||
         StrategyFor(object).HasSpecFinalizers(object);
}

void MarkForDeletion(api::Object& object, std::string now) {
  api::ObjectMeta& meta = api::MetaOf(object);
  meta.deletion_timestamp = std::move(now);
  meta.deletion_grace_period_seconds = 0;
  StrategyFor(object).PrepareForDelete(object);
}

bool ReadyToRemove(const api::Object& object) {
  return api::MetaOf(object).deletion_timestamp && !HasFinalizers(object);
}

}  // namespace dralloc::registry
