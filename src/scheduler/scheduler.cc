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

// Upstream's numFeasibleNodesToFind with the default adaptive percentage.
size_t FeasibleNodesToFind(size_t nodes) {
  constexpr size_t kMinFeasible = 100;
  if (nodes < kMinFeasible) return nodes;
  int64_t percentage = 50 - static_cast<int64_t>(nodes) / 125;
  percentage = std::max<int64_t>(percentage, 5);
  return std::max(kMinFeasible, nodes * percentage / 100);
}

}  // namespace

struct Scheduler::Outcome {
  enum class Kind { kGated, kUnschedulable, kReserved };
  Kind kind = Kind::kGated;
  std::string message;
  std::optional<BindTask> task;
  // PostFilter: an allocated claim to release so the pod can go elsewhere.
  ObjectPtr deallocate;
};

Scheduler::Scheduler(client::ApiClient& client, SchedulerInformers informers,
                     SchedulerOptions options)
    : client_(client),
      informers_(informers),
      options_(std::move(options)),
      queue_(BackoffOptions{options_.initial_backoff, options_.max_backoff}),
      snapshot_(static_cast<const SnapshotSources&>(informers)),
      dra_(client, snapshot_,
           DraPluginOptions{options_.placement, options_.max_steps}),
      binder_(client, dra_, options_.binders,
              [this](const BindTask& task) { OnBindFailed(task); }) {
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
  const std::string key = client::ObjectKey(*(now ? now : old));
  MutexLock lock(mu_);
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
       before->spec.unschedulable != after->spec.unschedulable)) {
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
  return stats_;
}

void Scheduler::WarmUp() {
  MutexLock lock(mu_);
  snapshot_.Refresh();
}

// ---- the scheduling cycle ---------------------------------------------

Scheduler::Outcome Scheduler::Cycle(const ObjectPtr& pod_object) {
  const api::Pod& pod = std::get<api::Pod>(*pod_object);
  snapshot_.Refresh();
  Outcome out;
  // A rejection before Filter is reported for all nodes at once, as
  // upstream.
  auto reject = [&](std::string_view message) REQUIRES(mu_) {
    out.kind = Outcome::Kind::kUnschedulable;
    out.message = fmt::format("0/{} nodes are available: {}.",
                              snapshot_.nodes().size(), message);
    return std::move(out);
  };

  DraCycleState state(pod);
  PreEnqueueResult ready = dra_.PreEnqueue(state);
  if (!ready.missing_claim.empty()) {
    queue_.WaitForClaim(
        ready.missing_claim,
        client::ObjectKey(pod.metadata.namespace_, pod.metadata.name));
  }
  switch (ready.code) {
    case PreEnqueueResult::Code::kGated:
      out.kind = Outcome::Kind::kGated;
      return out;
    case PreEnqueueResult::Code::kUnschedulable:
      return reject(ready.message);
    case PreEnqueueResult::Code::kReady:
      break;
  }
  dra_.PreFilter(state);

  UnschedulableReasons reasons;
  std::vector<Candidate> feasible;
  if (!FilterNodes(state, reasons, feasible)) return reject(state.error);
  if (feasible.empty()) {
    out.kind = Outcome::Kind::kUnschedulable;
    out.message = reasons.Message(snapshot_.nodes().size());
    out.deallocate = dra_.PostFilter(state);
    return out;
  }

  const size_t best = dra_.Score(state, feasible);
  out.kind = Outcome::Kind::kReserved;
  out.task = dra_.Reserve(state, pod_object, feasible[best]);
  return out;
}

bool Scheduler::FilterNodes(DraCycleState& state, UnschedulableReasons& reasons,
                            std::vector<Candidate>& feasible) {
  const std::vector<NodeEntry>& nodes = snapshot_.nodes();
  const size_t n = nodes.size();
  const size_t want = (state.wants_scores || options_.evaluate_all_nodes)
                          ? FeasibleNodesToFind(n)
                          : 1;
  size_t evaluated = 0;
  const CycleState node_cycle(state.pod);
  for (; evaluated < n && feasible.size() < want; ++evaluated) {
    const size_t index = (next_start_node_ + evaluated) % n;
    const NodeEntry& node = nodes[index];
    ++stats_.nodes_evaluated;
    if (node_unschedulable_.Filter(node_cycle, node, reasons) !=
            FilterCode::kFits ||
        taint_toleration_.Filter(node_cycle, node, reasons) !=
            FilterCode::kFits ||
        node_affinity_.Filter(node_cycle, node, reasons) != FilterCode::kFits) {
      continue;
    }
    Candidate candidate{index, {}};
    const FilterCode code =
        dra_.Filter(state, node, reasons, candidate.results);
    if (code == FilterCode::kError) {
      stats_.allocator_calls += state.allocator_calls;
      return false;
    }
    if (code == FilterCode::kFits) feasible.push_back(std::move(candidate));
  }
  stats_.allocator_calls += state.allocator_calls;
  if (n > 0) next_start_node_ = (next_start_node_ + evaluated) % n;
  return true;
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
      if (changed) ReportUnschedulable(*pod, outcome.message);
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

void Scheduler::OnBindFailed(const BindTask& task) {
  MutexLock lock(mu_);
  dra_.RestoreAssumed(task);
  ++stats_.bind_failures;
  queue_.BindFailed(client::ObjectKey(*task.pod));
}

void Scheduler::WaitForBinds() { binder_.WaitForBinds(); }

void Scheduler::ReportUnschedulable(const api::Pod& pod,
                                    const std::string& message) {
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
  api::Event event = client::PodWarningEvent(pod, "FailedScheduling", message,
                                             options_.scheduler_name);
  if (Status created = client_.CreateEvent(event); !created.ok()) {
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
          &informers_.taint_rules}) {
      while (!stopping_ &&
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
