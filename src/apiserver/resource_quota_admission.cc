#include "apiserver/resource_quota_admission.h"

#include <fmt/format.h>

#include <utility>
#include <variant>

#include "api/object.h"
#include "quota/claim_quota_check.h"
#include "quota/resource_claim_evaluator.h"

namespace dralloc::apiserver {
namespace {

const api::ResourceInfo& QuotaInfo() {
  static const api::ResourceInfo& info =
      *api::FindResourceByKind("ResourceQuota");
  return info;
}

const api::ResourceInfo& ClaimInfo() {
  static const api::ResourceInfo& info =
      *api::FindResourceByKind("ResourceClaim");
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
  if (claim == nullptr) return std::nullopt;
  const std::string& namespace_ = claim->metadata.namespace_;
  // Namespaces without quotas (the common case) take no lock.
  if (storage_.store().Count(
          ResourceStorage::Prefix(QuotaInfo(), namespace_)) == 0) {
    return std::nullopt;
  }
  const api::ResourceList usage = quota::ResourceClaimEvaluator::Usage(*claim);
  std::set<std::string> charged;
  MutexLock lock(charge_mu_);
  std::optional<ApiError> outcome;
  for (int attempt = 0; attempt < max_attempts_; ++attempt) {
    outcome = CheckAndCharge(namespace_, claim->metadata.name, usage,
                             request.dry_run, charged);
    if (!outcome || !IsConflict(*outcome)) return outcome;
  }
  return outcome;
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

std::optional<ApiError> ResourceQuotaAdmission::CheckAndCharge(
    const std::string& namespace_, const std::string& claim_name,
    const api::ResourceList& usage, bool dry_run,
    std::set<std::string>& charged) {
  ApiOr<std::vector<api::ResourceQuota>> quotas = QuotasIn(namespace_);
  if (!quotas.ok()) return quotas.error();
  // Every quota is checked before any is charged: a refusal charges none.
  std::vector<api::ResourceQuota> to_charge;
  for (api::ResourceQuota& quota : *quotas) {
    if (charged.contains(quota.metadata.name)) continue;
    quota::ClaimQuotaCheck check = quota::CheckClaimAgainstQuota(quota, usage);
    using Outcome = quota::ClaimQuotaCheck::Outcome;
    if (check.outcome == Outcome::kRefused) {
      return QuotaForbidden(ClaimInfo(), claim_name, check.refusal);
    }
    if (check.outcome == Outcome::kCharged) {
      quota.status.used = std::move(check.new_used);
      to_charge.push_back(std::move(quota));
    }
  }
  if (dry_run) return std::nullopt;
  for (const api::ResourceQuota& quota : to_charge) {
    // A quota deleted since it was read limits nothing any more.
    if (auto failed = WriteUsage(quota); failed && failed->code != 404) {
      return failed;
    }
    charged.insert(quota.metadata.name);
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
