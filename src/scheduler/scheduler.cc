#include "scheduler/scheduler.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/pod_conditions.h"
#include "common/clock.h"
#include "common/log.h"
#include "scheduler/unschedulable_message.h"

namespace dralloc::scheduler {
namespace {

using client::As;
using client::ObjectPtr;

bool PodPending(const api::Pod& pod) {
  return pod.spec.node_name.empty() && !pod.metadata.deletion_timestamp &&
         pod.status.phase != "Succeeded" && pod.status.phase != "Failed";
}

// The instances a classic claim holds (1.30's structured parameters; none
// for null, a driver's claim or an unallocated one).
std::vector<std::string> InstancesOf(
    const api::v1alpha2::ResourceClaim* claim) {
  return claim != nullptr ? classic::StructuredDevicesOf(*claim)
                          : std::vector<std::string>{};
}

}  // namespace

struct Scheduler::Outcome {
  enum class Kind { kGated, kUnschedulable, kWaitingForDriver, kReserved };
  Kind kind = Kind::kGated;
  std::string message;
  std::optional<BindTask> task;
  // PostFilter: an allocated claim to release so the pod can go elsewhere.
  ObjectPtr deallocate;
  // PostFilter: a stale special claim for extended resources to delete.
  ObjectPtr delete_claim;
  // Classic DRA: PostFilter's deallocation request, or (kWaitingForDriver)
  // what to publish in the pod's PodSchedulingContext.
  std::optional<classic::ClassicDeallocation> classic_deallocate;
  classic::ContextWrite context_write;
};

Scheduler::Scheduler(client::ApiClient& client, SchedulerInformers informers,
                     SchedulerOptions options)
    : client_(client),
      events_(client),
      informers_(informers),
      options_(std::move(options)),
      queue_(BackoffOptions{options_.initial_backoff, options_.max_backoff}),
      snapshot_(informers),
      dra_(client, snapshot_,
           DraPluginOptions{options_.placement, options_.max_steps}),
      framework_(
          snapshot_, dra_, DefaultProfile(),
          FrameworkOptions{options_.evaluate_all_nodes, options_.placement}),
      binder_(
          client, dra_, options_.binders,
          [this](const BindTask& task, const std::string& why) {
            OnBindFailed(task, why);
          },
          [this](const BindTask& task) { ReportScheduled(task); },
          options_.binding_wait,
          [this](const BindTask& task) {
            ReportBindingConditionsPending(task);
          }) {
  informers_.pods.AddHandler(
      [this](const ObjectPtr& o, const ObjectPtr& n) { OnPod(o, n); });
  informers_.claims.AddHandler(
      [this](const ObjectPtr& o, const ObjectPtr& n) { OnClaim(o, n); });
  informers_.nodes.AddHandler(
      [this](const ObjectPtr& o, const ObjectPtr& n) { OnNode(o, n); });
  for (client::Informer* source :
       {&informers_.slices, &informers_.classes, &informers_.slice_patches,
        &informers_.taint_rules}) {
    source->AddHandler([this](const ObjectPtr& o, const ObjectPtr& n) {
      OnDeviceSource(o, n);
    });
  }
  if (informers_.classic_claims != nullptr) {
    informers_.classic_claims->AddHandler(
        [this](const ObjectPtr& o, const ObjectPtr& n) {
          OnClassicClaim(o, n);
        });
  }
  if (informers_.classic_classes != nullptr) {
    informers_.classic_classes->AddHandler(
        [this](const ObjectPtr&, const ObjectPtr&) {
          MutexLock lock(mu_);
          queue_.MoveAllUnschedulable();
        });
  }
  if (informers_.scheduling_contexts != nullptr) {
    informers_.scheduling_contexts->AddHandler(
        [this](const ObjectPtr& o, const ObjectPtr& n) {
          OnSchedulingContext(o, n);
        });
  }
  for (client::Informer* source :
       {informers_.classic_slices, informers_.claim_parameters,
        informers_.class_parameters}) {
    if (source == nullptr) continue;
    source->AddHandler([this](const ObjectPtr&, const ObjectPtr&) {
      MutexLock lock(mu_);
      framework_.classic().InvalidateStructured();
      queue_.MoveAllUnschedulable();
    });
  }
}

Scheduler::~Scheduler() { Stop(); }

bool Scheduler::Responsible(const api::Pod& pod) const {
  const std::string& name = pod.spec.scheduler_name;
  if (name == options_.scheduler_name) return true;
  return options_.schedule_default_pods &&
         (name.empty() || name == "default-scheduler");
}

// ---- informer handlers -------------------------------------------------

void Scheduler::OnPod(const ObjectPtr& old, const ObjectPtr& now) {
  const api::Pod* pod = As<api::Pod>(now);
  const api::Pod* before_pod = As<api::Pod>(old);
  const std::string key = client::ObjectKey(*(now ? now : old));
  MutexLock lock(mu_);
  snapshot_.ObservePod(key, now);
  // A pod leaving a node (deleted or finished) may make room for others.
  if (before_pod != nullptr && !before_pod->spec.node_name.empty() &&
      (pod == nullptr || pod->status.phase == "Succeeded" ||
       pod->status.phase == "Failed")) {
    queue_.MoveAllUnschedulable();
  }
  if (pod == nullptr || !PodPending(*pod) || !Responsible(*pod)) {
    queue_.Forget(key);
    return;
  }
  if (const api::Pod* before = As<api::Pod>(old)) {
    // Our own condition updates change nothing that matters for placement.
    // (Queue membership first: it is cheaper than comparing specs.)
    if (queue_.WaitsUngated(key) &&
        before->status.resource_claim_statuses ==
            pod->status.resource_claim_statuses &&
        before->metadata.labels == pod->metadata.labels &&
        before->spec == pod->spec) {
      return;
    }
  }
  queue_.SetPriority(key, pod->spec.priority.value_or(0));
  queue_.Activate(key);
}

void Scheduler::OnClaim(const ObjectPtr& old, const ObjectPtr& now) {
  const std::string key = client::ObjectKey(*(now ? now : old));
  const auto* before = As<api::ResourceClaim>(old);
  const auto* after = As<api::ResourceClaim>(now);
  MutexLock lock(mu_);
  snapshot_.ObserveClaim(key, now);
  const bool freed =
      (before != nullptr && before->status.allocation &&
       (after == nullptr || !after->status.allocation)) ||
      (before != nullptr && after != nullptr &&
       after->status.reserved_for.size() < before->status.reserved_for.size());
  if (freed) queue_.MoveAllUnschedulable();
  // Pods that waited for this claim to appear.
  if (before == nullptr && after != nullptr) queue_.ClaimAdded(key);
}

void Scheduler::OnClassicClaim(const ObjectPtr& old, const ObjectPtr& now) {
  const std::string key = client::ObjectKey(*(now ? now : old));
  const auto* before = As<api::v1alpha2::ResourceClaim>(old);
  const auto* after = As<api::v1alpha2::ResourceClaim>(now);
  MutexLock lock(mu_);
  const bool was_allocated = before != nullptr && before->status.allocation;
  const bool is_allocated = after != nullptr && after->status.allocation;
  const bool freed =
      (was_allocated && !is_allocated) ||
      (before != nullptr && after != nullptr &&
       after->status.reserved_for.size() < before->status.reserved_for.size());
  // An allocation the scheduler made became visible: pods that found the
  // claim in the process of being allocated may go on.
  const bool landed = framework_.classic().ObserveClaim(key, after);
  if (landed || !framework_.classic().IsAssumed(key)) {
    snapshot_.CountClassicDevices(key, InstancesOf(after));
  }
  if (freed || landed) queue_.MoveAllUnschedulable();
  // Pods that waited for this claim to appear, or for its driver.
  if ((before == nullptr && after != nullptr) ||
      (is_allocated && !was_allocated)) {
    queue_.ClaimAdded(key);
  }
}

void Scheduler::OnSchedulingContext(const ObjectPtr& old,
                                    const ObjectPtr& now) {
  const auto* before = As<api::v1alpha2::PodSchedulingContext>(old);
  const auto* after = As<api::v1alpha2::PodSchedulingContext>(now);
  // Only the drivers' answers matter: the spec is this scheduler's own
  // write (a new context has no answer yet), and reacting to it would loop.
  static const api::v1alpha2::PodSchedulingContextStatus kNoAnswer;
  if (after == nullptr ||
      (before != nullptr ? before->status : kNoAnswer) == after->status) {
    return;
  }
  MutexLock lock(mu_);
  queue_.DriverAnswered(client::ObjectKey(*now));
}

void Scheduler::OnDeviceSource(const ObjectPtr&, const ObjectPtr&) {
  MutexLock lock(mu_);
  snapshot_.InvalidateInventory();
  queue_.MoveAllUnschedulable();
}

void Scheduler::OnNode(const ObjectPtr& old, const ObjectPtr& now) {
  const auto* before = As<api::Node>(old);
  const auto* after = As<api::Node>(now);
  MutexLock lock(mu_);
  snapshot_.InvalidateNodes();
  if (after != nullptr &&
      (before == nullptr || before->metadata.labels != after->metadata.labels ||
       before->spec.taints != after->spec.taints ||
       before->spec.unschedulable != after->spec.unschedulable ||
       before->status.allocatable != after->status.allocatable)) {
    queue_.MoveAllUnschedulable();
  }
}

bool Scheduler::Idle() const {
  MutexLock lock(mu_);
  return queue_.Idle() && binder_.in_flight() == 0;
}

SchedulerStats Scheduler::stats() {
  MutexLock lock(mu_);
  BookBound();
  SchedulerStats stats = stats_;
  stats.nodes_evaluated = framework_.stats().nodes_evaluated;
  stats.allocator_calls = framework_.stats().allocator_calls;
  return stats;
}

void Scheduler::WarmUp() {
  MutexLock lock(mu_);
  snapshot_.Refresh();
}

// ---- the scheduling cycle ---------------------------------------------

Scheduler::Outcome Scheduler::Cycle(const ObjectPtr& pod_object) {
  const api::Pod& pod = std::get<api::Pod>(*pod_object);
  snapshot_.Refresh();
  DraCycleState state(pod);
  CycleVerdict verdict = framework_.Schedule(state, next_start_node_);
  const std::string pod_key =
      client::ObjectKey(pod.metadata.namespace_, pod.metadata.name);
  if (!verdict.missing_claim.empty()) {
    queue_.WaitForClaim(verdict.missing_claim, pod_key);
  }
  Outcome out;
  switch (verdict.kind) {
    case CycleVerdict::Kind::kGated:
      out.kind = Outcome::Kind::kGated;
      return out;
    case CycleVerdict::Kind::kUnschedulable:
      out.kind = Outcome::Kind::kUnschedulable;
      out.message = std::move(verdict.message);
      out.deallocate = std::move(verdict.deallocate);
      out.delete_claim = std::move(verdict.delete_claim);
      out.classic_deallocate = std::move(verdict.classic_deallocate);
      return out;
    case CycleVerdict::Kind::kFeasible:
      break;
  }
  classic::ClassicReserve drivers;
  if (state.classic != nullptr) {
    drivers = framework_.classic().Reserve(
        state, snapshot_.nodes()[verdict.chosen->node].info.name);
    if (drivers.waits) {
      // Nothing is reserved or assumed until the drivers allocated.
      for (const std::string& claim_key : drivers.claims) {
        queue_.WaitForClaim(claim_key, pod_key);
      }
      out.kind = Outcome::Kind::kWaitingForDriver;
      out.message = std::move(drivers.message);
      out.context_write = std::move(drivers.write);
      return out;
    }
  }
  out.kind = Outcome::Kind::kReserved;
  out.task = dra_.Reserve(state, pod_object, *verdict.chosen);
  out.task->classic_claims = std::move(drivers.reservations);
  for (const ClassicClaimReservation& reservation : out.task->classic_claims) {
    if (reservation.allocation) {
      snapshot_.CountClassicDevices(
          reservation.key,
          classic::StructuredDevicesOf(*reservation.allocation));
    }
  }
  out.task->delete_scheduling_context = drivers.delete_scheduling_context;
  // The pod counts on its node from now on, as upstream's assumed pod.
  api::Pod assumed = pod;
  assumed.spec.node_name = out.task->node;
  if (!out.task->node_allocatable.empty()) {
    assumed.status.node_allocatable_resource_claim_statuses =
        out.task->node_allocatable;
  }
  snapshot_.AssumePod(pod_key,
                      std::make_shared<const api::Object>(std::move(assumed)));
  return out;
}

bool Scheduler::ScheduleOne(std::chrono::milliseconds wait) {
  ReleasableMutexLock lock(mu_);
  BookBound();
  std::optional<std::string> key = queue_.Pop();
  if (!key && wait.count() > 0) {
    queue_.WaitForWork(mu_, wait, stopping_);
    key = queue_.Pop();
  }
  if (!key) return false;
  ObjectPtr pod_object = informers_.pods.Get(*key);
  const api::Pod* pod = As<api::Pod>(pod_object);
  if (pod == nullptr || !PodPending(*pod) || !Responsible(*pod) ||
      queue_.IsBinding(*key)) {
    return true;
  }
  Outcome outcome = Cycle(pod_object);
  switch (outcome.kind) {
    case Outcome::Kind::kGated:
      queue_.MarkGated(*key);
      return true;
    case Outcome::Kind::kUnschedulable: {
      ++stats_.unschedulable;
      const bool changed = queue_.MarkUnschedulable(*key, outcome.message);
      lock.Release();
      if (outcome.deallocate && dra_.Deallocate(outcome.deallocate).ok()) {
        MutexLock relock(mu_);
        ++stats_.deallocations;
        outcome.message += " deallocation of ResourceClaim completed";
      }
      if (outcome.delete_claim)
        dra_.DeleteStaleExtendedClaim(outcome.delete_claim);
      if (outcome.classic_deallocate &&
          dra_.classic_writes()
              .Deallocate(*pod, *outcome.classic_deallocate)
              .ok()) {
        MutexLock relock(mu_);
        ++stats_.deallocations;
        outcome.message += " deallocation of ResourceClaim requested";
      }
      ReportUnschedulable(*pod, outcome.message, changed);
      return true;
    }
    case Outcome::Kind::kWaitingForDriver: {
      const bool changed = queue_.MarkWaitingForDriver(*key, outcome.message);
      lock.Release();
      Status published =
          dra_.classic_writes().PublishContext(*pod, outcome.context_write);
      if (!published.ok()) {
        {
          MutexLock relock(mu_);
          queue_.BindFailed(*key);  // retried with backoff
        }
        ReportSchedulerError(*pod, fmt::format("running Reserve plugin "
                                               "\"DynamicResources\": {}",
                                               published.message()));
        return true;
      }
      ReportUnschedulable(*pod, outcome.message, changed);
      return true;
    }
    case Outcome::Kind::kReserved:
      break;
  }
  queue_.MarkBinding(*key);
  binder_.Announce();
  lock.Release();
  binder_.Submit(std::move(*outcome.task));
  return true;
}

// ---- binding -------------------------------------------------------------

void Scheduler::BookBound() {
  std::vector<BoundPod> bound;
  binder_.TakeBound(bound);
  for (const BoundPod& pod : bound) {
    for (const auto& [claim_key, revision] : pod.written) {
      snapshot_.ConfirmClaim(claim_key, revision);
    }
    // Claims that needed no write (already reserved) carry no assumption.
    ++stats_.scheduled;
    queue_.Bound(pod.pod_key);
  }
}

void Scheduler::OnBindFailed(const BindTask& task, const std::string& why) {
  {
    MutexLock lock(mu_);
    dra_.RestoreAssumed(task);
    framework_.classic().ForgetAssumed(task.classic_claims);
    for (const ClassicClaimReservation& reservation : task.classic_claims) {
      if (!reservation.allocation) continue;
      // Back to what the informer shows.
      snapshot_.CountClassicDevices(
          reservation.key, InstancesOf(As<api::v1alpha2::ResourceClaim>(
                               snapshot_.ClassicClaim(reservation.key))));
    }
    snapshot_.ForgetPod(client::ObjectKey(*task.pod));
    ++stats_.bind_failures;
    queue_.BindFailed(client::ObjectKey(*task.pod));
  }
  ReportSchedulerError(std::get<api::Pod>(*task.pod), why);
}

void Scheduler::RecordFailedScheduling(const api::Pod& pod,
                                       const std::string& message) {
  api::Event event = client::PodWarningEvent(pod, "FailedScheduling", message,
                                             options_.scheduler_name);
  event.action = "Scheduling";
  if (Status created = events_.Record(std::move(event)); !created.ok()) {
    log::Warn("scheduler", "event for pod {}/{}: {}", pod.metadata.namespace_,
              pod.metadata.name, created.message());
  }
}

void Scheduler::ReportSchedulerError(const api::Pod& pod,
                                     const std::string& why) {
  RecordFailedScheduling(pod, why);
  // On the pod as it is now: PreBind may have written its status.
  auto current = client_.Get(client::PodsResource(), pod.metadata.namespace_,
                             pod.metadata.name);
  if (!current.ok()) return;
  api::Pod updated = std::get<api::Pod>(**current);
  if (updated.metadata.uid != pod.metadata.uid ||
      !updated.spec.node_name.empty()) {
    return;  // replaced, or bound after all
  }
  api::PodCondition& condition = api::ConditionOf(updated, "PodScheduled");
  if (condition.status != "False")
    condition.last_transition_time = NowRfc3339();
  condition.status = "False";
  condition.reason = "SchedulerError";
  condition.message = why;
  (void)client_.UpdateStatus(api::Object(std::move(updated)));
}

void Scheduler::WaitForBinds() { binder_.WaitForBinds(); }

void Scheduler::ReportUnschedulable(const api::Pod& pod,
                                    const std::string& message, bool changed) {
  RecordFailedScheduling(pod, message);
  if (!changed) return;
  api::Pod updated = pod;
  api::PodCondition& condition = api::ConditionOf(updated, "PodScheduled");
  const std::string now = NowRfc3339();
  if (condition.status != "False") condition.last_transition_time = now;
  condition.status = "False";
  condition.reason = "Unschedulable";
  condition.message = message;
  if (!(updated.status == pod.status)) {
    (void)client_.UpdateStatus(api::Object(std::move(updated)));
  }
}

void Scheduler::ReportScheduled(const BindTask& task) {
  const api::Pod& pod = std::get<api::Pod>(*task.pod);
  api::Event event = client::PodWarningEvent(
      pod, "Scheduled",
      fmt::format("Successfully assigned {}/{} to {}", pod.metadata.namespace_,
                  pod.metadata.name, task.node),
      options_.scheduler_name);
  event.type = "Normal";
  event.action = "Binding";
  if (Status created = events_.Record(std::move(event)); !created.ok()) {
    log::Warn("scheduler", "event for pod {}/{}: {}", pod.metadata.namespace_,
              pod.metadata.name, created.message());
  }
}

void Scheduler::ReportBindingConditionsPending(const BindTask& task) {
  const api::Pod& pod = std::get<api::Pod>(*task.pod);
  api::Event event = client::PodWarningEvent(
      pod, "BindingConditionsPending",
      fmt::format("waiting for binding conditions for device on node {}",
                  task.node),
      options_.scheduler_name);
  event.type = "Normal";
  event.action = "Scheduling";
  if (Status created = events_.Record(std::move(event)); !created.ok()) {
    log::Warn("scheduler", "event for pod {}/{}: {}", pod.metadata.namespace_,
              pod.metadata.name, created.message());
  }
}

void Scheduler::StartBinders() { binder_.Start(); }

void Scheduler::Start() {
  StartBinders();
  loop_ = std::thread([this] {
    for (client::Informer* informer :
         {&informers_.pods, &informers_.nodes, &informers_.claims,
          &informers_.slices, &informers_.classes, &informers_.slice_patches,
          &informers_.taint_rules, informers_.classic_claims,
          informers_.classic_classes, informers_.scheduling_contexts,
          informers_.classic_slices, informers_.claim_parameters,
          informers_.class_parameters}) {
      while (informer != nullptr && !stopping_ &&
             !informer->WaitForSync(std::chrono::milliseconds(200))) {
      }
    }
    while (!stopping_) ScheduleOne(std::chrono::milliseconds(200));
  });
}

void Scheduler::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
    queue_.WakeAll();
  }
  if (loop_.joinable()) loop_.join();
  binder_.Stop();
}

}  // namespace dralloc::scheduler
