#include "controller/resource_quota_controller.h"

#include <optional>
#include <utility>

#include "api/types/device_class.h"
#include "common/log.h"
#include "quota/resource_claim_evaluator.h"
#include "quota/usage_math.h"

namespace dralloc::controller {
namespace {

using client::As;
using client::ObjectPtr;

// A quota whose status does not reflect its spec yet: new, or hard edited.
bool NeedsSync(const api::ResourceQuota& quota) {
  if (!quota::Equals(quota.spec.hard, quota.status.hard)) return true;
  for (const auto& entry : quota.spec.hard) {
    if (!quota.status.used.contains(entry.first)) return true;
  }
  return false;
}

bool HasScopes(const api::ResourceQuota& quota) {
  return !quota.spec.scopes.empty() ||
         (quota.spec.scope_selector.has_value() &&
          !quota.spec.scope_selector->match_expressions.empty());
}

}  // namespace

ResourceQuotaController::ResourceQuotaController(
    client::ApiClient& client, client::Informer& quotas,
    client::Informer& claims, ResourceQuotaControllerOptions options,
    client::Informer* classes)
    : client_(client),
      quotas_(quotas),
      claims_(claims),
      classes_(classes),
      options_(options) {
  quotas_.AddHandler([this](const ObjectPtr& old, const ObjectPtr& now) {
    OnQuota(old, now);
  });
  if (classes_ != nullptr) {
    // A class naming another extended resource changes every namespace's
    // charges (rare).
    classes_->AddHandler(
        [this](const ObjectPtr&, const ObjectPtr&) { ResyncAll(); });
  }
  claims_.AddHandler([this](const ObjectPtr& old, const ObjectPtr& now) {
    OnClaim(old, now);
  });
}

ResourceQuotaController::~ResourceQuotaController() { Stop(); }

void ResourceQuotaController::OnQuota(const ObjectPtr& old,
                                      const ObjectPtr& now) {
  const auto* quota = As<api::ResourceQuota>(now);
  if (quota == nullptr) return;  // deleted: nothing to keep current
  if (old == nullptr || NeedsSync(*quota)) {
    queue_.Add(client::ObjectKey(*now));
  }
}

void ResourceQuotaController::OnClaim(const ObjectPtr& old,
                                      const ObjectPtr& now) {
  // A deletion releases usage; creates are charged by the admission.
  if (now != nullptr || old == nullptr) return;
  QueueNamespace(api::MetaOf(*old).namespace_);
}

void ResourceQuotaController::QueueNamespace(const std::string& namespace_) {
  for (const ObjectPtr& object : quotas_.List()) {
    if (api::MetaOf(*object).namespace_ == namespace_) {
      queue_.Add(client::ObjectKey(*object));
    }
  }
}

void ResourceQuotaController::ResyncAll() {
  for (const ObjectPtr& object : quotas_.List()) {
    queue_.Add(client::ObjectKey(*object));
  }
}

api::ResourceQuotaStatus ResourceQuotaController::DesiredStatus(
    const api::ResourceQuota& quota,
    const std::vector<const api::ResourceClaim*>& claims,
    const quota::ResourceClaimEvaluator::ExtendedNameOf& extended_name_of) {
  api::ResourceQuotaStatus status;
  status.hard = quota.spec.hard;
  const std::vector<std::string> hard_names = quota::ResourceNames(status.hard);
  const std::vector<std::string> evaluated =
      quota::ResourceClaimEvaluator::MatchingResources(hard_names);
  api::ResourceList used;
  for (const std::string& name : evaluated) {
    used.emplace(name, Quantity::FromInt64(0));
  }
  if (!HasScopes(quota)) {
    for (const api::ResourceClaim* claim : claims) {
      used = quota::Add(used, quota::Mask(quota::ResourceClaimEvaluator::Usage(
                                              *claim, extended_name_of),
                                          evaluated));
    }
  }
  // Resources this server does not evaluate keep what was recorded.
  status.used = quota::Mask(quota.status.used, hard_names);
  for (auto& [name, value] : used) status.used[name] = value;
  return status;
}

Status ResourceQuotaController::Sync(const std::string& key) {
  ObjectPtr object = quotas_.Get(key);
  const auto* cached = As<api::ResourceQuota>(object);
  if (cached == nullptr) return OkStatus();  // deleted
  std::vector<const api::ResourceClaim*> claims;
  std::vector<ObjectPtr> held = claims_.List();
  for (const ObjectPtr& claim_object : held) {
    const auto* claim = As<api::ResourceClaim>(claim_object);
    if (claim != nullptr &&
        claim->metadata.namespace_ == cached->metadata.namespace_) {
      claims.push_back(claim);
    }
  }
  api::ResourceQuota quota = *cached;
  quota::ResourceClaimEvaluator::ExtendedNameOf extended_name_of;
  if (classes_ != nullptr) {
    extended_name_of =
        [this](std::string_view device_class) -> std::optional<std::string> {
      const auto* found = As<api::DeviceClass>(classes_->Get("", device_class));
      if (found == nullptr || !found->spec.extended_resource_name ||
          found->spec.extended_resource_name->empty()) {
        return std::nullopt;
      }
      return *found->spec.extended_resource_name;
    };
  }
  api::ResourceQuotaStatus status =
      DesiredStatus(quota, claims, extended_name_of);
  if (quota::Equals(status.hard, quota.status.hard) &&
      quota::Equals(status.used, quota.status.used)) {
    return OkStatus();
  }
  quota.status = std::move(status);
  // At the cached resourceVersion: a charge the admission made since then
  // conflicts, and the sync runs again on the newer quota.
  StatusOr<ObjectPtr> written = client_.UpdateStatus(std::move(quota));
  if (!written.ok()) return written.status();
  MutexLock lock(mu_);
  ++metrics_.status_updates;
  return OkStatus();
}

bool ResourceQuotaController::ProcessOne(std::chrono::milliseconds wait) {
  std::optional<std::string> key = queue_.Pop(wait);
  if (!key) return false;
  Status status = Sync(*key);
  if (status.code() == StatusCode::kNotFound) status = OkStatus();
  bool retry = false;
  {
    MutexLock lock(mu_);
    ++metrics_.syncs;
    if (status.ok()) {
      failures_.erase(*key);
    } else {
      ++metrics_.sync_errors;
      retry = ++failures_[*key] < options_.max_retries;
      if (!retry) failures_.erase(*key);
    }
  }
  if (!status.ok()) {
    log::Debug("resourcequota-controller", "{}: {}", *key, status.message());
  }
  queue_.Done(*key);
  if (retry) queue_.Add(*key);
  return true;
}

void ResourceQuotaController::RunWorker(bool resyncs) {
  auto last_resync = std::chrono::steady_clock::now();
  while (!stopping_) {
    ProcessOne(std::chrono::milliseconds(200));
    if (!resyncs || options_.resync_period.count() <= 0) continue;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_resync >= options_.resync_period) {
      last_resync = now;
      ResyncAll();
    }
  }
}

void ResourceQuotaController::Start() {
  const int workers = options_.workers < 1 ? 1 : options_.workers;
  for (int i = 0; i < workers; ++i) {
    workers_.emplace_back([this, i] { RunWorker(/*resyncs=*/i == 0); });
  }
}

void ResourceQuotaController::Stop() {
  stopping_ = true;
  queue_.ShutDown();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

ResourceQuotaControllerMetrics ResourceQuotaController::metrics() const {
  MutexLock lock(mu_);
  return metrics_;
}

}  // namespace dralloc::controller
