#include "controller/claim_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <tuple>

#include "api/claim_helpers.h"
#include "common/log.h"
#include "controller/classic/classic_claim_release.h"

namespace dralloc::controller {
namespace {

using client::As;
using client::ObjectPtr;

constexpr std::string_view kPodPrefix = "p:";
constexpr std::string_view kClaimPrefix = "c:";
constexpr int kWriteAttempts = 5;

const api::OwnerReference* ControllerOf(const api::ObjectMeta& meta) {
  for (const api::OwnerReference& owner : meta.owner_references) {
    if (owner.controller.value_or(false)) return &owner;
  }
  return nullptr;
}

const api::OwnerReference* OwningPod(const api::ObjectMeta& claim) {
  const api::OwnerReference* owner = ControllerOf(claim);
  if (owner == nullptr || owner->kind != "Pod" || owner->api_version != "v1") {
    return nullptr;
  }
  return owner;
}

void RemoveFinalizer(api::ObjectMeta& meta, std::string_view finalizer) {
  std::erase(meta.finalizers, std::string(finalizer));
}

// The name prefix upstream gives generated claims: "<pod>-<claim>-", both
// parts shortened in proportion when the prefix would exceed 57 characters.
std::string GenerateNameFor(std::string_view pod, std::string_view claim) {
  constexpr size_t kMaxBase = 57;
  const size_t full = pod.size() + claim.size() + 2;
  if (full <= kMaxBase) return fmt::format("{}-{}-", pod, claim);
  return fmt::format("{}-{}", pod.substr(0, pod.size() * kMaxBase / full),
                     claim.substr(0, claim.size() * kMaxBase / full));
}

// "<prefix><namespace>/<name>": a work queue key.
std::string QueueKey(std::string_view prefix, std::string_view namespace_,
                     std::string_view name) {
  std::string key;
  key.reserve(prefix.size() + namespace_.size() + 1 + name.size());
  key.append(prefix).append(namespace_).append("/").append(name);
  return key;
}

// The metadata of the claim generated for the pod's template entry
// `entry`: upstream's generateName, the template's labels and annotations,
// the pod claim name annotation, and the pod as controller.
api::ObjectMeta GeneratedClaimMeta(const api::Pod& pod,
                                   const api::PodResourceClaim& entry,
                                   const api::ObjectMeta& template_meta) {
  api::ObjectMeta meta;
  meta.generate_name = GenerateNameFor(pod.metadata.name, entry.name);
  meta.namespace_ = pod.metadata.namespace_;
  meta.labels = template_meta.labels;
  meta.annotations = template_meta.annotations;
  meta.annotations[std::string(api::kPodClaimNameAnnotation)] = entry.name;
  meta.owner_references.push_back({.api_version = "v1",
                                   .kind = "Pod",
                                   .name = pod.metadata.name,
                                   .uid = pod.metadata.uid,
                                   .controller = true,
                                   .block_owner_deletion = true});
  return meta;
}

// Releases the claim's devices: status.allocation and the per-device
// status go together.
void ClearAllocation(api::ResourceClaim& claim) {
  claim.status.allocation.reset();
  claim.status.devices.clear();
}

}  // namespace

bool PodIsDone(const api::Pod& pod) {
  if (pod.status.phase == "Succeeded" || pod.status.phase == "Failed") {
    return true;
  }
  return pod.metadata.deletion_timestamp.has_value() &&
         pod.spec.node_name.empty();
}

ClaimController::ClaimController(client::ApiClient& client,
                                 client::Informer& pods,
                                 client::Informer& claims,
                                 client::Informer& templates,
                                 ClaimControllerOptions options,
                                 ClassicClaimInformers classic)
    : client_(client),
      pods_(pods),
      claims_(claims),
      templates_(templates),
      options_(options),
      classic_(classic),
      queue_({.max_retries = options_.max_retries}) {
  pods_.AddHandler(
      [this](const ObjectPtr& o, const ObjectPtr& n) { OnPod(o, n); });
  claims_.AddHandler(
      [this](const ObjectPtr& o, const ObjectPtr& n) { OnClaim(o, n); });
  templates_.AddHandler(
      [this](const ObjectPtr& o, const ObjectPtr& n) { OnTemplate(o, n); });
  if (classic_.claims != nullptr) {
    classic_.claims->AddHandler([this](const ObjectPtr& o, const ObjectPtr& n) {
      OnClassicClaim(o, n);
    });
  }
  if (classic_.templates != nullptr) {
    classic_.templates->AddHandler(
        [this](const ObjectPtr& o, const ObjectPtr& n) { OnTemplate(o, n); });
  }
}

ClaimController::~ClaimController() { Stop(); }

void ClaimController::OnPod(const ObjectPtr& old, const ObjectPtr& now) {
  const api::Pod* pod = As<api::Pod>(now ? now : old);
  if (pod == nullptr) return;
  if (pod->spec.resource_claims.empty() &&
      !pod->status.extended_resource_claim_status.has_value()) {
    return;
  }
  if (!now || PodIsDone(*pod)) {
    // Its claims may have to drop the reservation, deallocate or go.
    for (const std::string& name : api::PodClaimNames(*pod)) {
      queue_.Add(QueueKey(kClaimPrefix, pod->metadata.namespace_, name));
    }
    return;
  }
  // Most pod updates (the claim statuses this controller wrote, the
  // binding, kubelet's status) leave SyncPod nothing to do; queueing them
  // anyway made the controller sync every pod several times.
  if (PodNeedsSync(*pod)) {
    queue_.Add(
        QueueKey(kPodPrefix, pod->metadata.namespace_, pod->metadata.name));
  }
}

bool ClaimController::PodNeedsSync(const api::Pod& pod) const {
  if (pod.metadata.deletion_timestamp) return false;
  for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
    if (entry.resource_claim_template_name &&
        api::ClaimStatusFor(pod, entry.name) == nullptr) {
      return true;  // a claim to generate
    }
  }
  if (pod.spec.node_name.empty()) return false;
  for (const std::string& name : api::PodClaimNames(pod)) {
    const ObjectPtr object = claims_.Get(pod.metadata.namespace_, name);
    const auto* claim = As<api::ResourceClaim>(object);
    if (claim != nullptr && claim->status.allocation &&
        !api::IsReservedForPod(*claim, pod.metadata.uid)) {
      return true;  // bound elsewhere: ReserveForBoundPod
    }
  }
  return false;
}

