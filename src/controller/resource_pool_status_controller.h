// ResourcePoolStatusController: answers ResourcePoolStatusRequests
// (KEP-5677), as upstream's pkg/controller/resourcepoolstatusrequest.
//
// A request without a status is answered once: the controller reads the
// current ResourceSlices, ResourceClaims and DeviceTaintRules from its
// informers, computes the status (ComputeStatus) and writes it through the
// status subresource. A request that has a status is never looked at again
// (the server keeps it immutable); users recreate a request for a newer
// snapshot.
//
// Retries, as upstream's rate-limited work queue (client/retry_queue.h):
// - While a listed pool is incomplete (its newest generation has fewer
//   slices than its resourceSliceCount: the driver is still publishing),
//   nothing is written; the request is requeued instead.
// - A failed status write is requeued the same way.
// - The n-th requeue (n = 0, 1, ...) waits retry_base_delay * 2^n (5, 10,
//   20, 40, 80 ms by default). After max_retries requeues the request is
//   dropped and stays pending until its next update event (a label change,
//   say) queues it again with a fresh budget; slice, claim and taint rule
//   changes queue nothing. A request that is never answered is removed by
//   the pending TTL below.
// - Views that cannot be computed (PartitionTypeMissing,
//   PartitionCostMismatch, PartitionSummaryOverCap, ShareableSummaryOverCap)
//   are permanent: they are written as the pool's validationError.
//
// TTL sweeper: every sweep_period (and once when the worker starts) the
// controller deletes, with a uid precondition, every request whose first
// Complete or Failed condition changed more than finished_request_ttl ago
// (its creation, if it has a status without either), and every request
// without a status created more than pending_request_ttl ago. Upstream has
// no API field for these; it hard-codes 10 min, 1 h and 24 h, the defaults
// here.
//
// Upstream also writes a Failed condition (reason CalculationFailed,
// poolCount 0) when listing slices, claims or taint rules fails. dralloc
// has no such path: it lists informer caches, which cannot fail, and its
// worker answers nothing before every cache has its first list (upstream
// waits for its caches the same way). Failed conditions written by other
// controllers are still honoured by the sweeper.
//
// Counting, per pool of the requested driver (and pool name, if given), at
// the pool's newest generation only (slices of older generations are
// ignored). Slices are taken in name order, so the answer does not depend
// on the order of the informer cache:
// - a pool whose newest generation has fewer slices than its
//   resourceSliceCount (as the first slice of that generation states it,
//   as upstream) gets a validationError ("PoolIncomplete: ...") and no
//   counts (ComputeStatus reports it; the controller does not write it, see
//   above);
// - totalDevices: devices of those slices; allocatedDevices: distinct
//   devices of the pool named by allocation results of any claim (adminAccess
//   results observe, they do not consume, and are skipped);
//   unavailableDevices: devices carrying a NoSchedule or NoExecute taint,
//   in the slice or from a DeviceTaintRule selecting them (as upstream, a
//   tainted device counts here whether or not it is allocated);
//   availableDevices = max(0, total - allocated - unavailable);
// - nodeName when every slice of the pool names the same node;
// - shareableSummary when the pool has allowMultipleAllocations devices, as
//   upstream: fullyAvailableDevices = those no claim uses,
//   partiallyAvailableDevices = those some claim uses (whatever is left);
//   per capacity name of those devices the total, the consumedCapacity of
//   every non-adminAccess result in the pool, and max(0, total - consumed).
//   More than 32 capacity names gives ShareableSummaryOverCap instead.
// - partitionSummary, as upstream's newest views. A device's grouping
//   attribute is its slice's partitionTypeAttribute; the request's
//   defaultPartitionTypeAttribute applies to all devices only when no
//   device of the pool has one that way (once one slice declares, devices
//   of undeclared slices stay ungrouped). With any grouped device, in this
//   order: a pool without sharedCounters gets "PartitionTypeMissing: pool
//   <driver>/<pool> declares partitionTypeAttribute but publishes no
//   sharedCounters"; then, over the counter-consuming grouped devices in
//   pool order, one without its attribute as a string gets
//   "PartitionTypeMissing: device "<device>" in pool <driver>/<pool> does
//   not carry partition type attribute "<attribute>"", and one whose cost
//   (set/counter=amount terms, counter set names included, so partitions
//   of two GPUs differ) is not that of the first of its type gets
//   "PartitionCostMismatch: devices of partition type "<type>" in pool
//   <driver>/<pool> consume different counters" (quoted as Go's %q); then
//   more than 32 types gives PartitionSummaryOverCap. Otherwise, per
//   (attribute, string value): the device count and how many free ones
//   still fit, one after another, into the shared counters the allocated
//   devices leave. A counter the shared sets lack fits nothing, not even
//   at zero cost, and is never created when deducting. The counts stay
//   next to any error.
// - The first view error is the validationError (partition errors before
//   the shareable one); any view error drops partitionSummary, and
//   shareableSummary is dropped only by its own error.
// Pools are sorted by driver then pool name; status.poolCount counts all of
// them, status.pools holds the first spec.limit (default 100). The Complete
// condition's message is "Calculated status for N pools", with
// " (M incomplete)" when M listed pools carry a validationError.
#ifndef DRALLOC_CONTROLLER_RESOURCE_POOL_STATUS_CONTROLLER_H_
#define DRALLOC_CONTROLLER_RESOURCE_POOL_STATUS_CONTROLLER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/types/device_taint_rule.h"
#include "api/types/resource_claim.h"
#include "api/types/resource_pool_status_request.h"
#include "api/types/resource_slice.h"
#include "client/api_client.h"
#include "client/informer.h"
#include "client/retry_queue.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "common/string_hash.h"

