#include "registry/write_rules.h"

#include <ctime>
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
  const api::ObjectMeta& meta = api::MetaOf(object);
  return meta.deletion_timestamp &&
         meta.deletion_grace_period_seconds.value_or(0) == 0 &&
         !HasFinalizers(object);
}

namespace {

// An object already being deleted: its grace period may only get shorter.
DeletionStep PrepareRepeatedDeletion(api::Object& object,
                                     std::optional<int64_t> requested) {
  api::ObjectMeta& meta = api::MetaOf(object);
  const int64_t current = meta.deletion_grace_period_seconds.value_or(0);
  if (current <= 0) {
    // Marked for finalizers only (or a removal that failed half-way, which
    // upstream also completes now).
    return HasFinalizers(object) ? DeletionStep::kUnchanged
                                 : DeletionStep::kRemove;
  }
  if (!requested || *requested >= current) return DeletionStep::kUnchanged;
  // The deadline keeps its start: the first DELETE's time plus the new
  // period.
  const auto deadline = ParseRfc3339(*meta.deletion_timestamp);
  if (deadline) {
    meta.deletion_timestamp =
        FormatRfc3339(*deadline - std::chrono::seconds(current - *requested));
  }
  meta.deletion_grace_period_seconds = *requested;
  if (*requested == 0 && !HasFinalizers(object)) return DeletionStep::kRemove;
  return DeletionStep::kStore;
}

}  // namespace

DeletionStep PrepareDeletion(api::Object& object,
                             std::optional<int64_t> grace_period_seconds,
                             std::chrono::system_clock::time_point now) {
  if (grace_period_seconds && *grace_period_seconds < 0) {
    grace_period_seconds = 1;
  }
  api::ObjectMeta& meta = api::MetaOf(object);
  if (meta.deletion_timestamp) {
    return PrepareRepeatedDeletion(object, grace_period_seconds);
  }
  const ResourceStrategy& strategy = StrategyFor(object);
  const std::optional<int64_t> period =
      strategy.GracefulDeletionPeriod(object, grace_period_seconds);
  if (period && *period > 0) {
    meta.deletion_timestamp =
        FormatRfc3339(now + std::chrono::seconds(*period));
    meta.deletion_grace_period_seconds = *period;
    if (meta.generation > 0) ++meta.generation;
    strategy.PrepareForDelete(object);
    return DeletionStep::kStore;
  }
  if (!HasFinalizers(object)) return DeletionStep::kRemove;
  MarkForDeletion(object, FormatRfc3339(now));
  return DeletionStep::kStore;
}

std::string FormatRfc3339(std::chrono::system_clock::time_point time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  const size_t size =
      std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(text, size);
}

std::optional<std::chrono::system_clock::time_point> ParseRfc3339(
    const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr) return std::nullopt;
  // Fractional seconds are dropped; only UTC ("Z") is written by servers.
  if (*end == '.') {
    ++end;
    while (*end >= '0' && *end <= '9') ++end;
  }
  if (*end != 'Z' || end[1] != '\0') return std::nullopt;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

}  // namespace dralloc::registry
