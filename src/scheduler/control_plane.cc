#include "scheduler/control_plane.h"

#include <fmt/format.h>

namespace dralloc::scheduler {

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
  if (options.run_controller) {
    controller_ = std::make_unique<controller::ClaimController>(
        client, *pods_, *claims_, *templates_, options.controller);
  }
  if (options.run_scheduler) {
    scheduler_ = std::make_unique<Scheduler>(
        client,
        SchedulerInformers{*pods_, *nodes_, *claims_, *slices_, *classes_,
                           *slice_patches_, *taint_rules_},
        options.scheduler);
  }
}

ControlPlane::~ControlPlane() { Stop(); }

std::vector<client::Informer*> ControlPlane::informers() const {
  // Device sources first, so that the first pods see the whole inventory.
  return {classes_.get(),     slices_.get(), slice_patches_.get(),
          taint_rules_.get(), nodes_.get(),  templates_.get(),
          claims_.get(),      pods_.get()};
}

void ControlPlane::Start() {
  started_ = true;
  for (client::Informer* informer : informers()) informer->Start();
  if (controller_) controller_->Start();
  if (scheduler_) scheduler_->Start();
}

void ControlPlane::Stop() {
  if (!started_) return;
  started_ = false;
  if (scheduler_) scheduler_->Stop();
  if (controller_) controller_->Stop();
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

Status ControlPlane::RunToQuiescence(size_t max_rounds) {
  for (size_t round = 0; round < max_rounds; ++round) {
    size_t changes = 0;
    for (client::Informer* informer : informers()) {
      // Drain what is there without waiting.
      while (true) {
        ASSIGN_OR_RETURN(size_t applied,
                         informer->Pump(std::chrono::milliseconds(0)));
        if (applied == 0) break;
        changes += applied;
      }
    }
    bool worked = false;
    if (controller_) {
      while (controller_->ProcessOne()) worked = true;
    }
    if (scheduler_) {
      while (scheduler_->ScheduleOne()) worked = true;
    }
    if (changes == 0 && !worked) return OkStatus();
  }
  return Status(StatusCode::kDeadlineExceeded,
                fmt::format("no quiescence after {} rounds", max_rounds));
}

}  // namespace dralloc::scheduler
