#include "controlplane/control_plane.h"

#include <fmt/format.h>

namespace dralloc::controlplane {

ControlPlane::ControlPlane(client::ApiClient& client,
                           ControlPlaneOptions options) {
  auto make = [&](const api::ResourceInfo& info) {
    return std::make_unique<client::Informer>(client, info);
  };
  pods_ = make(client::PodsResource());
  nodes_ = make(client::NodesResource());
  claims_ = make(client::ResourceClaimsResource());
  templates_ = make(client::ResourceClaimTemplatesResource());
  slices_ = make(client::ResourceSlicesResource());
  classes_ = make(client::DeviceClassesResource());
  slice_patches_ = make(client::ResourceSlicePatchesResource());
  taint_rules_ = make(client::DeviceTaintRulesResource());
  namespaces_ = make(client::ResourceFor<api::Namespace>());
  if (options.classic_dra) {
    classic_claims_ = make(client::ResourceFor<api::v1alpha2::ResourceClaim>());
    classic_templates_ =
        make(client::ResourceFor<api::v1alpha2::ResourceClaimTemplate>());
    classic_classes_ =
        make(client::ResourceFor<api::v1alpha2::ResourceClass>());
    scheduling_contexts_ =
        make(client::ResourceFor<api::v1alpha2::PodSchedulingContext>());
    classic_slices_ = make(client::ResourceFor<api::v1alpha2::ResourceSlice>());
    claim_parameters_ =
        make(client::ResourceFor<api::v1alpha2::ResourceClaimParameters>());
    class_parameters_ =
        make(client::ResourceFor<api::v1alpha2::ResourceClassParameters>());
  }
  pipeline_batch_ = options.pipeline_batch;
  if (options.run_controller) {
    client::Informer* pods = pods_.get();
    client::Informer* claims = claims_.get();
    client::Informer* templates = templates_.get();
    if (pipeline_batch_ > 0) {
      // The controller thread pumps its own caches, so that its handlers
      // do not run on the scheduling thread.
      controller_pods_ = make(client::PodsResource());
      controller_claims_ = make(client::ResourceClaimsResource());
      controller_templates_ = make(client::ResourceClaimTemplatesResource());
      pods = controller_pods_.get();
      claims = controller_claims_.get();
      templates = controller_templates_.get();
    }
    controller_ = std::make_unique<controller::ClaimController>(
        client, *pods, *claims, *templates, options.controller,
        controller::ClassicClaimInformers{classic_claims_.get(),
                                          classic_templates_.get()});
    if (options.run_pod_gc) {
      pod_gc_ = std::make_unique<controller::PodGcController>(
          client, *pods_, *nodes_, options.pod_gc);
    }
    if (options.run_quota_controller) {
      // Claims, classes and pods come from the scheduling side's caches, as
      // the pod GC's do: three more watches of the busiest resources cost
      // the API server measurably under load.
      quotas_ = make(client::ResourceFor<api::ResourceQuota>());
      quota_controller_ = std::make_unique<controller::ResourceQuotaController>(
          client, *quotas_, *claims_, options.quota, classes_.get(),
          pods_.get(), classic_claims_.get());
    }
    if (options.run_service_accounts_controller) {
      account_namespaces_ = make(client::ResourceFor<api::Namespace>());
      service_accounts_ = make(client::ResourceFor<api::ServiceAccount>());
      service_accounts_controller_ =
          std::make_unique<controller::ServiceAccountsController>(
              client, *account_namespaces_, *service_accounts_);
    }
    if (options.run_device_taint_eviction) {
      taint_eviction_ =
          std::make_unique<controller::DeviceTaintEvictionController>(
              client, *pods_, *claims_, *slices_, *taint_rules_, *classes_,
              options.device_taint_eviction);
    }
    if (options.run_pool_status_controller) {
      pool_status_requests_ =
          make(client::ResourcePoolStatusRequestsResource());
      pool_status_ = std::make_unique<controller::ResourcePoolStatusController>(
          client, *pool_status_requests_, *slices_, *claims_, *taint_rules_);
    }
  }
  if (options.run_scheduler) {
    scheduler_ = std::make_unique<scheduler::Scheduler>(
        client,
        scheduler::SchedulerInformers{
            *pods_, *nodes_, *claims_, *slices_, *classes_, *slice_patches_,
            *taint_rules_, namespaces_.get(), classic_claims_.get(),
            classic_classes_.get(), scheduling_contexts_.get(),
            classic_slices_.get(), claim_parameters_.get(),
            class_parameters_.get()},
        options.scheduler);
  }
}

ControlPlane::~ControlPlane() {
  Stop();
  if (controller_thread_.joinable()) {
    {
      MutexLock lock(round_mu_);
      rounds_stopping_ = true;
    }
    round_cv_.SignalAll();
    controller_thread_.join();
  }
  // Binders of pipelined runs end with the scheduler.
  if (scheduler_) scheduler_->Stop();
}

std::vector<client::Informer*> ControlPlane::informers() const {
  std::vector<client::Informer*> all = SchedulerSideInformers();
  for (client::Informer* own : ControllerInformers()) all.push_back(own);
  return all;
}

std::vector<client::Informer*> ControlPlane::SchedulerSideInformers() const {
  // Device sources first, so that the first pods see the whole inventory.
  std::vector<client::Informer*> all = {
      classes_.get(),     slices_.get(),     slice_patches_.get(),
      taint_rules_.get(), namespaces_.get(), nodes_.get(),
      templates_.get()};
  if (classic_claims_) {
    // Classes and templates before claims, contexts and claims before pods.
    all.insert(all.end(), {classic_classes_.get(), classic_slices_.get(),
                           claim_parameters_.get(), class_parameters_.get(),
                           classic_templates_.get(), scheduling_contexts_.get(),
                           classic_claims_.get()});
  }
  all.push_back(claims_.get());
  all.push_back(pods_.get());
  return all;
}

std::vector<client::Informer*> ControlPlane::ControllerInformers() const {
  if (!controller_templates_) return {};
  return {controller_templates_.get(), controller_claims_.get(),
          controller_pods_.get()};
}

void ControlPlane::Start() {
  started_ = true;
  for (client::Informer* informer : informers()) informer->Start();
  if (controller_) controller_->Start();
  if (pod_gc_) pod_gc_->Start();
  if (quota_controller_) {
    quotas_->Start();
    quota_controller_->Start();
  }
  if (service_accounts_controller_) {
    account_namespaces_->Start();
    service_accounts_->Start();
    service_accounts_controller_->Start();
  }
  if (taint_eviction_) taint_eviction_->Start();
  if (pool_status_) {
    pool_status_requests_->Start();
    pool_status_->Start();
  }
  if (scheduler_) scheduler_->Start();
}

void ControlPlane::Stop() {
  if (!started_) return;
  started_ = false;
  if (scheduler_) scheduler_->Stop();
  if (controller_) controller_->Stop();
  if (pod_gc_) pod_gc_->Stop();
  if (taint_eviction_) taint_eviction_->Stop();
  if (pool_status_) {
    pool_status_->Stop();
    pool_status_requests_->Stop();
  }
  if (quota_controller_) {
    quota_controller_->Stop();
    quotas_->Stop();
  }
  if (service_accounts_controller_) {
    service_accounts_controller_->Stop();
    account_namespaces_->Stop();
    service_accounts_->Stop();
  }
  for (client::Informer* informer : informers()) informer->Stop();
}

Status ControlPlane::WarmUp() {
  for (client::Informer* informer :
       {classes_.get(), slices_.get(), slice_patches_.get(), taint_rules_.get(),
        nodes_.get(), templates_.get()}) {
    while (true) {
      ASSIGN_OR_RETURN(size_t applied,
                       informer->Pump(std::chrono::milliseconds(0)));
      if (applied == 0) break;
    }
  }
  if (scheduler_) scheduler_->WarmUp();
  return OkStatus();
}

StatusOr<size_t> ControlPlane::Pump(
    const std::vector<client::Informer*>& informers) {
  size_t changes = 0;
  for (client::Informer* informer : informers) {
    // Drain what is there without waiting.
    while (true) {
      ASSIGN_OR_RETURN(size_t applied,
                       informer->Pump(std::chrono::milliseconds(0)));
      if (applied == 0) break;
      changes += applied;
    }
  }
  return changes;
}

bool ControlPlane::RunControllerBatch() {
  size_t processed = 0;
  while ((pipeline_batch_ == 0 || processed < pipeline_batch_) &&
         controller_->ProcessOne()) {
    ++processed;
  }
  return processed > 0;
}

bool ControlPlane::RunPodGc() {
  bool worked = false;
  while (pod_gc_ && pod_gc_->ProcessOne()) worked = true;
  return worked;
}

void ControlPlane::ControllerRounds() {
  uint64_t done = 0;
  while (true) {
    {
      MutexLock lock(round_mu_);
      while (!rounds_stopping_ && round_requested_ <= done) {
        round_cv_.Wait(round_mu_);
      }
      if (rounds_stopping_) return;
    }
    RoundResult result;
    StatusOr<size_t> changes = Pump(ControllerInformers());
    {
      // No writes until the scheduling side has read its events too:
      // otherwise what it sees this round would depend on timing.
      MutexLock lock(round_mu_);
      while (!rounds_stopping_ && round_pumped_ != round_requested_) {
        round_cv_.Wait(round_mu_);
      }
      if (rounds_stopping_) return;
    }
    if (changes.ok()) {
      result.changes = *changes;
      result.worked = RunControllerBatch();
    } else {
      result.status = changes.status();
    }
    {
      MutexLock lock(round_mu_);
      done = ++round_finished_;
      controller_round_ = std::move(result);
    }
    round_cv_.SignalAll();
  }
}

Status ControlPlane::RunToQuiescence(size_t max_rounds) {
  const bool pipelined = pipeline_batch_ > 0 && controller_ && scheduler_;
  if (!pipelined) {
    for (size_t round = 0; round < max_rounds; ++round) {
      ASSIGN_OR_RETURN(size_t changes, Pump(informers()));
      bool worked = false;
      if (controller_) worked = RunControllerBatch();
      if (RunPodGc()) worked = true;
      if (scheduler_) {
        while (scheduler_->ScheduleOne()) worked = true;
      }
      if (changes == 0 && !worked) return OkStatus();
    }
    return Status(StatusCode::kDeadlineExceeded,
                  fmt::format("no quiescence after {} rounds", max_rounds));
  }
  if (!controller_thread_.joinable()) {
    controller_thread_ = std::thread([this] { ControllerRounds(); });
  }
  if (!binders_started_) {
    scheduler_->StartBinders();
    binders_started_ = true;
  }
  for (size_t round = 0; round < max_rounds; ++round) {
    // Each side applies watch events at the start of a round only, before
    // either writes: within a round each reads one state, the same whatever
    // the timing. (Binders may still be writing; the scheduler's assumptions
    // make their progress irrelevant to its decisions.) Bindings finished
    // before the round started are among the events applied.
    const bool binds_done = scheduler_->Idle();
    {
      MutexLock lock(round_mu_);
      ++round_requested_;
    }
    round_cv_.SignalAll();
    StatusOr<size_t> changes = Pump(SchedulerSideInformers());
    {
      MutexLock lock(round_mu_);
      round_pumped_ = round_requested_;
    }
    round_cv_.SignalAll();
    bool worked = false;
    if (changes.ok()) {
      while (scheduler_->ScheduleOne()) worked = true;
      // The pod GC reads the scheduling side's caches, on this thread.
      if (RunPodGc()) worked = true;
    }
    RoundResult controller;
    {
      MutexLock lock(round_mu_);
      while (round_finished_ != round_requested_) round_cv_.Wait(round_mu_);
      controller = controller_round_;
    }
    RETURN_IF_ERROR(changes.status());
    RETURN_IF_ERROR(controller.status);
    if (*changes == 0 && controller.changes == 0 && !worked &&
        !controller.worked) {
      if (binds_done) return OkStatus();
      scheduler_->WaitForBinds();  // their writes are the next round's news
    }
  }
  return Status(StatusCode::kDeadlineExceeded,
                fmt::format("no quiescence after {} rounds", max_rounds));
}

}  // namespace dralloc::controlplane
