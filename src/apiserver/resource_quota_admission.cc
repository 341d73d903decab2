#include "apiserver/resource_quota_admission.h"

#include <fmt/format.h>

#include <chrono>
#include <utility>
#include <variant>
#include <vector>

#include "api/object.h"
#include "quota/extended_resource_claim_owner.h"
#include "quota/pod_evaluator.h"
#include "quota/quota_check.h"
#include "quota/resource_claim_evaluator.h"
#include "quota/resource_names.h"

namespace dralloc::apiserver {
namespace {

const api::ResourceInfo& QuotaInfo() {
  static const api::ResourceInfo& info =
      *api::FindResourceByKind("ResourceQuota");
  return info;
}

const api::ResourceInfo& ClaimInfo() {
  static const api::ResourceInfo& info =
      api::ResourceInfoFor<api::ResourceClaim>();
  return info;
}

const api::ResourceInfo& ClassicClaimInfo() {
  static const api::ResourceInfo& info =
      api::ResourceInfoFor<api::v1alpha2::ResourceClaim>();
  return info;
}

const api::ResourceInfo& PodInfo() {
  static const api::ResourceInfo& info = *api::FindResourceByKind("Pod");
  return info;
}

bool IsConflict(const ApiError& error) { return error.code == 409; }

}  // namespace

ApiError QuotaForbidden(const api::ResourceInfo& info, std::string_view name,
                        std::string_view reason) {
  Json details = Json::object();
  if (!name.empty()) details["name"] = name;
  details["group"] = info.group;
  details["kind"] = info.plural;
  const std::string message =
      name.empty()
          ? fmt::format("{} is forbidden: {}", info.QualifiedResource(), reason)
          : fmt::format("{} \"{}\" is forbidden: {}", info.QualifiedResource(),
                        name, reason);
  return {403, "Forbidden", message, std::move(details)};
}

ResourceQuotaAdmission::ResourceQuotaAdmission(ResourceStorage& storage,
                                               int max_attempts)
    : storage_(storage), max_attempts_(max_attempts < 1 ? 1 : max_attempts) {}

std::optional<ApiError> ResourceQuotaAdmission::Admit(
    const AdmissionRequest& request) {
  if (request.operation != AdmissionOperation::kCreate ||
      request.object == nullptr || !request.scope.subresource.empty()) {
    return std::nullopt;
  }
  const auto* claim = std::get_if<api::ResourceClaim>(request.object);
  const auto* classic =
      std::get_if<api::v1alpha2::ResourceClaim>(request.object);
  const auto* pod = std::get_if<api::Pod>(request.object);
  if (claim == nullptr && classic == nullptr && pod == nullptr) {
    return std::nullopt;
  }
  const api::ObjectMeta& meta = claim != nullptr     ? claim->metadata
                                : classic != nullptr ? classic->metadata
                                                     : pod->metadata;
  // Namespaces without quotas (the common case) take no lock.
  if (storage_.store().Count(
          ResourceStorage::Prefix(QuotaInfo(), meta.namespace_)) == 0) {
    return std::nullopt;
  }
  PendingCharge mine;
  mine.name = meta.name;
  mine.dry_run = request.dry_run;
  if (claim != nullptr || classic != nullptr) {
    // A classic (v1alpha2) claim names no DeviceClass: it costs one claim.
    mine.info = claim != nullptr ? &ClaimInfo() : &ClassicClaimInfo();
    mine.usage = claim != nullptr
                     ? ClaimUsage(*claim)
                     : api::ResourceList{{std::string(quota::kClaimObjectCount),
                                          Quantity::FromInt64(1)}};
    mine.check = [this, &mine](const api::ResourceQuota& quota) {
      return quota::CheckClaimAgainstQuota(
          quota, mine.usage, [this](std::string_view name) {
            return IsMappedExtendedResource(name);
          });
    };
  } else {
    mine.info = &PodInfo();
    mine.usage =
        quota::PodEvaluator::Usage(*pod, std::chrono::system_clock::now());
    mine.check = [&mine, pod](const api::ResourceQuota& quota) {
      return quota::CheckPodAgainstQuota(quota, *pod, mine.usage);
    };
  }
  return Charge(meta.namespace_, mine);
}

std::optional<ApiError> ResourceQuotaAdmission::Charge(
    const std::string& namespace_, PendingCharge& mine) {
  mu_.Lock();
  queues_[namespace_].waiting.push_back(&mine);
  while (!mine.done) {
    // Looked up again after every wait: the entry of a namespace is erased
    // once nobody waits in it (never while this charge is pending).
    NamespaceQueue& queue = queues_[namespace_];
    if (queue.charging) {
      batch_charged_.Wait(mu_);
      continue;
    }
    // No batch in flight: this thread charges everything waiting.
    queue.charging = true;
    const std::vector<PendingCharge*> batch = std::exchange(queue.waiting, {});
    mu_.Unlock();
    ChargeBatch(namespace_, batch);
    mu_.Lock();
    for (PendingCharge* charge : batch) charge->done = true;
    queues_[namespace_].charging = false;
    batch_charged_.SignalAll();
  }
  auto entry = queues_.find(namespace_);
  if (entry != queues_.end() && !entry->second.charging &&
      entry->second.waiting.empty()) {
    queues_.erase(entry);
  }
  mu_.Unlock();
  return std::move(mine.outcome);
}

api::ResourceList ResourceQuotaAdmission::ClaimUsage(
    const api::ResourceClaim& claim) const {
  const auto extended_name_of = [this](std::string_view device_class) {
    return ExtendedResourceNameOf(device_class);
  };
  const api::OwnerReference* owner = quota::ExtendedResourceClaimOwner(claim);
  if (owner == nullptr) {
    return quota::ResourceClaimEvaluator::Usage(claim, extended_name_of);
  }
  const std::string& namespace_ = claim.metadata.namespace_;
  SharedObject stored = StoredObject(PodInfo(), namespace_, owner->name);
  const auto* pod = stored ? std::get_if<api::Pod>(stored.get()) : nullptr;
  if (pod == nullptr) {
    return quota::ResourceClaimEvaluator::Usage(claim, extended_name_of);
  }
  // The pod's other special claims, from the store.
  std::vector<SharedObject> held;
  std::vector<const api::ResourceClaim*> pod_claims;
  const store::ListResult listed = storage_.store().List(
      ResourceStorage::Prefix(ClaimInfo(), namespace_), "", 0);
  for (const store::KeyValue& kv : listed.items) {
    StatusOr<SharedObject> object = storage_.ObjectOf(kv, /*cache=*/true);
    if (!object.ok()) continue;
    const auto* other = std::get_if<api::ResourceClaim>(object->get());
    const api::OwnerReference* other_owner =
        other != nullptr ? quota::ExtendedResourceClaimOwner(*other) : nullptr;
    if (other_owner == nullptr || other_owner->uid != owner->uid) continue;
    held.push_back(*object);
    pod_claims.push_back(other);
  }
  if (!quota::IsVerifiedExtendedResourceClaim(claim, *pod, pod_claims)) {
    return quota::ResourceClaimEvaluator::Usage(claim, extended_name_of);
  }
  const api::ResourceList pod_usage =
      quota::PodEvaluator::Usage(*pod, std::chrono::system_clock::now());
  return quota::ResourceClaimEvaluator::Usage(claim, extended_name_of,
                                              &pod_usage);
}

SharedObject ResourceQuotaAdmission::StoredObject(const api::ResourceInfo& info,
                                                  std::string_view namespace_,
                                                  std::string_view name) const {
  std::optional<store::KeyValue> kv =
      storage_.store().Get(ResourceStorage::Key(info, namespace_, name));
  if (!kv.has_value()) return nullptr;
  StatusOr<SharedObject> object = storage_.ObjectOf(*kv, /*cache=*/true);
  if (!object.ok()) return nullptr;
  return *std::move(object);
}

std::optional<std::string> ResourceQuotaAdmission::ExtendedResourceNameOf(
    std::string_view device_class) const {
  static const api::ResourceInfo& info =
      *api::FindResourceByKind("DeviceClass");
  SharedObject stored = StoredObject(info, "", device_class);
  const auto* found =
      stored ? std::get_if<api::DeviceClass>(stored.get()) : nullptr;
  if (found == nullptr || !found->spec.extended_resource_name ||
      found->spec.extended_resource_name->empty()) {
    return std::nullopt;
  }
  return *found->spec.extended_resource_name;
}

bool ResourceQuotaAdmission::IsMappedExtendedResource(
    std::string_view name) const {
  static const api::ResourceInfo& info =
      *api::FindResourceByKind("DeviceClass");
  if (name.starts_with(quota::kImplicitExtendedResourcePrefix)) {
    return StoredObject(
               info, "",
               name.substr(quota::kImplicitExtendedResourcePrefix.size())) !=
           nullptr;
  }
  // Classes are few, and only a quota naming an extended resource asks.
  const store::ListResult listed =
      storage_.store().List(ResourceStorage::Prefix(info, ""), "", 0);
  for (const store::KeyValue& kv : listed.items) {
    StatusOr<SharedObject> object = storage_.ObjectOf(kv, /*cache=*/true);
    if (!object.ok()) continue;
    const auto* device_class = std::get_if<api::DeviceClass>(object->get());
    if (device_class != nullptr && device_class->spec.extended_resource_name &&
        *device_class->spec.extended_resource_name == name) {
      return true;
    }
  }
  return false;
}

ApiOr<std::vector<api::ResourceQuota>> ResourceQuotaAdmission::QuotasIn(
    const std::string& namespace_) const {
  const store::ListResult listed = storage_.store().List(
      ResourceStorage::Prefix(QuotaInfo(), namespace_), "", 0);
  std::vector<api::ResourceQuota> quotas;
  quotas.reserve(listed.items.size());
  for (const store::KeyValue& kv : listed.items) {
    StatusOr<SharedObject> object = storage_.ObjectOf(kv, /*cache=*/false);
    if (!object.ok()) return StorageError(QuotaInfo(), kv.key, object.status());
    const auto* quota = std::get_if<api::ResourceQuota>(object->get());
    if (quota != nullptr) quotas.push_back(*quota);
  }
  return quotas;
}

void ResourceQuotaAdmission::ChargeBatch(
    const std::string& namespace_, const std::vector<PendingCharge*>& batch) {
  std::set<std::string> charged;
  std::optional<ApiError> failure;
  for (int attempt = 0; attempt < max_attempts_; ++attempt) {
    failure = ChargeOnce(namespace_, batch, charged);
    if (!failure || !IsConflict(*failure)) break;
  }
  if (!failure) return;
  for (PendingCharge* charge : batch) {
    if (!charge->outcome) charge->outcome = failure;
  }
}

std::optional<ApiError> ResourceQuotaAdmission::ChargeOnce(
    const std::string& namespace_, const std::vector<PendingCharge*>& batch,
    std::set<std::string>& charged) {
  ApiOr<std::vector<api::ResourceQuota>> listed = QuotasIn(namespace_);
  if (!listed.ok()) return listed.error();
  std::vector<api::ResourceQuota>& quotas = *listed;
  std::erase_if(quotas, [&](const api::ResourceQuota& quota) {
    return charged.contains(quota.metadata.name);
  });
  std::vector<bool> changed(quotas.size(), false);
  using Outcome = quota::QuotaCheck::Outcome;
  for (PendingCharge* charge : batch) {
    if (charge->outcome) continue;  // refused in an earlier attempt
    // Every quota is checked before any is charged: a refusal charges none.
    std::vector<quota::QuotaCheck> checks;
    checks.reserve(quotas.size());
    for (const api::ResourceQuota& quota : quotas) {
      checks.push_back(charge->check(quota));
      if (checks.back().outcome == Outcome::kRefused) {
        charge->outcome =
            QuotaForbidden(*charge->info, charge->name, checks.back().refusal);
        break;
      }
    }
    if (charge->outcome || charge->dry_run) continue;
    for (size_t i = 0; i < quotas.size(); ++i) {
      if (checks[i].outcome != Outcome::kCharged) continue;
      quotas[i].status.used = std::move(checks[i].new_used);
      changed[i] = true;
    }
  }
  for (size_t i = 0; i < quotas.size(); ++i) {
    if (!changed[i]) continue;
    // A quota deleted since it was read limits nothing any more.
    if (auto failed = WriteUsage(quotas[i]); failed && failed->code != 404) {
      return failed;
    }
    charged.insert(quotas[i].metadata.name);
  }
  return std::nullopt;
}

std::optional<ApiError> ResourceQuotaAdmission::WriteUsage(
    const api::ResourceQuota& quota) {
  RequestScope scope;
  scope.info = &QuotaInfo();
  scope.version = "v1";
  scope.namespace_ = quota.metadata.namespace_;
  scope.name = quota.metadata.name;
  scope.subresource = "status";
  WriteOptions options;
  options.want_object = true;
  // metadata.resourceVersion is the one read: a newer write conflicts.
  ApiOr<WriteResult> written = storage_.UpdateObject(scope, quota, options);
  if (!written.ok()) return written.error();
  return std::nullopt;
}

}  // namespace dralloc::apiserver