bool ClaimController::ConsumerGone(const std::string& namespace_,
                                   std::string_view resource,
                                   std::string_view api_group,
                                   std::string_view name,
                                   std::string_view uid) const {
  if (!api_group.empty() || resource != "pods") return false;
  // A pod missing from the cache counts as gone here; SyncClaim asks the
  // API before it acts.
  const ObjectPtr object = pods_.Get(namespace_, name);
  const auto* pod = As<api::Pod>(object);
  return pod == nullptr || pod->metadata.uid != uid || PodIsDone(*pod);
}

bool ClaimController::ClaimNeedsSync(const api::ResourceClaim& claim) const {
  if (claim.metadata.deletion_timestamp) return true;
  const std::string& ns = claim.metadata.namespace_;
  for (const auto& ref : claim.status.reserved_for) {
    if (ConsumerGone(ns, ref.resource, ref.api_group, ref.name, ref.uid)) {
      return true;
    }
  }
  const api::OwnerReference* owner = OwningPod(claim.metadata);
  return owner != nullptr &&
         ConsumerGone(ns, "pods", "", owner->name, owner->uid);
}

void ClaimController::IndexOwnedClaim(const api::ObjectMeta& claim,
                                      bool added) {
  const api::OwnerReference* owner = OwningPod(claim);
  if (owner == nullptr) return;
  auto annotation =
      claim.annotations.find(std::string(api::kPodClaimNameAnnotation));
  if (annotation == claim.annotations.end()) return;
  MutexLock lock(mu_);
  if (added) {
    owned_[owner->uid][annotation->second] = claim.name;
  } else if (auto it = owned_.find(owner->uid); it != owned_.end()) {
    it->second.erase(annotation->second);
    if (it->second.empty()) owned_.erase(it);
  }
}

