#include "controller/resource_quota_controller.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "api/types/core.h"
#include "api/types/device_class.h"
#include "common/log.h"
#include "quota/extended_resource_claim_owner.h"
#include "quota/pod_evaluator.h"
#include "quota/resource_claim_evaluator.h"
#include "quota/resource_names.h"
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

// Per claim, the usage of the pod whose verified special claim it is
// (KEP-5004); claims of no verified pod are absent.
std::map<const api::ResourceClaim*, api::ResourceList> OwnerPodUsages(
    const std::vector<const api::ResourceClaim*>& claims,
    const std::vector<const api::Pod*>& pods, SystemTime now) {
  std::map<std::string_view, const api::Pod*> pods_by_name;
  for (const api::Pod* pod : pods) pods_by_name[pod->metadata.name] = pod;
  std::map<std::string_view, std::vector<const api::ResourceClaim*>>
      special_by_owner;
  for (const api::ResourceClaim* claim : claims) {
    if (const auto* owner = quota::ExtendedResourceClaimOwner(*claim)) {
      special_by_owner[owner->uid].push_back(claim);
    }
  }
  std::map<const api::ResourceClaim*, api::ResourceList> usages;
  for (const auto& [uid, owned] : special_by_owner) {
    for (const api::ResourceClaim* claim : owned) {
      auto pod =
          pods_by_name.find(quota::ExtendedResourceClaimOwner(*claim)->name);
      if (pod == pods_by_name.end() || !quota::IsVerifiedExtendedResourceClaim(
                                           *claim, *pod->second, owned)) {
        continue;
      }
      usages.emplace(claim, quota::PodEvaluator::Usage(*pod->second, now));
    }
  }
  return usages;
}

}  // namespace

