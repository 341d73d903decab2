// ControlPlane: the informers, claim controller and scheduler over one
// ApiClient, run either on threads (`dralloc serve`, separate processes) or
// single-threaded to quiescence (`dralloc schedule`, tests).
#ifndef DRALLOC_SCHEDULER_CONTROL_PLANE_H_
#define DRALLOC_SCHEDULER_CONTROL_PLANE_H_

#include <memory>
#include <vector>

#include "client/api_client.h"
#include "client/informer.h"
#include "controller/claim_controller.h"
#include "scheduler/scheduler.h"

namespace dralloc::scheduler {

struct ControlPlaneOptions {
  bool run_controller = true;
  bool run_scheduler = true;
  controller::ClaimControllerOptions controller;
  SchedulerOptions scheduler;
};

class ControlPlane {
 public:
  ControlPlane(client::ApiClient& client, ControlPlaneOptions options);
  ~ControlPlane();

  void Start();
  void Stop();
  // Single-threaded: pumps the informers and runs the controller and the
  // scheduler until a round changes nothing (set SchedulerOptions::binders
  // to 0 and no backoff). kDeadlineExceeded after `max_rounds` rounds.
  Status RunToQuiescence(size_t max_rounds = 1'000'000);
  // Single-threaded: syncs the cluster-state informers (device sources,
  // nodes, templates) and builds the scheduler's device inventory, so that
  // a later run measures pod work only, as upstream's scheduler_perf does.
  Status WarmUp();

  client::Informer& pods() { return *pods_; }
  client::Informer& claims() { return *claims_; }
  client::Informer& nodes() { return *nodes_; }
  client::Informer& templates() { return *templates_; }
  Scheduler* scheduler() { return scheduler_.get(); }
  controller::ClaimController* controller() { return controller_.get(); }

 private:
  std::vector<client::Informer*> informers() const;

  std::unique_ptr<client::Informer> pods_, nodes_, claims_, templates_, slices_,
      classes_, slice_patches_, taint_rules_;
  std::unique_ptr<controller::ClaimController> controller_;
  std::unique_ptr<Scheduler> scheduler_;
  bool started_ = false;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_CONTROL_PLANE_H_