void ClaimController::OnClaim(const ObjectPtr& old, const ObjectPtr& now) {
  const api::ResourceClaim* claim = As<api::ResourceClaim>(now ? now : old);
  if (claim == nullptr) return;
  // Ownership is set at creation and never changes (metadata.ownerReferences
  // and annotations of a generated claim are the controller's): only
  // additions and deletions update the index.
  if (!(old && now)) IndexOwnedClaim(claim->metadata, now != nullptr);
  // Only a claim SyncClaim would change: one being deleted, reserved for
  // a pod that is gone or done, or generated for such a pod.
  if (now && ClaimNeedsSync(*claim)) {
    queue_.Add(QueueKey(kClaimPrefix, claim->metadata.namespace_,
                        claim->metadata.name));
  }
}

void ClaimController::OnTemplate(const ObjectPtr&, const ObjectPtr& now) {
  if (now == nullptr) return;
  // Either family's template (both handlers lead here).
  const api::ObjectMeta& tmpl = api::MetaOf(*now);
  // Pods waiting for this template can now get their claims (queued in key
  // order, so generated names do not depend on the cache's hashing).
  std::vector<ObjectPtr> pods = pods_.List();
  std::sort(pods.begin(), pods.end(), [](const auto& a, const auto& b) {
    const api::ObjectMeta& x = api::MetaOf(*a);
    const api::ObjectMeta& y = api::MetaOf(*b);
    return std::tie(x.namespace_, x.name) < std::tie(y.namespace_, y.name);
  });
  for (const ObjectPtr& object : pods) {
    const auto* pod = As<api::Pod>(object);
    if (pod == nullptr || pod->metadata.namespace_ != tmpl.namespace_) continue;
    for (const auto& entry : pod->spec.resource_claims) {
      if (entry.resource_claim_template_name == tmpl.name &&
          api::ClaimStatusFor(*pod, entry.name) == nullptr) {
        queue_.Add(
            QueueKey(kPodPrefix, pod->metadata.namespace_, pod->metadata.name));
        break;
      }
    }
  }
}

bool ClaimController::ProcessOne(std::chrono::milliseconds wait) {
  std::optional<std::string> key = queue_.Pop(wait);
  if (!key) return false;
  Status status = Sync(*key);
  // Gone objects need nothing more.
  if (status.code() == StatusCode::kNotFound) status = OkStatus();
  queue_.Finish(*key, status.ok());
  {
    MutexLock lock(mu_);
    ++metrics_.syncs;
    if (!status.ok()) ++metrics_.sync_errors;
  }
  if (!status.ok()) {
    if (status.code() == StatusCode::kAborted) {
      log::Debug("claim-controller", "{}: {}", key->substr(2),
                 status.message());
    } else {
      log::Warn("claim-controller", "{}: {}", key->substr(2), status.message());
    }
  }
  return true;
}

Status ClaimController::Sync(const std::string& key) {
  if (key.starts_with(kPodPrefix)) return SyncPod(key.substr(2));
  return SyncClaim(key.substr(2));
}

Status ClaimController::SyncPod(const std::string& key) {
  const api::Pod* pod = nullptr;
  ObjectPtr object = pods_.Get(key);
  pod = As<api::Pod>(object);
  if (pod == nullptr || pod->metadata.deletion_timestamp || PodIsDone(*pod)) {
    return OkStatus();
  }
  RETURN_IF_ERROR(EnsureGeneratedClaims(*pod));
  if (!pod->spec.node_name.empty()) RETURN_IF_ERROR(ReserveForBoundPod(*pod));
  return OkStatus();
}

std::string ClaimController::OwnedClaimName(const std::string& pod_uid,
                                            std::string_view pod_claim) const {
  MutexLock lock(mu_);
  auto it = owned_.find(pod_uid);
  if (it == owned_.end()) return "";
  auto claim = it->second.find(std::string(pod_claim));
  return claim == it->second.end() ? "" : claim->second;
}

