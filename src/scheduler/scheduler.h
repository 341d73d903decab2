// Scheduler: places pods on nodes, allocating their ResourceClaims.
//
// One scheduling cycle per pod, like kube-scheduler with its
// DynamicResources plugin: PreFilter (the pod's claims exist, generated
// claims are the pod's, classes resolve), Filter per node (node name,
// taints, node affinity; allocated claims' node selectors; the structured
// allocator for unallocated claims), Score (KEP-4816 prioritized-list
// scoring, optional pack/spread device placement), Reserve (the allocation
// is assumed so the next pod cannot take the same devices), then PreBind
// (claim finalizer, status.allocation and reservedFor, with optimistic
// concurrency) and Bind (pods/binding) on binder threads; Unreserve on
// failure. Pods that do not fit get PodScheduled=False with the reasons
// per node and a FailedScheduling event, and wait until a change (claim,
// slice, class, node) could help, with exponential backoff.
#ifndef DRALLOC_SCHEDULER_SCHEDULER_H_
#define DRALLOC_SCHEDULER_SCHEDULER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "allocator/allocated_state.h"
#include "allocator/device_inventory.h"
#include "client/api_client.h"
#include "client/assume_cache.h"
#include "client/informer.h"
#include "common/string_hash.h"

namespace dralloc::scheduler {

// How to choose among nodes that fit equally well by upstream's scoring.
enum class Placement {
  kDefault,  // upstream-like: the first feasible node in rotating order
  kPack,     // prefer nodes whose devices are already most in use
  kSpread,   // prefer nodes whose devices are least in use
};

struct SchedulerOptions {
  std::string scheduler_name = "dralloc-scheduler";
  // Also schedule pods with no schedulerName or "default-scheduler" (for a
  // cluster without kube-scheduler, like `dralloc serve`).
  bool schedule_default_pods = true;
  Placement placement = Placement::kDefault;
  // Threads running PreBind + Bind; 0 binds inline in ScheduleOne.
  int binders = 4;
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{10000};
  // Allocator search budget per node.
  uint64_t max_steps = 2'000'000;
  // Evaluate every node instead of stopping at the first feasible one when
  // scores cannot differ (results then do not depend on the start node).
  bool evaluate_all_nodes = false;
};

struct SchedulerStats {
  uint64_t scheduled = 0;
  uint64_t unschedulable = 0;    // failed scheduling attempts
  uint64_t bind_failures = 0;    // PreBind/Bind failed (pod retried)
  uint64_t nodes_evaluated = 0;  // Filter calls
  uint64_t allocator_calls = 0;
  uint64_t deallocations = 0;  // PostFilter deallocations
};

struct SchedulerInformers {
  client::Informer& pods;
  client::Informer& nodes;
  client::Informer& claims;
  client::Informer& slices;
  client::Informer& classes;
  client::Informer& slice_patches;
  client::Informer& taint_rules;
};

class Scheduler {
 public:
  // Registers handlers: construct before the informers are pumped.
  Scheduler(client::ApiClient& client, SchedulerInformers informers,
            SchedulerOptions options = {});
  ~Scheduler();

  // Schedules the next pod of the queue, waiting up to `wait` for one.
  // False when there was none.
  bool ScheduleOne(
      std::chrono::milliseconds wait = std::chrono::milliseconds(0));
  // Runs the scheduling loop and the binders until Stop().
  void Start();
  void Stop();
  // Only the binders (SchedulerOptions::binders threads), for a caller that
  // runs the scheduling loop itself with ScheduleOne; Stop() ends them.
  void StartBinders();
  // Blocks until every binding handed to the binders has finished.
  void WaitForBinds();
  // Builds the device inventory and node list from the informers now rather
  // than in the first scheduling cycle.
  void WarmUp();
  // No pod is queued (active or backing off) and no binding is in flight.
  bool Idle() const;
  SchedulerStats stats();

  bool Responsible(const api::Pod& pod) const;

 private:
  struct NodeEntry {
    client::ObjectPtr object;
    const api::Node* node = nullptr;
    allocator::NodeInfo info;
  };
  struct ClaimWrite {
    std::string key;
    client::ObjectPtr base;     // the claim as scheduled against
    client::ObjectPtr assumed;  // with allocation and reservation
    bool allocate = false;      // base had no allocation
  };
  struct BindTask {
    client::ObjectPtr pod;
    std::string node;
    std::vector<ClaimWrite> claims;
  };
  struct Outcome;  // one cycle's result (scheduler.cc)

  // Informer handlers.
  void OnPod(const client::ObjectPtr& old, const client::ObjectPtr& now);
  void OnClaim(const client::ObjectPtr& old, const client::ObjectPtr& now);
  void OnDeviceSource(const client::ObjectPtr& old,
                      const client::ObjectPtr& now);
  void OnNode(const client::ObjectPtr& old, const client::ObjectPtr& now);

  // Queue (mu_ held).
  void Activate(const std::string& key);
  void MoveAllUnschedulable();
  void Forget(const std::string& key);
  std::optional<std::string> PopLocked();
  void RequeueAfterFailure(const std::string& key);

  // Cycle (mu_ held while choosing, released for writes).
  Outcome Cycle(const client::ObjectPtr& pod_object);
  void RefreshLocked();
  void Recount(const std::string& claim_key);
  void ReportUnschedulable(const api::Pod& pod, const std::string& message);
  Status Bind(const BindTask& task,
              std::vector<std::pair<std::string, int64_t>>& written);
  void Unreserve(const BindTask& task,
                 const std::vector<std::pair<std::string, int64_t>>& written);
  // A binding that succeeded, booked later by BookBoundLocked.
  struct BoundPod {
    std::string pod_key;
    std::vector<std::pair<std::string, int64_t>> written;  // claim, revision
  };
  void RunBindTask(BindTask task);
  // Confirms the claims the finished bindings wrote and counts their pods
  // (mu_ held).
  void BookBoundLocked();
  void BinderLoop();

  client::ApiClient& client_;
  SchedulerInformers informers_;
  SchedulerOptions options_;

  mutable std::mutex mu_;
  std::condition_variable queue_cv_;
  std::deque<std::string> active_;
  StringSet in_active_;
  std::multimap<std::chrono::steady_clock::time_point, std::string> backoff_;
  std::unordered_map<std::string, std::chrono::steady_clock::time_point>
      in_backoff_;
  StringSet unschedulable_;
  StringSet gated_;  // waiting for their claims
  // claim key → pods that found it missing.
  StringKeyedMap<std::vector<std::string>> waiting_for_claim_;
  StringKeyedMap<int> attempts_;
  StringSet binding_;
  StringKeyedMap<std::string> last_message_;

  client::AssumeCache claims_;
  allocator::DeviceInventory inventory_;
  allocator::AllocatedState allocated_;
  // The claim version whose allocation allocated_ counts, by claim key.
  StringKeyedMap<client::ObjectPtr> counted_;
  bool inventory_dirty_ = true;
  bool nodes_dirty_ = true;
  std::vector<NodeEntry> nodes_;
  size_t next_start_node_ = 0;
  SchedulerStats stats_;

  std::mutex bind_mu_;
  std::condition_variable bind_cv_;
  std::condition_variable binds_done_cv_;  // with bind_mu_
  std::deque<BindTask> bind_queue_;
  std::atomic<int> binds_in_flight_{0};
  std::mutex bound_mu_;  // taken after mu_, never before
  std::vector<BoundPod> bound_;

  std::atomic<bool> stopping_{false};
  std::thread loop_;
  std::vector<std::thread> binders_;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_SCHEDULER_H_