namespace dralloc::controller {

// The most entries a pool's partitionSummary or shareableSummary.capacity
// may have (+k8s:maxItems=32 upstream); a pool with more gets a
// validationError instead of a cut list.
inline constexpr size_t kMaxPoolStatusListItems = 32;

struct ResourcePoolStatusControllerOptions {
  // Requeues of a request whose answer could not be written (incomplete
  // pools, a failed write) before it is dropped until its next update
  // (upstream's maxRetries).
  int max_retries = 5;
  // Requeue n (n = 0, 1, ...) waits retry_base_delay * 2^n, at most
  // retry_max_delay: the per-item part of client-go's default controller
  // rate limiter (its overall 10 qps bucket is not modelled).
  std::chrono::milliseconds retry_base_delay{5};
  std::chrono::milliseconds retry_max_delay{std::chrono::seconds(1000)};
  // The TTL sweeper: how often it runs, how long a request with a Complete
  // or Failed condition is kept after that condition's lastTransitionTime,
  // and how long a request without a status is kept after its creation.
  std::chrono::milliseconds sweep_period{std::chrono::minutes(10)};
  std::chrono::milliseconds finished_request_ttl{std::chrono::hours(1)};
  std::chrono::milliseconds pending_request_ttl{std::chrono::hours(24)};
  // The time for retry deadlines, TTLs, sweeps and condition timestamps;
  // tests substitute their own.
  std::function<SystemTime()> clock = [] {
    return std::chrono::system_clock::now();
  };
};

struct ResourcePoolStatusControllerMetrics {
  uint64_t syncs = 0;             // request keys processed
  uint64_t status_updates = 0;    // statuses written
  uint64_t sync_errors = 0;       // syncs that wrote nothing and failed
  uint64_t incomplete_syncs = 0;  // of those: incomplete pools found
  uint64_t requeues = 0;          // rate-limited requeues
  uint64_t dropped = 0;           // requests dropped after max_retries
  uint64_t sweeps = 0;            // TTL sweeps run
  uint64_t requests_deleted = 0;  // requests the TTL sweeper deleted
};

// What ComputeStatus reads: the current objects of the cluster.
struct PoolStatusInputs {
  std::vector<const api::ResourceSlice*> slices;
  std::vector<const api::ResourceClaim*> claims;
  std::vector<const api::DeviceTaintRule*> taint_rules;
};

class ResourcePoolStatusController {
 public:
  // `requests`, `slices`, `claims` and `taint_rules` inform on all
  // ResourcePoolStatusRequests, ResourceSlices, ResourceClaims and
  // DeviceTaintRules. They must not be pumped before the controller is
  // constructed (it registers a handler on `requests`).
  ResourcePoolStatusController(
      client::ApiClient& client, client::Informer& requests,
      client::Informer& slices, client::Informer& claims,
      client::Informer& taint_rules,
      ResourcePoolStatusControllerOptions options = {});
  ~ResourcePoolStatusController();

  // Queues the requests whose retry is due (by options.clock), then
  // processes one queued request, waiting up to `wait` (less when a retry
  // falls due sooner) for one; false when there was none.
  bool ProcessOne(std::chrono::milliseconds wait = std::chrono::milliseconds(0))
      EXCLUDES(mu_);
  // Deletes the requests whose TTL has passed (by options.clock), each with
  // a uid precondition; returns how many this call deleted. Requests that
  // are gone already or were replaced are skipped.
  size_t SweepExpired() EXCLUDES(mu_);
  // One worker thread: waits for the informers' first lists, then sweeps
  // every sweep_period and processes requests until Stop().
  void Start();
  void Stop();
  // Nothing queued, being processed or waiting for a retry.
  bool Idle() const EXCLUDES(mu_);
  // Requests waiting for their retry to fall due.
  size_t PendingRetries() const EXCLUDES(mu_);
  ResourcePoolStatusControllerMetrics metrics() const EXCLUDES(mu_);

  // The status answering `spec` given `inputs`; `now` is the
  // lastTransitionTime of its Complete condition. Incomplete pools are
  // included with their PoolIncomplete validationError; see
  // HasIncompletePool.
  static api::ResourcePoolStatusRequestStatus ComputeStatus(
      const api::ResourcePoolStatusRequestSpec& spec,
      const PoolStatusInputs& inputs, const api::Time& now);
  // Whether a listed pool of `status` is still incomplete, so that the
  // status must not be written yet.
  static bool HasIncompletePool(
      const api::ResourcePoolStatusRequestStatus& status);
  // Whether the TTL sweeper deletes `request` at `now`. A missing or
  // unreadable timestamp never expires.
  static bool RequestExpired(
      const api::ResourcePoolStatusRequest& request, SystemTime now,
      const ResourcePoolStatusControllerOptions& options);

 private:
  void OnRequest(const client::ObjectPtr& now);
  Status Sync(const std::string& name) EXCLUDES(mu_);
  void Loop();

  client::ApiClient& client_;
  client::Informer& requests_;
  client::Informer& slices_;
  client::Informer& claims_;
  client::Informer& taint_rules_;
  ResourcePoolStatusControllerOptions options_;
  client::RetryQueue queue_;

  // mu_ guards metrics_; never held across an API call.
  mutable Mutex mu_;
  ResourcePoolStatusControllerMetrics metrics_ GUARDED_BY(mu_);

  std::atomic<bool> stopping_{false};
  std::thread worker_;
};

}  // namespace dralloc::controller

#endif  // DRALLOC_CONTROLLER_RESOURCE_POOL_STATUS_CONTROLLER_H_