std::optional<api::Object> ClaimController::ClaimFromTemplate(
    const api::Pod& pod, const api::PodResourceClaim& entry) const {
  // Built in place in the returned object: claims are created for every
  // pod, and each move of one costs.
  std::optional<api::Object> out;
  const std::string& name = *entry.resource_claim_template_name;
  ObjectPtr object = templates_.Get(pod.metadata.namespace_, name);
  if (const auto* tmpl = As<api::ResourceClaimTemplate>(object)) {
    auto& claim = std::get<api::ResourceClaim>(
        out.emplace(std::in_place_type<api::ResourceClaim>));
    claim.metadata = GeneratedClaimMeta(pod, entry, tmpl->spec.metadata);
    claim.spec = tmpl->spec.spec;
    return out;
  }
  // A template name is held by one family only (docs/classic-dra.md,
  // section 3): a v1alpha2 template generates a v1alpha2 claim.
  if (classic_.templates == nullptr) return out;
  object = classic_.templates->Get(pod.metadata.namespace_, name);
  const auto* classic = As<api::v1alpha2::ResourceClaimTemplate>(object);
  if (classic == nullptr) return out;
  auto& claim = std::get<api::v1alpha2::ResourceClaim>(
      out.emplace(std::in_place_type<api::v1alpha2::ResourceClaim>));
  claim.metadata = GeneratedClaimMeta(pod, entry, classic->spec.metadata);
  claim.spec = classic->spec.spec;
  return out;
}

Status ClaimController::EnsureGeneratedClaims(const api::Pod& pod) {
  std::vector<api::PodResourceClaimStatus> added;
  for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
    if (!entry.resource_claim_template_name) continue;
    if (api::ClaimStatusFor(pod, entry.name) != nullptr) continue;
    std::string name = OwnedClaimName(pod.metadata.uid, entry.name);
    if (name.empty()) {
      std::optional<api::Object> claim = ClaimFromTemplate(pod, entry);
      if (!claim) {
        // Waits for the template (OnTemplate requeues the pod).
        log::Info("claim-controller",
                  "pod {}/{}: resource claim template \"{}\" not found",
                  pod.metadata.namespace_, pod.metadata.name,
                  *entry.resource_claim_template_name);
        continue;
      }
      {
        MutexLock lock(mu_);
        ++metrics_.create_attempts;
      }
      auto created = client_.Create(*std::move(claim));
      if (!created.ok()) {
        {
          MutexLock lock(mu_);
          ++metrics_.create_failures;
        }
        api::Event event = client::PodWarningEvent(
            pod, "FailedResourceClaimCreation",
            fmt::format("PodResourceClaim {}: {}", entry.name,
                        created.status().message()),
            "resource_claim");
        (void)client_.CreateEvent(event);
        return created.status().WithPrefix(
            fmt::format("creating claim {} of pod {}/{}", entry.name,
                        pod.metadata.namespace_, pod.metadata.name));
      }
      name = api::MetaOf(**created).name;
      MutexLock lock(mu_);
      owned_[pod.metadata.uid][entry.name] = name;
    }
    added.push_back({.name = entry.name, .resource_claim_name = name});
  }
  if (added.empty()) return OkStatus();

  const api::Pod* base = &pod;
  ObjectPtr fresh;
  for (int attempt = 0; attempt < kWriteAttempts; ++attempt) {
    // Only metadata (for the precondition) and status matter to a status
    // write.
    api::Pod updated;
    updated.metadata = base->metadata;
    updated.status = base->status;
    for (const auto& entry : added) {
      if (api::ClaimStatusFor(updated, entry.name) == nullptr) {
        updated.status.resource_claim_statuses.push_back(entry);
      }
    }
    auto written = client_.UpdateStatus(api::Object(std::move(updated)));
    if (written.ok()) return OkStatus();
    if (written.status().code() != StatusCode::kAborted) {
      return written.status();
    }
    ASSIGN_OR_RETURN(
        fresh, client_.Get(client::PodsResource(), pod.metadata.namespace_,
                           pod.metadata.name));
    base = As<api::Pod>(fresh);
    if (base == nullptr || base->metadata.uid != pod.metadata.uid) {
      return OkStatus();
    }
  }
  return Status(StatusCode::kAborted, "pod status kept changing");
}

Status ClaimController::ReserveForBoundPod(const api::Pod& pod) {
  for (const std::string& name : api::PodClaimNames(pod)) {
    ObjectPtr object = claims_.Get(pod.metadata.namespace_, name);
    const auto* claim = As<api::ResourceClaim>(object);
    if (claim == nullptr || !claim->status.allocation ||
        api::IsReservedForPod(*claim, pod.metadata.uid)) {
      continue;
    }
    api::ResourceClaim updated = *claim;
    updated.status.reserved_for.push_back(api::PodConsumerRef(pod));
    auto written = client_.UpdateStatus(api::Object(std::move(updated)));
    if (!written.ok()) return written.status();
  }
  return OkStatus();
}

