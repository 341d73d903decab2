// Controller: the control-plane controller library of classic DRA drivers
// (k8s.io/dynamic-resource-allocation/controller at Kubernetes 1.30): it
// watches the claims, classes and PodSchedulingContexts of its driver, asks
// the Driver for parameters, allocations, deallocations and unsuitable
// nodes, and writes the answers (docs/classic-dra.md, section 7):
//   - an Immediate claim of one of its classes is allocated at once, with no
//     node; a claim being deleted or with deallocationRequested is
//     deallocated; its finalizer "<driver>/deletion-protection" is on every
//     claim it allocated, added before Allocate and removed after
//     Deallocate;
//   - for a PodSchedulingContext the scheduler filled, it reports each
//     pending claim's unsuitable nodes in status.resourceClaims and, once
//     spec.selectedNode suits every claim, allocates them there and
//     reserves them for the pod. Each context is looked at again every
//     `recheck_delay` while it exists, and (beyond 1.30) whenever the
//     driver deallocated a claim.
// Queue keys are "claim:NS/NAME" and "schedulingCtx:NS/NAME"; failures are
// retried with client-go's backoff (client::RetryQueue).
#ifndef DRALLOC_CLASSICCONTROLLER_CONTROLLER_H_
#define DRALLOC_CLASSICCONTROLLER_CONTROLLER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "classiccontroller/driver.h"
#include "client/api_client.h"
#include "client/informer.h"
#include "client/retry_queue.h"
#include "common/mutex.h"

namespace dralloc::classiccontroller {

// The v1alpha2 informers of the driver (and the pods, for contexts).
struct ControllerInformers {
  client::Informer& claims;
  client::Informer& classes;
  client::Informer& scheduling_contexts;
  client::Informer& pods;
};

struct ControllerOptions {
  std::string driver_name;
  int workers = 4;
  std::chrono::milliseconds recheck_delay{std::chrono::seconds(30)};
  // 1.30's library retried without end; a key that fails this often in a
  // row waits for its next change.
  int max_retries = 15;
};

struct ControllerMetrics {
  uint64_t allocations = 0;    // claims allocated and written
  uint64_t deallocations = 0;  // claims deallocated
  uint64_t syncs = 0;
  uint64_t sync_errors = 0;
};

class Controller {
 public:
  // Registers handlers: the informers must not be pumped before.
  Controller(client::ApiClient& client, ControllerInformers informers,
             Driver& driver, ControllerOptions options);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Processes one queued key, waiting up to `wait`; false when none.
  bool ProcessOne(std::chrono::milliseconds wait = std::chrono::milliseconds(0))
      EXCLUDES(mu_);
  void Start();
  void Stop();
  // Nothing queued, in progress or waiting for a retry or recheck.
  bool Idle() const { return queue_.Idle(); }
  ControllerMetrics metrics() const EXCLUDES(mu_);

 private:
  Status Sync(const std::string& key);
  Status SyncClaim(const std::string& key);
  Status SyncSchedulingContext(const std::string& key);
  // Deallocates through the driver, then clears status and the finalizer.
  Status Deallocate(api::v1alpha2::ResourceClaim claim, bool clear_allocation,
                    bool clear_deallocation_requested);
  // The claim with its class and parameters, ready for the driver.
  StatusOr<ClaimAllocation> Prepare(const api::v1alpha2::ResourceClaim& claim,
                                    std::string pod_claim_name,
                                    std::vector<client::ObjectPtr>& held);
  // Adds the finalizer, allocates through the driver and writes each
  // allocation (reserved for `pod` when given).
  Status AllocateAndWrite(std::span<ClaimAllocation> claims,
                          std::string_view selected_node, const api::Pod* pod);
  void Count(uint64_t ControllerMetrics::*counter, uint64_t by = 1)
      EXCLUDES(mu_);

  client::ApiClient& client_;
  ControllerInformers informers_;
  Driver& driver_;
  const ControllerOptions options_;
  const std::string finalizer_;
  client::RetryQueue queue_;
  mutable Mutex mu_;
  ControllerMetrics metrics_ GUARDED_BY(mu_);
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
};

}  // namespace dralloc::classiccontroller

#endif  // DRALLOC_CLASSICCONTROLLER_CONTROLLER_H_
