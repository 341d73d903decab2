// DeviceTaintEvictionController: evicts the pods whose allocated devices
// carry a NoExecute taint their claim does not tolerate (KEP-5055, upstream's
// pkg/controller/devicetainteviction), and reports progress in the
// EvictionInProgress condition of each DeviceTaintRule.
//
// A device's taints are those its ResourceSlice publishes plus the taint of
// every DeviceTaintRule whose selector matches it (matching as
// allocator::SlicePatcher does). As upstream's claimEvictionTime, only the
// tolerations of the allocation result with effect NoExecute that match the
// taint (key/operator/value as upstream's DeviceToleration.ToleratesTaint)
// count; a toleration with an empty effect, which the allocator accepts for
// any taint, does not delay eviction. Among the counted tolerations one
// without tolerationSeconds tolerates for ever; otherwise the smallest
// tolerationSeconds (negative: 0) evicts that many seconds after the
// taint's timeAdded (the controller's first sight of the taint when
// timeAdded is unset). An untolerated NoExecute taint evicts at once.
//
// Eviction as upstream: the pod gets the condition DisruptionTarget=True
// (reason DeletionByDeviceTaintManager, message "Device Taint manager:
// deleting due to NoExecute taint"), a Normal event DeviceTaintManagerEviction
// "Marking for deletion" from component device-taint-eviction-controller,
// then is deleted with a uid precondition. A delayed eviction that is no
// longer needed while the pod stays (the taint is gone or tolerated, the
// claim was deallocated) gets the Normal event DeviceTaintManagerEviction
// "Cancelling deletion"; a pod that is deleted or finishes gets none.
//
// Rule status as upstream's maybeUpdateRuleStatus: every change to the
// condition bumps its lastTransitionTime, and a rule whose condition has the
// rule's generation is not rewritten until `rule_status_period` after that
// time (so a burst of evictions costs one write per period, and the final
// Completed comes at most one period late). Each successful eviction caused
// by a rule also asks for a status recheck one period later. The write is a
// full UpdateStatus: the client layer offers no server-side apply or patch
// of a status subresource (upstream applies just this condition).
//
// One worker thread. Informer handlers only mark the state dirty; the worker
// re-plans from the caches and sleeps until the next change or the earliest
// time a round is due (a pending eviction, the end of a rule's status
// window, a status recheck), capped by `max_wait`, so delayed work needs no
// timer and Stop() ends any wait at once.
#ifndef DRALLOC_CONTROLLER_DEVICE_TAINT_EVICTION_CONTROLLER_H_
#define DRALLOC_CONTROLLER_DEVICE_TAINT_EVICTION_CONTROLLER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "allocator/slice_patcher.h"
#include "api/types/core.h"
#include "api/types/device_taint_rule.h"
#include "api/types/resource_claim.h"
#include "api/types/resource_slice.h"
#include "client/api_client.h"
#include "client/informer.h"
#include "common/clock.h"
#include "common/mutex.h"