bool ClaimController::PodStillUses(std::string_view namespace_,
                                   std::string_view name,
                                   std::string_view uid) {
  ObjectPtr object = pods_.Get(namespace_, name);
  const api::Pod* pod = As<api::Pod>(object);
  if (pod == nullptr) {
    // The cache may lag behind a pod created moments ago.
    auto got = client_.Get(client::PodsResource(), namespace_, name);
    if (!got.ok()) return got.status().code() != StatusCode::kNotFound;
    object = std::move(*got);
    pod = As<api::Pod>(object);
  }
  return pod != nullptr && pod->metadata.uid == uid && !PodIsDone(*pod);
}

Status ClaimController::SyncClaim(const std::string& key) {
  ObjectPtr object = claims_.Get(key);
  const auto* cached = As<api::ResourceClaim>(object);
  if (cached == nullptr) {
    // Claim keys carry no family: the name is held by one at most.
    return classic_.claims != nullptr ? SyncClassicClaim(key) : OkStatus();
  }
  const std::string& ns = cached->metadata.namespace_;

  const auto& reserved = cached->status.reserved_for;
  std::vector<bool> still_used(reserved.size(), true);
  size_t valid_count = 0;
  for (size_t i = 0; i < reserved.size(); ++i) {
    const auto& ref = reserved[i];
    still_used[i] = !(ref.api_group.empty() && ref.resource == "pods" &&
                      !PodStillUses(ns, ref.name, ref.uid));
    if (still_used[i]) ++valid_count;
  }
  if (valid_count == reserved.size() && !cached->metadata.deletion_timestamp) {
    // The common case, a claim in use: nothing to write unless its owning
    // pod is gone.
    return DeleteIfOrphaned(cached->metadata, client::ResourceClaimsResource());
  }
  std::vector<api::ResourceClaimConsumerReference> valid;
  for (size_t i = 0; i < reserved.size(); ++i) {
    if (still_used[i]) valid.push_back(reserved[i]);
  }
  api::ResourceClaim claim = *cached;
  const bool protected_claim =
      api::HasFinalizer(claim.metadata, api::kDeleteProtectionFinalizer);
  if (valid.size() < claim.status.reserved_for.size()) {
    const size_t removed = claim.status.reserved_for.size() - valid.size();
    claim.status.reserved_for = std::move(valid);
    const bool deallocate =
        claim.status.reserved_for.empty() && protected_claim;
    if (deallocate) ClearAllocation(claim);
    RETURN_IF_ERROR(WriteStatus(claim));
    {
      MutexLock lock(mu_);
      metrics_.reservations_removed += removed;
      if (deallocate) ++metrics_.deallocations;
    }
    if (deallocate) {
      RemoveFinalizer(claim.metadata, api::kDeleteProtectionFinalizer);
      ASSIGN_OR_RETURN(ObjectPtr written, client_.Update(api::Object(claim)));
      claim = std::get<api::ResourceClaim>(*written);
    }
  } else if (claim.metadata.deletion_timestamp && valid.empty() &&
             protected_claim) {
    if (claim.status.allocation) {
      ClearAllocation(claim);
      RETURN_IF_ERROR(WriteStatus(claim));
      MutexLock lock(mu_);
      ++metrics_.deallocations;
    }
    RemoveFinalizer(claim.metadata, api::kDeleteProtectionFinalizer);
    auto written = client_.Update(api::Object(claim));
    if (!written.ok() && written.status().code() != StatusCode::kNotFound) {
      return written.status();
    }
    return OkStatus();
  }

  return DeleteIfOrphaned(claim.metadata, client::ResourceClaimsResource());
}

Status ClaimController::WriteStatus(api::ResourceClaim& claim) {
  ASSIGN_OR_RETURN(ObjectPtr written, client_.UpdateStatus(api::Object(claim)));
  claim = std::get<api::ResourceClaim>(*written);
  return OkStatus();
}

