// ControlPlane: the informers, claim controller and scheduler over one
// ApiClient, run either on threads (`dralloc serve`, separate processes) or
// single-threaded to quiescence (`dralloc schedule`, tests).
#ifndef DRALLOC_CONTROLPLANE_CONTROL_PLANE_H_
#define DRALLOC_CONTROLPLANE_CONTROL_PLANE_H_

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "client/api_client.h"
#include "client/informer.h"
#include "common/mutex.h"
#include "controller/claim_controller.h"
#include "controller/device_taint_eviction_controller.h"
#include "controller/pod_gc_controller.h"
#include "controller/resource_pool_status_controller.h"
#include "controller/resource_quota_controller.h"
#include "controller/service_accounts_controller.h"
#include "scheduler/scheduler.h"

namespace dralloc::controlplane {

struct ControlPlaneOptions {
  bool run_controller = true;
  // The pod garbage collector runs with the controller (as in
  // kube-controller-manager) unless this is false.
  bool run_pod_gc = true;
  bool run_scheduler = true;
  // RunToQuiescence on two cores: 0 runs everything on the calling thread.
  // N > 0 runs each round's controller work (at most N queue items) on a
  // second thread while the calling thread schedules the pods made ready in
  // earlier rounds, with bindings on SchedulerOptions::binders threads; the
  // round ends when all three are done. Pods are still scheduled one at a
  // time in a fixed order against the same state, so placements and claim
  // names do not depend on timing (resourceVersions and timestamps do).
  size_t pipeline_batch = 0;
  controller::ClaimControllerOptions controller;
  controller::PodGcOptions pod_gc;
  // The ResourceQuota controller runs with the controller (Start/Stop, not
  // RunToQuiescence) when this is true.
  bool run_quota_controller = false;
  controller::ResourceQuotaControllerOptions quota;
  // The serviceaccounts controller ("default" in every namespace) runs with
  // the controller (Start/Stop) when this is true.
  bool run_service_accounts_controller = false;
  // The device taint eviction controller (KEP-5055) runs with the
  // controller (Start/Stop, not RunToQuiescence) unless this is false.
  bool run_device_taint_eviction = true;
  controller::DeviceTaintEvictionOptions device_taint_eviction;
  // The ResourcePoolStatusRequest controller (KEP-5677) runs with the
  // controller (Start/Stop, not RunToQuiescence) unless this is false.
  bool run_pool_status_controller = true;
  // Classic DRA (resource.k8s.io/v1alpha2, docs/classic-dra.md): the claim
  // controller generates v1alpha2 claims from v1alpha2 templates and
  // releases them, and the scheduler negotiates nodes with control-plane
  // drivers through PodSchedulingContexts. Off: v1alpha2 objects are
  // served but pods' classic claims are "not found".
  bool classic_dra = true;
  scheduler::SchedulerOptions scheduler;
};

class ControlPlane {
 public:
  ControlPlane(client::ApiClient& client, ControlPlaneOptions options);
  ~ControlPlane();

  void Start();
  void Stop();
  // Pumps the informers and runs the controller and the scheduler in
  // rounds until a round changes nothing (no backoff; binders 0, or with
  // pipeline_batch as described there). kDeadlineExceeded after
  // `max_rounds` rounds.
  Status RunToQuiescence(size_t max_rounds = 1'000'000) EXCLUDES(round_mu_);
  // Single-threaded: syncs the cluster-state informers (device sources,
  // nodes, templates) and builds the scheduler's device inventory, so that
  // a later run measures pod work only, as upstream's scheduler_perf does.
  Status WarmUp();

  client::Informer& pods() { return *pods_; }
  client::Informer& claims() { return *claims_; }
  client::Informer& nodes() { return *nodes_; }
  client::Informer& templates() { return *templates_; }
  scheduler::Scheduler* scheduler() { return scheduler_.get(); }
  controller::ClaimController* controller() { return controller_.get(); }
  controller::PodGcController* pod_gc() { return pod_gc_.get(); }

 private:
  // All informers; those the scheduler (and, unpipelined, the controller)
  // reads; those only the pipelined controller reads (none otherwise).
  std::vector<client::Informer*> informers() const;
  std::vector<client::Informer*> SchedulerSideInformers() const;
  std::vector<client::Informer*> ControllerInformers() const;
  // Applies every pending watch event of `informers`; the number applied.
  static StatusOr<size_t> Pump(const std::vector<client::Informer*>& informers);
  // The controller's share of a pipelined round, on controller_thread_.
  void ControllerRounds() EXCLUDES(round_mu_);
  bool RunControllerBatch();  // false: no item was processed
  bool RunPodGc();            // false: no item was processed

  // Pipelined rounds: the caller hands a round to controller_thread_ and
  // waits for it (round_mu_ guards the fields below).
  Mutex round_mu_;
  CondVar round_cv_;
  uint64_t round_requested_ GUARDED_BY(round_mu_) = 0;
  // The scheduling side has pumped this round.
  uint64_t round_pumped_ GUARDED_BY(round_mu_) = 0;
  uint64_t round_finished_ GUARDED_BY(round_mu_) = 0;
  struct RoundResult {
    Status status;
    size_t changes = 0;   // watch events applied
    bool worked = false;  // queue items processed
  };
  RoundResult controller_round_ GUARDED_BY(round_mu_);
  bool rounds_stopping_ GUARDED_BY(round_mu_) = false;
  std::thread controller_thread_;
  bool binders_started_ = false;

  std::unique_ptr<client::Informer> pods_, nodes_, claims_, templates_, slices_,
      classes_, slice_patches_, taint_rules_, namespaces_;
  // The pipelined controller's own caches (null otherwise).
  std::unique_ptr<client::Informer> controller_pods_, controller_claims_,
      controller_templates_;
  // Classic DRA (null when off), shared by the controller and the scheduler.
  std::unique_ptr<client::Informer> classic_claims_, classic_templates_,
      classic_classes_, scheduling_contexts_;
  // 1.30's structured model, for the scheduler.
  std::unique_ptr<client::Informer> classic_slices_;
  std::unique_ptr<client::Informer> claim_parameters_;
  std::unique_ptr<client::Informer> class_parameters_;
  std::unique_ptr<controller::ClaimController> controller_;
  // Reads pods_ and nodes_ (the scheduling side's caches).
  std::unique_ptr<controller::PodGcController> pod_gc_;
  // Its own quota cache (started and stopped with it, never pumped in
  // rounds); claims, classes and pods are the scheduling side's caches.
  std::unique_ptr<client::Informer> quotas_;
  std::unique_ptr<controller::ResourceQuotaController> quota_controller_;
  std::unique_ptr<client::Informer> account_namespaces_, service_accounts_;
  std::unique_ptr<controller::ServiceAccountsController>
      service_accounts_controller_;
  // Reads the scheduling side's caches; acts only between Start and Stop.
  std::unique_ptr<controller::DeviceTaintEvictionController> taint_eviction_;
  // Its own request cache; reads the scheduling side's slices, claims and
  // taint rules. Acts only between Start and Stop.
  std::unique_ptr<client::Informer> pool_status_requests_;
  std::unique_ptr<controller::ResourcePoolStatusController> pool_status_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  size_t pipeline_batch_ = 0;
  bool started_ = false;
};

}  // namespace dralloc::controlplane

#endif  // DRALLOC_CONTROLPLANE_CONTROL_PLANE_H_