namespace dralloc::controller {

// Event source and log component, upstream's controller name
// (names.DeviceTaintEvictionController).
inline constexpr std::string_view kDeviceTaintEvictionComponent =
    "device-taint-eviction-controller";
inline constexpr std::string_view kEvictionInProgress = "EvictionInProgress";

// The cluster state one plan is made from.
struct TaintEvictionInputs {
  std::vector<const api::Pod*> pods;
  std::vector<const api::ResourceClaim*> claims;
  std::vector<const api::ResourceSlice*> slices;
  std::vector<const api::DeviceTaintRule*> rules;
  allocator::ClassLookup classes = [](std::string_view) {
    return static_cast<const api::DeviceClass*>(nullptr);
  };
  SystemTime now;
  // When a taint without timeAdded was first seen; `now` if not given.
  std::function<SystemTime(const api::DeviceTaint&)> first_seen;
};

// A pod that must go, and when.
struct PlannedEviction {
  const api::Pod* pod = nullptr;
  SystemTime evict_at;
  // Names of the DeviceTaintRules whose taints cause the eviction (at the
  // earliest time); empty when only slice taints do.
  std::vector<std::string> rules;
};

// Every non-terminating, bound pod with an untolerated NoExecute taint on
// one of its allocated devices, in input order.
std::vector<PlannedEviction> PlanDeviceTaintEvictions(
    const TaintEvictionInputs& inputs);

// What a rule's EvictionInProgress condition reports.
struct RuleEvictionCounts {
  int64_t pending_pods = 0;  // awaiting eviction because of the rule
  int64_t pending_namespaces = 0;
  int64_t evicted_pods = 0;  // since the controller started
  // Effect None only: what the rule selects, and the pending counts above
  // as they would be with effect NoExecute.
  int64_t published_devices = 0;
  int64_t allocated_devices = 0;
};

// The counts of a rule with effect None, simulated as if it were NoExecute
// (evicted_pods is left 0).
RuleEvictionCounts SimulateNoExecute(const TaintEvictionInputs& inputs,
                                     const api::DeviceTaintRule& rule);

// The EvictionInProgress condition upstream writes for `rule`;
// last_transition_time is left empty.
api::Condition RuleEvictionCondition(const api::DeviceTaintRule& rule,
                                     const RuleEvictionCounts& counts);

struct DeviceTaintEvictionOptions {
  // Longest sleep between re-plans without any change.
  std::chrono::milliseconds max_wait{30'000};
  // Shortest time between two writes of a rule's EvictionInProgress
  // condition at one generation (upstream's ruleStatusPeriod), and the delay
  // of the status recheck after an eviction.
  std::chrono::milliseconds rule_status_period{10'000};
};

struct DeviceTaintEvictionMetrics {
  uint64_t pods_evicted = 0;
  uint64_t eviction_errors = 0;
  uint64_t evictions_cancelled = 0;  // "Cancelling deletion" events
  uint64_t rule_status_updates = 0;
  uint64_t rounds = 0;
};

class DeviceTaintEvictionController {
 public:
  // Informers are not pumped before construction (handlers are added).
  DeviceTaintEvictionController(client::ApiClient& client,
                                client::Informer& pods,
                                client::Informer& claims,
                                client::Informer& slices,
                                client::Informer& rules,
                                client::Informer& classes,
                                DeviceTaintEvictionOptions options = {});
  ~DeviceTaintEvictionController();

  // One round at `now`: cancels the delayed evictions no longer needed,
  // evicts the due pods, updates rule conditions (stamped `now`). Returns
  // when the next round is due: the earliest pending eviction, end of a
  // rule's status window or status recheck (nullopt: none).
  std::optional<SystemTime> RunOnce(SystemTime now) EXCLUDES(mu_);
  void Start();
  void Stop();
  DeviceTaintEvictionMetrics metrics() const EXCLUDES(mu_);
  // Whether pod and claim changes start a round: after a round that saw no
  // DeviceTaintRule, no NoExecute slice taint and no pending eviction they
  // cannot change anything, and only slice, rule and class changes do.
  bool PodChangesMatter() const {
    return pods_matter_.load(std::memory_order_relaxed);
  }

 private:
  void MarkDirty() EXCLUDES(mu_);
  void Loop() EXCLUDES(mu_);
  // Evicts the pod `cached` names if the API still has it, not deleting.
  // True when this call deleted the pod; false when it was gone, replaced
  // or already being deleted.
  StatusOr<bool> Evict(const api::Pod& cached);
  // Sets DisruptionTarget=True as upstream (no write when already so).
  Status MarkDisruptionTarget(const api::Pod& pod);
  // Sends "Cancelling deletion" for each pod whose eviction a previous round
  // left pending and `plans` no longer holds, while the pod (same uid) is
  // still in the cache, not terminating and not finished.
  void CancelDroppedEvictions(const TaintEvictionInputs& inputs,
                              const std::vector<PlannedEviction>& plans)
      EXCLUDES(mu_);
  // Writes the rule conditions that changed, except within a rule's status
  // window; returns when the earliest skipped window ends.
  std::optional<SystemTime> UpdateRuleStatuses(
      const TaintEvictionInputs& inputs,
      const std::vector<PlannedEviction>& pending, SystemTime now)
      EXCLUDES(mu_);
  RuleEvictionCounts CountsFor(const TaintEvictionInputs& inputs,
                               const api::DeviceTaintRule& rule,
                               const std::vector<PlannedEviction>& pending)
      EXCLUDES(mu_);
  SystemTime FirstSeen(const api::DeviceTaint& taint) EXCLUDES(mu_);

  client::ApiClient& client_;
  client::Informer& pods_;
  client::Informer& claims_;
  client::Informer& slices_;
  client::Informer& rules_;
  client::Informer& classes_;
  DeviceTaintEvictionOptions options_;

  mutable Mutex mu_;
  CondVar wake_;
  bool dirty_ GUARDED_BY(mu_) = true;
  // Whether pod and claim changes can matter: some rule, NoExecute slice
  // taint or pending eviction existed at the end of the last round.
  std::atomic<bool> pods_matter_{true};
  bool stopping_ GUARDED_BY(mu_) = false;
  // rule uid → pods evicted because of it since the controller started.
  std::map<std::string, int64_t> evicted_by_rule_ GUARDED_BY(mu_);
  // rule uid → when its status is rechecked after an eviction.
  std::map<std::string, SystemTime> status_recheck_ GUARDED_BY(mu_);
  // "namespace/name" → uid of each pod whose eviction the last round left
  // pending (not yet due, or failed).
  std::map<std::string, std::string> scheduled_ GUARDED_BY(mu_);
  // "key=value:effect" → when a taint without timeAdded was first seen.
  std::map<std::string, SystemTime> first_seen_ GUARDED_BY(mu_);
  DeviceTaintEvictionMetrics metrics_ GUARDED_BY(mu_);
  std::thread worker_;
};

}  // namespace dralloc::controller

#endif  // DRALLOC_CONTROLLER_DEVICE_TAINT_EVICTION_CONTROLLER_H_