ResourceQuotaController::ResourceQuotaController(
    client::ApiClient& client, client::Informer& quotas,
    client::Informer& claims, ResourceQuotaControllerOptions options,
    client::Informer* classes, client::Informer* pods,
    client::Informer* classic_claims)
    : client_(client),
      quotas_(quotas),
      claims_(claims),
      classes_(classes),
      pods_(pods),
      classic_claims_(classic_claims),
      options_(options),
      queue_({.max_retries = options_.max_retries}) {
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
  if (classic_claims_ != nullptr) {
    classic_claims_->AddHandler(
        [this](const ObjectPtr& old, const ObjectPtr& now) {
          OnClaim(old, now);
        });
  }
  if (pods_ != nullptr) {
    pods_->AddHandler([this](const ObjectPtr& old, const ObjectPtr& now) {
      OnPod(old, now);
    });
  }
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

void ResourceQuotaController::OnPod(const ObjectPtr& old,
                                    const ObjectPtr& now) {
  if (old == nullptr) return;  // creates are charged by the admission
  const auto* before = As<api::Pod>(old);
  const auto* after = As<api::Pod>(now);
  if (before == nullptr) return;
  // Deleted, or no longer charged for its compute resources (terminal).
  const SystemTime time = std::chrono::system_clock::now();
  if (after == nullptr ||
      (quota::PodEvaluator::ChargesCompute(*before, time) &&
       !quota::PodEvaluator::ChargesCompute(*after, time))) {
    QueueNamespace(before->metadata.namespace_);
  }
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
    const api::ResourceQuota& quota, const NamespaceObjects& objects) {
  api::ResourceQuotaStatus status;
  status.hard = quota.spec.hard;
  const std::vector<std::string> hard_names = quota::ResourceNames(status.hard);
  const std::vector<std::string> by_claims =
      quota::ResourceClaimEvaluator::MatchingResources(hard_names,
                                                       objects.is_mapped);
  std::vector<std::string> by_pods;
  if (objects.pods != nullptr) {
    by_pods = quota::PodEvaluator::MatchingResources(hard_names);
  }
  api::ResourceList used;
  for (const std::string& name : by_claims) {
    used.emplace(name, Quantity::FromInt64(0));
  }
  for (const std::string& name : by_pods) {
    used.emplace(name, Quantity::FromInt64(0));
  }
  const std::vector<const api::Pod*> no_pods;
  const std::vector<const api::Pod*>& pods =
      objects.pods != nullptr ? *objects.pods : no_pods;
  if (!HasScopes(quota) && !by_claims.empty()) {
    const auto owner_usages = OwnerPodUsages(objects.claims, pods, objects.now);
    for (const api::ResourceClaim* claim : objects.claims) {
      auto owner = owner_usages.find(claim);
      const api::ResourceList usage = quota::ResourceClaimEvaluator::Usage(
          *claim, objects.extended_name_of,
          owner == owner_usages.end() ? nullptr : &owner->second);
      used = quota::Add(used, quota::Mask(usage, by_claims));
    }
    if (objects.classic_claims > 0 &&
        std::ranges::find(by_claims, quota::kClaimObjectCount) !=
            by_claims.end()) {
      used = quota::Add(used, {{std::string(quota::kClaimObjectCount),
                                Quantity::FromInt64(objects.classic_claims)}});
    }
  }
  if (!by_pods.empty()) {
    for (const api::Pod* pod : pods) {
      if (!quota::PodEvaluator::MatchesScopes(quota, *pod)) continue;
      used = quota::Add(
          used,
          quota::Mask(quota::PodEvaluator::Usage(*pod, objects.now), by_pods));
    }
  }
  // Resources this server does not evaluate keep what was recorded.
  status.used = quota::Mask(quota.status.used, hard_names);
  for (auto& [name, value] : used) status.used[name] = value;
  return status;
}

quota::ResourceClaimEvaluator::ExtendedNameOf
ResourceQuotaController::ExtendedNameOf() const {
  if (classes_ == nullptr) return {};
  return [this](std::string_view device_class) -> std::optional<std::string> {
    const auto* found = As<api::DeviceClass>(classes_->Get("", device_class));
    if (found == nullptr || !found->spec.extended_resource_name ||
        found->spec.extended_resource_name->empty()) {
      return std::nullopt;
    }
    return *found->spec.extended_resource_name;
  };
}

quota::ResourceClaimEvaluator::IsMapped ResourceQuotaController::IsMapped()
    const {
  if (classes_ == nullptr) return {};
  return [this](std::string_view name) {
    if (name.starts_with(quota::kImplicitExtendedResourcePrefix)) {
      return classes_->Get(
                 "",
                 name.substr(quota::kImplicitExtendedResourcePrefix.size())) !=
             nullptr;
    }
    for (const ObjectPtr& object : classes_->List()) {
      const auto* device_class = As<api::DeviceClass>(object);
      if (device_class != nullptr &&
          device_class->spec.extended_resource_name == name) {
        return true;
      }
    }
    return false;
  };
}

Status ResourceQuotaController::Sync(const std::string& key) {
  ObjectPtr object = quotas_.Get(key);
  const auto* cached = As<api::ResourceQuota>(object);
  if (cached == nullptr) return OkStatus();  // deleted
  const std::string& namespace_ = cached->metadata.namespace_;
  NamespaceObjects objects;
  std::vector<ObjectPtr> held = claims_.List();
  for (const ObjectPtr& claim_object : held) {
    const auto* claim = As<api::ResourceClaim>(claim_object);
    if (claim != nullptr && claim->metadata.namespace_ == namespace_) {
      objects.claims.push_back(claim);
    }
  }
  if (classic_claims_ != nullptr) {
    for (const ObjectPtr& claim_object : classic_claims_->List()) {
      if (api::MetaOf(*claim_object).namespace_ == namespace_) {
        ++objects.classic_claims;
      }
    }
  }
  std::vector<ObjectPtr> held_pods;
  std::vector<const api::Pod*> pods;
  if (pods_ != nullptr) {
    held_pods = pods_->List();
    for (const ObjectPtr& pod_object : held_pods) {
      const auto* pod = As<api::Pod>(pod_object);
      if (pod != nullptr && pod->metadata.namespace_ == namespace_) {
        pods.push_back(pod);
      }
    }
    objects.pods = &pods;
  }
  objects.extended_name_of = ExtendedNameOf();
  objects.is_mapped = IsMapped();
  api::ResourceQuota quota = *cached;
  api::ResourceQuotaStatus status = DesiredStatus(quota, objects);
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
  queue_.Finish(*key, status.ok());
  {
    MutexLock lock(mu_);
    ++metrics_.syncs;
    if (!status.ok()) ++metrics_.sync_errors;
  }
  if (!status.ok()) {
    log::Debug("resourcequota-controller", "{}: {}", *key, status.message());
  }
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