Status ClaimController::DeleteIfOrphaned(const api::ObjectMeta& claim,
                                         const api::ResourceInfo& resource) {
  // A generated claim goes with its pod.
  const api::OwnerReference* owner = OwningPod(claim);
  const std::string& ns = claim.namespace_;
  if (owner != nullptr && !claim.deletion_timestamp &&
      !PodStillUses(ns, owner->name, owner->uid)) {
    Status deleted = client_.Delete(resource, ns, claim.name, claim.uid);
    if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) {
      return deleted;
    }
    MutexLock lock(mu_);
    ++metrics_.claims_deleted;
  }
  return OkStatus();
}

// ---- resource.k8s.io/v1alpha2 claims (docs/classic-dra.md, section 6) ----

void ClaimController::OnClassicClaim(const ObjectPtr& old,
                                     const ObjectPtr& now) {
  const auto* claim = As<api::v1alpha2::ResourceClaim>(now ? now : old);
  if (claim == nullptr) return;
  if (!(old && now)) IndexOwnedClaim(claim->metadata, now != nullptr);
  if (now && ClassicClaimNeedsSync(*claim)) {
    queue_.Add(QueueKey(kClaimPrefix, claim->metadata.namespace_,
                        claim->metadata.name));
  }
}

bool ClaimController::ClassicClaimNeedsSync(
    const api::v1alpha2::ResourceClaim& claim) const {
  if (claim.metadata.deletion_timestamp) return true;
  const std::string& ns = claim.metadata.namespace_;
  for (const auto& ref : claim.status.reserved_for) {
    if (ConsumerGone(ns, ref.resource, ref.api_group, ref.name, ref.uid)) {
      return true;
    }
  }
  const api::OwnerReference* owner = OwningPod(claim.metadata);
  return owner != nullptr &&
         ConsumerGone(ns, "pods", "", owner->name, owner->uid);
}

Status ClaimController::SyncClassicClaim(const std::string& key) {
  ObjectPtr object = classic_.claims->Get(key);
  const auto* cached = As<api::v1alpha2::ResourceClaim>(object);
  if (cached == nullptr) return OkStatus();
  const std::string& ns = cached->metadata.namespace_;
  const auto& reserved = cached->status.reserved_for;
  std::vector<bool> still_used(reserved.size(), true);
  for (size_t i = 0; i < reserved.size(); ++i) {
    const auto& ref = reserved[i];
    still_used[i] = !(ref.api_group.empty() && ref.resource == "pods" &&
                      !PodStillUses(ns, ref.name, ref.uid));
  }
  api::v1alpha2::ResourceClaim claim = *cached;
  const size_t before = claim.status.reserved_for.size();
  const bool was_allocated = claim.status.allocation.has_value();
  const classic::ClassicClaimRelease release =
      classic::ReleaseConsumers(claim, still_used);
  if (release.write_status) {
    ASSIGN_OR_RETURN(ObjectPtr written,
                     client_.UpdateStatus(api::Object(claim)));
    claim = std::get<api::v1alpha2::ResourceClaim>(*written);
    MutexLock lock(mu_);
    metrics_.reservations_removed +=
        before - std::min(before, claim.status.reserved_for.size());
    if (was_allocated && !claim.status.allocation) ++metrics_.deallocations;
  }
  if (release.remove_builtin_finalizer) {
    RemoveFinalizer(claim.metadata, api::v1alpha2::kBuiltinFinalizer);
    auto written = client_.Update(api::Object(claim));
    if (!written.ok() && written.status().code() != StatusCode::kNotFound) {
      return written.status();
    }
    if (written.ok()) {
      claim = std::get<api::v1alpha2::ResourceClaim>(**written);
    }
  }
  return DeleteIfOrphaned(claim.metadata,
                          client::ResourceFor<api::v1alpha2::ResourceClaim>());
}

void ClaimController::Start() {
  for (int i = 0; i < options_.workers; ++i) {
    workers_.emplace_back([this] {
      while (!stopping_) ProcessOne(std::chrono::milliseconds(200));
    });
  }
}

void ClaimController::Stop() {
  stopping_ = true;
  queue_.ShutDown();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

ClaimControllerMetrics ClaimController::metrics() const {
  MutexLock lock(mu_);
  return metrics_;
}

}  // namespace dralloc::controller
