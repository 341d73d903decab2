#include "registry/strategy.h"

#include <array>
#include <utility>
#include <variant>

#include "registry/kind_strategies.h"

namespace dralloc::registry {
namespace {

// `next` keeps `old` except for its status and managedFields. Writers
// usually send the current version with a new status, so the rest is
// compared first and copied only when it differs.
template <typename T>
void KeepAllButStatus(T& next, const T& old) {
  auto status = std::move(next.status);
  auto managed_fields = std::move(next.metadata.managed_fields);
  next.status = old.status;
  next.metadata.managed_fields = old.metadata.managed_fields;
  if (!(next == old)) next = old;
  next.status = std::move(status);
  next.metadata.managed_fields = std::move(managed_fields);
}

}  // namespace

void ResourceStrategy::PrepareForCreate(api::Object&) const {}

void ResourceStrategy::PrepareForUpdate(const api::ResourceInfo& info,
                                        api::Object& next,
                                        const api::Object& old,
                                        WritePart part) const {
  std::visit(
      [&](auto& target) {
        using T = std::decay_t<decltype(target)>;
        if constexpr (api::kHasStatus<T>) {
          const T& before = std::get<T>(old);
          if (part == WritePart::kStatus) {
            KeepAllButStatus(target, before);
          } else if (info.has_status && part != WritePart::kObjectAndStatus &&
                     !(target.status == before.status)) {
            target.status = before.status;
          }
        } else if (part == WritePart::kStatus) {
          // No status: a status write changes nothing but managedFields.
          auto managed_fields = std::move(target.metadata.managed_fields);
          target = std::get<T>(old);
          target.metadata.managed_fields = std::move(managed_fields);
        }
      },
      next);
}

api::ErrorList ResourceStrategy::ValidateUpdate(const api::Object&,
                                                const api::Object&) const {
  return {};
}

api::ErrorList ResourceStrategy::AdmitCreate(const api::Object&,
                                             const NamespaceLookup&) const {
  return {};
}

bool ResourceStrategy::HasSpecFinalizers(const api::Object&) const {
  return false;
}

void ResourceStrategy::PrepareForDelete(api::Object&) const {}

std::optional<int64_t> ResourceStrategy::GracefulDeletionPeriod(
    const api::Object&, std::optional<int64_t>) const {
  return std::nullopt;
}

const ResourceStrategy& StrategyFor(const api::Object& object) {
  static const ResourceStrategy kGeneric;
  // By variant index; kinds without rules of their own use the generic one.
  static const auto kTable = [] {
    std::array<const ResourceStrategy*, std::variant_size_v<api::Object>> table;
    table.fill(&kGeneric);
    const auto set = [&](auto kind, const ResourceStrategy& strategy) {
      table[api::Object(std::in_place_type<decltype(kind)>).index()] =
          &strategy;
    };
    set(api::Namespace{}, NamespaceStrategy());
    set(api::Pod{}, PodStrategy());
    set(api::ResourceClaim{}, ResourceClaimStrategy());
    set(api::ResourceClaimTemplate{}, ResourceClaimTemplateStrategy());
    set(api::ResourceSlice{}, ResourceSliceStrategy());
    set(api::ResourceQuota{}, ResourceQuotaStrategy());
    set(api::DeviceTaintRule{}, DeviceTaintRuleStrategy());
    set(api::Secret{}, SecretStrategy());
    set(api::ConfigMap{}, ConfigMapStrategy());
    set(api::ResourcePoolStatusRequest{}, ResourcePoolStatusRequestStrategy());
    set(api::v1alpha2::ResourceClaim{}, ClassicResourceClaimStrategy());
    set(api::v1alpha2::ResourceClaimTemplate{},
        ClassicResourceClaimTemplateStrategy());
    set(api::v1alpha2::PodSchedulingContext{}, PodSchedulingContextStrategy());
    set(api::v1alpha2::ResourceSlice{}, ClassicResourceSliceStrategy());
    return table;
  }();
  return *kTable[object.index()];
}

}  // namespace dralloc::registry
