#include "node/pod_manager.h"

#include <algorithm>
#include <set>

#include "api/claim_helpers.h"
#include "common/log.h"

namespace dralloc::node {
namespace {

constexpr std::string_view kComponent = "pod-manager";
constexpr char kEventComponent[] = "kubelet";
constexpr char kFailedPrepare[] = "FailedPrepareDynamicResources";
constexpr char kFailedUnprepare[] = "FailedUnprepareDynamicResources";
// The work-queue key that retries unpreparing claims no pod uses.
constexpr char kUnusedClaimsKey[] = "";

const api::Pod* AsPod(const client::ObjectPtr& object) {
  return client::As<api::Pod>(object);
}

bool OnNode(const api::Pod* pod, const std::string& node) {
  return pod != nullptr && pod->spec.node_name == node;
}

bool Terminal(std::string_view phase) {
  return phase == "Succeeded" || phase == "Failed";
}

bool Finished(const api::Pod& pod) { return Terminal(pod.status.phase); }

// The claim of `claims` that status.extendedResourceClaimStatus names, or
// null.
const NodeClaim* ExtendedClaimOf(const api::Pod& pod,
                                 const std::vector<NodeClaim>& claims) {
  const auto& extended = pod.status.extended_resource_claim_status;
  if (!extended.has_value()) return nullptr;
  for (const NodeClaim& claim : claims) {
    if (claim.name == extended->resource_claim_name) return &claim;
  }
  return nullptr;
}

}  // namespace

PodManager::PodManager(client::ApiClient& api, DraManager& dra, CdiResolver cdi,
                       PodManagerOptions options, ContainerRuntime* runtime)
    : api_(api),
      dra_(dra),
      cdi_(std::move(cdi)),
      options_(std::move(options)),
      runtime_(runtime),
      // Only this node's pods, as the kubelet watches them: the server
      // filters (fieldSelector), the informer checks again.
      pods_(api, client::PodsResource(),
            {"spec.nodeName=" + options_.node_name,
             [node = options_.node_name](const api::Object& object) {
               const auto* pod = std::get_if<api::Pod>(&object);
               return pod != nullptr && pod->spec.node_name == node;
             }}),
      status_writer_(api, options_.status_writers,
                     [this](const std::string& key, const Status& error) {
                       OnStatusWriteFailed(key, error);
                     }) {
  if (runtime_ == nullptr) {
    own_runtime_ = std::make_unique<SimulatedRuntime>(options_.node_name,
                                                      options_.host_ip);
    runtime_ = own_runtime_.get();
  }
  // Container states changed (a process exited): write the pod's status.
  runtime_->SetChangeListener(
      [this](const std::string& key) { queue_.Add(key); });
  pods_.AddHandler([this](const client::ObjectPtr& old,
                          const client::ObjectPtr& now) { OnPod(old, now); });
}

PodManager::~PodManager() { Stop(); }

Status PodManager::Start(std::chrono::milliseconds sync_timeout) {
  pods_.Start();
  if (!pods_.WaitForSync(sync_timeout)) {
    return UnavailableError("pods of node " + options_.node_name +
                            " not listed within " +
                            std::to_string(sync_timeout.count()) + " ms");
  }
  // Claims recorded for pods that are gone or finished (a restart; the pod
  // ended while the agent was down, or before it released them) go now,
  // as the kubelet releases a terminal pod's claims.
  RETURN_IF_ERROR(dra_.RemovePodsExcept(ActivePodUids()));
  {
    MutexLock lock(mu_);
    next_reconcile_ = Clock::now() + options_.reconcile_period;
  }
  queue_.Add(kUnusedClaimsKey);
  for (int i = 0; i < std::max(options_.workers, 1); ++i) {
    workers_.emplace_back([this] { Run(); });
  }
  return OkStatus();
}

void PodManager::Stop() {
  stopping_ = true;
  runtime_->SetChangeListener({});
  queue_.ShutDown();
  for (std::thread& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
  workers_.clear();
  status_writer_.Stop();
  pods_.Stop();
}

void PodManager::OnPod(const client::ObjectPtr& old,
                       const client::ObjectPtr& now) {
  const api::Pod* before = AsPod(old);
  const api::Pod* after = AsPod(now);
  if (OnNode(after, options_.node_name)) {
    queue_.Add(client::ObjectKey(*now));
  } else if (OnNode(before, options_.node_name)) {
    queue_.Add(client::ObjectKey(*old));  // deleted, or moved away
  }
}

void PodManager::RequeueWaitingPods() {
  std::set<std::string> waiting;
  {
    MutexLock lock(mu_);
    for (const auto& [key, record] : records_) {
      if (!record.running) waiting.insert(key);
    }
    // Backoffs (an unprepare of a pod being deleted, the unused claims)
    // may wait for the driver that just came.
    for (const auto& [key, at] : retries_) waiting.insert(key);
    for (const std::string& key : waiting) retries_.erase(key);
  }
  for (const std::string& key : waiting) queue_.Add(key);
}

void PodManager::Run() {
  while (!stopping_) {
    QueueDueRetries();
    QueueReconcileWhenDue();
    std::optional<std::string> key = queue_.Pop(std::chrono::milliseconds(50));
    if (!key) continue;
    bool done;
    if (*key == kUnusedClaimsKey) {
      Status status = ReconcileClaims();
      if (!status.ok()) log::Warn(kComponent, "{}", status.message());
      done = status.ok();
    } else {
      done = SyncPod(*key);
    }
    if (done) {
      MutexLock lock(mu_);
      auto it = records_.find(*key);
      if (it != records_.end()) it->second.backoff = {};
      if (*key == kUnusedClaimsKey) unused_backoff_ = {};
    } else {
      ScheduleRetry(*key);
    }
    queue_.Done(*key);
  }
}

std::set<std::string> PodManager::ActivePodUids() const {
  std::set<std::string> active;
  for (const client::ObjectPtr& object : pods_.List()) {
    const api::Pod* pod = AsPod(object);
    if (OnNode(pod, options_.node_name) && !Finished(*pod)) {
      active.insert(pod->metadata.uid);
    }
  }
  // A finished pod's claims are released by its own sync (ReleaseFinished),
  // a deleted pod's by TerminatePod, as long as the record lives.
  MutexLock lock(mu_);
  for (const auto& [key, record] : records_) active.insert(record.uid);
  return active;
}

Status PodManager::ReconcileClaims() {
  RETURN_IF_ERROR(dra_.RemoveInactivePods([this] { return ActivePodUids(); }));
  return dra_.UnprepareUnused();
}

void PodManager::QueueReconcileWhenDue() {
  {
    MutexLock lock(mu_);
    const auto now = Clock::now();
    if (now < next_reconcile_) return;
    next_reconcile_ = now + options_.reconcile_period;
  }
  queue_.Add(kUnusedClaimsKey);
}

void PodManager::ScheduleRetry(const std::string& key) {
  MutexLock lock(mu_);
  std::chrono::milliseconds* backoff = &unused_backoff_;
  auto it = records_.find(key);
  if (it != records_.end()) backoff = &it->second.backoff;
  *backoff = backoff->count() == 0
                 ? options_.backoff_initial
                 : std::min(*backoff * 2, options_.backoff_max);
  retries_[key] = Clock::now() + *backoff;
}

void PodManager::ScheduleClaimRecheck(const std::string& key) {
  MutexLock lock(mu_);
  std::chrono::milliseconds& wait = records_[key].claim_recheck;
  wait = wait.count() == 0 ? options_.claim_recheck_initial
                           : std::min(wait * 2, options_.claim_recheck_max);
  // An earlier retry already due (a prepare backoff) stays.
  const Clock::time_point at = Clock::now() + wait;
  auto [it, inserted] = retries_.emplace(key, at);
  if (!inserted && at < it->second) it->second = at;
}

void PodManager::QueueDueRetries() {
  std::vector<std::string> due;
  {
    MutexLock lock(mu_);
    const auto now = Clock::now();
    for (auto it = retries_.begin(); it != retries_.end();) {
      if (it->second <= now) {
        due.push_back(it->first);
        it = retries_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (std::string& key : due) queue_.Add(std::move(key));
}

bool PodManager::SyncPod(const std::string& key) {
  client::ObjectPtr object = pods_.Get(key);
  const api::Pod* pod = AsPod(object);
  std::string known_uid;
  {
    MutexLock lock(mu_);
    auto it = records_.find(key);
    if (it != records_.end()) known_uid = it->second.uid;
  }
  if (!OnNode(pod, options_.node_name)) {
    return known_uid.empty() || TerminatePod(key, known_uid, nullptr);
  }
  if (!known_uid.empty() && known_uid != pod->metadata.uid) {
    // Deleted and created again under the same name: finish the old one.
    if (!TerminatePod(key, known_uid, nullptr)) return false;
  }
  if (pod->metadata.deletion_timestamp) {
    return TerminatePod(key, pod->metadata.uid, pod);
  }
  bool running;
  {
    MutexLock lock(mu_);
    PodRecord& record = records_[key];
    record.uid = pod->metadata.uid;
    running = record.running;
  }
  if (running) return SyncRunningPod(key, *pod);
  if (Finished(*pod)) return true;
  return StartPod(key, *pod);
}

bool PodManager::SyncRunningPod(const std::string& key, const api::Pod& pod) {
  // The version is read before the phase: a change after it syncs again.
  const uint64_t version = runtime_->StateVersion(pod.metadata.uid);
  {
    MutexLock lock(mu_);
    PodRecord& record = records_[key];
    if (record.written_version == version) return true;
    // Recorded before the status is queued, so that a write failing from
    // now on resets it (OnStatusWriteFailed) and the retry writes again.
    record.written_version = version;
  }
  // The claims go first: the status writer holds back the terminal phase
  // until they are unprepared (SetStatus).
  const bool released =
      !Terminal(runtime_->StatusOf(pod).phase) || ReleaseFinished(key, pod);
  SetStatus(key, pod, [this](const api::Pod& current) {
    return runtime_->StatusOf(current);
  });
  if (released) return true;
  MutexLock lock(mu_);
  records_[key].written_version = 0;  // the release is retried
  return false;
}

bool PodManager::ReleaseFinished(const std::string& key, const api::Pod& pod) {
  {
    MutexLock lock(mu_);
    if (records_[key].released) return true;
  }
  // As the kubelet: a finished pod gives its devices back when it ends, not
  // when it is deleted, so the claim controller may deallocate them.
  Status unprepared = dra_.UnprepareResources(pod.metadata.uid);
  if (!unprepared.ok()) {
    Warn(key, pod, kFailedUnprepare, unprepared.message());
    return false;
  }
  MutexLock lock(mu_);
  records_[key].released = true;
  log::Info(kComponent, "pod {} finished: its claims are unprepared", key);
  return true;
}

bool PodManager::StartPod(const std::string& key, const api::Pod& pod) {
  auto claims = PodClaims(pod);
  if (!claims.ok()) {
    // Nothing tells the agent when a claim changes (it may not watch
    // claims): read them again soon, on a short backoff of their own.
    Warn(key, pod, kFailedPrepare, claims.status().message());
    ScheduleClaimRecheck(key);
    return true;
  }
  bool report_creating;
  {
    MutexLock lock(mu_);
    records_[key].claim_recheck = {};
    // A pod already Running (the agent restarted) is not set back.
    report_creating =
        !records_[key].creating_reported && pod.status.phase != "Running";
  }
  if (report_creating) {
    SetStatus(key, pod, [this](const api::Pod& current) {
      return runtime_->CreatingStatus(current);
    });
    MutexLock lock(mu_);
    records_[key].creating_reported = true;
  }
  Status prepared = dra_.PrepareResources(pod.metadata.uid, *claims);
  if (!prepared.ok()) {
    Warn(key, pod, kFailedPrepare, prepared.message());
    return false;
  }
  auto devices = ContainerDevicesOf(pod, *claims);
  if (!devices.ok()) {
    Warn(key, pod, kFailedPrepare, devices.status().message());
    return false;
  }
  {
    // Recorded before the Running status is visible, so that whoever sees
    // the status also finds the devices.
    MutexLock lock(mu_);
    PodRecord& record = records_[key];
    record.devices = std::move(*devices);
    record.running_pod = RunningPodOf(pod, *claims);
  }
  std::vector<std::string> warnings;
  std::vector<ContainerDevices> container_devices;
  {
    MutexLock lock(mu_);
    container_devices = records_[key].devices;
  }
  Status started = runtime_->StartPod(pod, container_devices, warnings);
  for (const std::string& warning : warnings) {
    Warn(key, pod, "Failed", warning);
  }
  if (!started.ok()) {
    Warn(key, pod, "FailedCreatePodContainers", started.message());
    return false;
  }
  {
    MutexLock lock(mu_);
    PodRecord& record = records_[key];
    record.running = true;
    record.written_version = 0;
    record.last_warning.clear();
  }
  log::Info(kComponent, "pod {} running ({} claim(s) prepared)", key,
            claims->size());
  // A pod whose containers already ended (a quick command) changes no more:
  // it is released here or never.
  return SyncRunningPod(key, pod);
}

StatusOr<std::vector<NodeClaim>> PodManager::PodClaims(
    const api::Pod& pod) const {
  std::vector<NodeClaim> claims;
  const std::string& ns = pod.metadata.namespace_;
  for (size_t i = 0; i < pod.spec.resource_claims.size(); ++i) {
    const api::PodResourceClaim& entry = pod.spec.resource_claims[i];
    const std::string field =
        "spec.resourceClaims[" + std::to_string(i) + "] (" + entry.name + ")";
    api::PodClaimName resolved = api::ClaimNameFor(pod, entry);
    using Kind = api::PodClaimName::Kind;
    if (resolved.kind == Kind::kNotNeeded) continue;
    if (resolved.kind == Kind::kNotCreated) {
      return FailedPreconditionError(
          field +
          ": the ResourceClaim from the template has not been "
          "created yet (no entry in status.resourceClaimStatuses)");
    }
    const std::string name(resolved.name);
    const std::string what = field + ": resourceclaim " + ns + "/" + name;
    ASSIGN_OR_RETURN(NodeClaim claim,
                     FetchClaim(pod, name, what, /*either_family=*/true));
    RETURN_IF_ERROR(
        CheckUsable(claim, pod, resolved.kind == Kind::kGenerated, what));
    claims.push_back(std::move(claim));
  }
  if (const auto& extended = pod.status.extended_resource_claim_status) {
    // KEP-5004's claim is the scheduler's, always resource.k8s.io/v1.
    const std::string what =
        "status.extendedResourceClaimStatus: resourceclaim " +
        pod.metadata.namespace_ + "/" + extended->resource_claim_name;
    ASSIGN_OR_RETURN(NodeClaim claim,
                     FetchClaim(pod, extended->resource_claim_name, what,
                                /*either_family=*/false));
    RETURN_IF_ERROR(CheckUsable(claim, pod, /*generated=*/true, what));
    claims.push_back(std::move(claim));
  }
  return claims;
}

StatusOr<NodeClaim> PodManager::FetchClaim(const api::Pod& pod,
                                           const std::string& name,
                                           const std::string& what,
                                           bool either_family) const {
  const std::string& ns = pod.metadata.namespace_;
  const std::string& pod_uid = pod.metadata.uid;
  // The two families share one name space (docs/classic-dra.md section 3):
  // a v1 get of a classic claim answers NotFound.
  auto got = api_.Get(client::ResourceClaimsResource(), ns, name);
  if (!got.ok() && got.status().code() != StatusCode::kNotFound) {
    return got.status().WithPrefix(what);
  }
  if (got.ok()) {
    if (const auto* claim = client::As<api::ResourceClaim>(*got)) {
      return NodeClaim::Of(*claim, pod_uid);
    }
  }
  if (either_family) {
    auto classic =
        api_.Get(client::ResourceFor<api::v1alpha2::ResourceClaim>(), ns, name);
    if (!classic.ok() && classic.status().code() != StatusCode::kNotFound) {
      return classic.status().WithPrefix(what);
    }
    if (classic.ok()) {
      if (const auto* claim =
              client::As<api::v1alpha2::ResourceClaim>(*classic)) {
        return NodeClaim::Of(*claim, pod_uid);
      }
    }
  }
  return FailedPreconditionError(what + " does not exist");
}

Status PodManager::CheckUsable(const NodeClaim& claim, const api::Pod& pod,
                               bool generated, const std::string& what) {
  if (generated && !claim.owned_by_pod) {
    return FailedPreconditionError(what + " was not created for this pod");
  }
  if (!claim.allocated) {
    return FailedPreconditionError(what + " is not allocated");
  }
  if (!claim.reserved_for_pod) {
    return FailedPreconditionError(
        what +
        " is not reserved for this pod: status.reservedFor does not list "
        "pod uid " +
        pod.metadata.uid);
  }
  return OkStatus();
}

StatusOr<std::vector<ContainerDevices>> PodManager::ContainerDevicesOf(
    const api::Pod& pod, const std::vector<NodeClaim>& claims) const {
  // Pod claim entry name → claim UID (entries that made no claim are absent).
  std::map<std::string, std::string> uid_of;
  for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
    api::PodClaimName resolved = api::ClaimNameFor(pod, entry);
    for (const NodeClaim& claim : claims) {
      if (claim.name == resolved.name) uid_of[entry.name] = claim.uid;
    }
  }
  const NodeClaim* extended = ExtendedClaimOf(pod, claims);
  std::vector<ContainerDevices> out;
  auto add = [&](const api::Container& container) -> Status {
    ContainerDevices devices{container.name, {}, {}};
    auto append = [&](const std::string& uid,
                      const std::string& request) -> Status {
      ASSIGN_OR_RETURN(std::vector<std::string> ids,
                       dra_.CdiDeviceIds(uid, request));
      devices.cdi_device_ids.insert(devices.cdi_device_ids.end(), ids.begin(),
                                    ids.end());
      return OkStatus();
    };
    for (const api::ContainerResourceClaim& ref : container.resources.claims) {
      auto uid = uid_of.find(ref.name);
      if (uid == uid_of.end()) continue;  // no claim needed (template said so)
      RETURN_IF_ERROR(append(uid->second, ref.request));
    }
    // KEP-5004: the container's extended resources served through the
    // scheduler's claim, by the request each maps to.
    if (extended != nullptr) {
      for (const auto& mapping :
           pod.status.extended_resource_claim_status->request_mappings) {
        if (mapping.container_name != container.name) continue;
        RETURN_IF_ERROR(append(extended->uid, mapping.request_name));
      }
    }
    if (cdi_ && !devices.cdi_device_ids.empty()) {
      auto edits = cdi_(devices.cdi_device_ids);
      if (!edits.ok()) {
        return edits.status().WithPrefix("container " + container.name);
      }
      devices.edits = std::move(*edits);
    }
    out.push_back(std::move(devices));
    return OkStatus();
  };
  for (const api::Container& c : pod.spec.init_containers)
    RETURN_IF_ERROR(add(c));
  for (const api::Container& c : pod.spec.containers) RETURN_IF_ERROR(add(c));
  return out;
}

RunningPod PodManager::RunningPodOf(const api::Pod& pod,
                                    const std::vector<NodeClaim>& claims) {
  RunningPod out{pod.metadata.name, pod.metadata.namespace_, {}};
  const NodeClaim* extended = ExtendedClaimOf(pod, claims);
  auto add = [&](const api::Container& container) {
    std::vector<ContainerClaim> used;
    if (extended != nullptr) {
      for (const auto& mapping :
           pod.status.extended_resource_claim_status->request_mappings) {
        if (mapping.container_name != container.name) continue;
        used.push_back({extended->uid, extended->name, extended->namespace_,
                        mapping.request_name});
      }
    }
    for (const api::ContainerResourceClaim& ref : container.resources.claims) {
      for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
        if (entry.name != ref.name) continue;
        api::PodClaimName resolved = api::ClaimNameFor(pod, entry);
        for (const NodeClaim& claim : claims) {
          if (claim.name != resolved.name) continue;
          used.push_back(
              {claim.uid, claim.name, claim.namespace_, ref.request});
        }
      }
    }
    out.containers.emplace_back(container.name, std::move(used));
  };
  for (const api::Container& c : pod.spec.init_containers) add(c);
  for (const api::Container& c : pod.spec.containers) add(c);
  return out;
}

void PodManager::SetStatus(
    const std::string& key, const api::Pod& pod,
    std::function<api::PodStatus(const api::Pod&)> status_of) {
  status_writer_.Set(
      key, pod,
      [this, key, status_of = std::move(status_of)](const api::Pod& current) {
        api::PodStatus status = status_of(current);
        // As the kubelet: a pod is not published terminal before its
        // claims are unprepared, since on that phase the claim controller
        // deallocates them (and another pod may get their devices).
        if (Terminal(status.phase) && !Released(key, current.metadata.uid)) {
          status.phase = current.status.phase;
        }
        if (options_.decorate_status) options_.decorate_status(current, status);
        return status;
      });
}

bool PodManager::Released(const std::string& key,
                          const std::string& uid) const {
  MutexLock lock(mu_);
  auto it = records_.find(key);
  return it == records_.end() || it->second.uid != uid || it->second.released;
}

void PodManager::OnStatusWriteFailed(const std::string& key,
                                     const Status& error) {
  log::Warn(kComponent, "pod {}: status: {}", key, error.message());
  if (error.code() == StatusCode::kNotFound || stopping_) return;
  {
    MutexLock lock(mu_);
    auto it = records_.find(key);
    if (it == records_.end()) return;
    it->second.written_version = 0;  // written again when synced
  }
  ScheduleRetry(key);
}

bool PodManager::TerminatePod(const std::string& key, const std::string& uid,
                              const api::Pod* pod) {
  status_writer_.Forget(key);
  // Containers first (SIGTERM, SIGKILL after the grace period); retried
  // until none runs, and requeued by the runtime when they exit.
  const std::chrono::seconds grace(
      pod != nullptr
          ? std::max<int64_t>(
                pod->metadata.deletion_grace_period_seconds.value_or(30), 0)
          : 0);
  if (!runtime_->StopPod(uid, grace)) return false;
  Status unprepared = dra_.UnprepareResources(uid);
  if (!unprepared.ok()) {
    if (pod != nullptr) {
      Warn(key, *pod, kFailedUnprepare, unprepared.message());
    } else {
      log::Warn(kComponent, "pod {} (uid {}): {}", key, uid,
                unprepared.message());
    }
    return false;
  }
  if (pod != nullptr) {
    // As the kubelet ends a graceful deletion: its containers are stopped
    // and its claims unprepared, so the pod goes now (grace period 0).
    Status deleted = api_.Delete(
        client::PodsResource(), pod->metadata.namespace_, pod->metadata.name,
        client::DeleteOptions{.grace_period_seconds = 0, .uid = uid});
    if (!deleted.ok() && deleted.code() != StatusCode::kNotFound &&
        deleted.code() != StatusCode::kAborted) {
      log::Warn(kComponent, "pod {}: delete: {}", key, deleted.message());
      return false;
    }
  }
  MutexLock lock(mu_);
  auto it = records_.find(key);
  if (it != records_.end() && it->second.uid == uid) {
    records_.erase(it);
  }
  log::Info(kComponent, "pod {} (uid {}) terminated", key, uid);
  return true;
}

void PodManager::Warn(const std::string& key, const api::Pod& pod,
                      const std::string& reason, const std::string& message) {
  {
    MutexLock lock(mu_);
    std::string& last = records_[key].last_warning;
    if (records_[key].uid.empty()) records_[key].uid = pod.metadata.uid;
    if (last == reason + message) return;
    last = reason + message;
  }
  log::Warn(kComponent, "pod {}: {}: {}", key, reason, message);
  Status recorded = api_.CreateEvent(
      client::PodWarningEvent(pod, reason, message, kEventComponent));
  if (!recorded.ok()) {
    log::Warn(kComponent, "pod {}: event: {}", key, recorded.message());
  }
}

std::vector<ContainerDevices> PodManager::DevicesOf(
    const std::string& pod_key) const {
  MutexLock lock(mu_);
  auto it = records_.find(pod_key);
  return it == records_.end() ? std::vector<ContainerDevices>{}
                              : it->second.devices;
}

std::vector<RunningPod> PodManager::RunningPods() const {
  MutexLock lock(mu_);
  std::vector<RunningPod> out;
  for (const auto& [key, record] : records_) {
    if (record.running && !record.released) {
      out.push_back(record.running_pod);
    }
  }
  return out;
}

bool PodManager::IsRunning(const std::string& pod_key) const {
  MutexLock lock(mu_);
  auto it = records_.find(pod_key);
  return it != records_.end() && it->second.running;
}

}  // namespace dralloc::node
