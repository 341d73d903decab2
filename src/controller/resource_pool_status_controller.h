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
// Counting, per pool of the requested driver (and pool name, if given), at
// the pool's newest generation only (slices of older generations are
// ignored):
// - a pool whose newest generation has fewer slices than its
//   resourceSliceCount gets a validationError ("PoolIncomplete: ...") and no
//   counts;
// - totalDevices: devices of those slices; allocatedDevices: distinct
//   devices of the pool named by allocation results of any claim (adminAccess
//   results observe, they do not consume, and are skipped);
//   unavailableDevices: devices carrying a NoSchedule or NoExecute taint,
//   in the slice or from a DeviceTaintRule selecting them (as upstream, a
//   tainted device counts here whether or not it is allocated);
//   availableDevices = max(0, total - allocated - unavailable);
// - nodeName when every slice of the pool names the same node;
// - shareableSummary when the pool has allowMultipleAllocations devices:
//   how many are untouched, how many are shared but have capacity left, and
//   per capacity name the total, consumed and available amounts.
// - partitionSummary when counter-consuming devices have a grouping
//   attribute (their slice's partitionTypeAttribute, else the request's
//   defaultPartitionTypeAttribute): per (attribute, string value) the
//   device count and how many free ones still fit, one after another, into
//   the shared counters the allocated devices leave. A device without the
//   string attribute, a pool without shared counters (PartitionTypeMissing)
//   or one type at two costs (PartitionCostMismatch) gives a validationError
//   instead, next to the counts.
// Pools are sorted by driver then pool name; status.poolCount counts all of
// them, status.pools holds the first spec.limit (default 100).
#ifndef DRALLOC_CONTROLLER_RESOURCE_POOL_STATUS_CONTROLLER_H_
#define DRALLOC_CONTROLLER_RESOURCE_POOL_STATUS_CONTROLLER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "api/types/device_taint_rule.h"
#include "api/types/resource_claim.h"
#include "api/types/resource_pool_status_request.h"
#include "api/types/resource_slice.h"
#include "client/api_client.h"
#include "client/informer.h"
#include "client/work_queue.h"
#include "common/mutex.h"
#include "common/string_hash.h"

namespace dralloc::controller {

struct ResourcePoolStatusControllerOptions {
  // Attempts per request before a failing status write waits for the next
  // change of the request.
  int max_retries = 5;
};

struct ResourcePoolStatusControllerMetrics {
  uint64_t syncs = 0;           // request keys processed
  uint64_t status_updates = 0;  // statuses written
  uint64_t sync_errors = 0;
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

  // Processes one queued request, waiting up to `wait` for one; false when
  // there was none.
  bool ProcessOne(std::chrono::milliseconds wait = std::chrono::milliseconds(0))
      EXCLUDES(mu_);
  void Start();
  void Stop();
  bool Idle() const { return queue_.Idle(); }
  ResourcePoolStatusControllerMetrics metrics() const EXCLUDES(mu_);

  // The status answering `spec` given `inputs`; `now` is the
  // lastTransitionTime of its Complete condition.
  static api::ResourcePoolStatusRequestStatus ComputeStatus(
      const api::ResourcePoolStatusRequestSpec& spec,
      const PoolStatusInputs& inputs, const api::Time& now);

 private:
  void OnRequest(const client::ObjectPtr& now);
  Status Sync(const std::string& name);

  client::ApiClient& client_;
  client::Informer& requests_;
  client::Informer& slices_;
  client::Informer& claims_;
  client::Informer& taint_rules_;
  ResourcePoolStatusControllerOptions options_;
  client::WorkQueue queue_;

  // mu_ guards failures_ and metrics_; never held across an API call.
  mutable Mutex mu_;
  StringKeyedMap<int> failures_ GUARDED_BY(mu_);
  ResourcePoolStatusControllerMetrics metrics_ GUARDED_BY(mu_);

  std::atomic<bool> stopping_{false};
  std::thread worker_;
};

}  // namespace dralloc::controller

#endif  // DRALLOC_CONTROLLER_RESOURCE_POOL_STATUS_CONTROLLER_H_
