// DraManager: prepares and unprepares the ResourceClaims of this node's pods
// through their drivers, the kubelet's DRA manager.
//
// Contract:
// - PrepareResources records nothing while a driver of the pod's claims is
//   not registered (as the kubelet: a recorded claim must be unprepared
//   before its pod can go). Then it records every claim of the pod with
//   the pod's UID in the checkpoint BEFORE any driver is called (drivers not
//   done are "preparing"), calls each driver once with all of the pod's claims
//   it has not prepared yet, then records what each driver returned. Claims
//   already prepared (shared with another pod) are only referenced.
// - UnprepareResources drops the pod from the claims other pods on this
//   node still use and unprepares the claims only it uses, one call per
//   driver. Such a claim leaves the checkpoint (with the pod) only when
//   every driver has unprepared it, so a failed or interrupted unprepare
//   is retried when the pod is synced again and never forgotten.
// - After a restart (kill -9 anywhere), and periodically while the agent
//   runs (the kubelet's reconcile), RemovePodsExcept(active pods) and
//   UnprepareUnused finish the job: claims of pods that are gone are
//   unprepared, claims of pods that still run are prepared again (driver
//   calls are idempotent) when their pod is synced.
// - Every checkpoint change is written (survives kill -9) before the next
//   step; PrepareResources returns OK only once its changes are also
//   durable (fdatasync, shared with concurrent callers), i.e. before any
//   container of the pod starts.
// Thread-safe: operations on different claims run in parallel (each holds
// its claims' ClaimLocks across the driver calls); operations on the same
// claim wait for each other.
#ifndef DRALLOC_NODE_DRA_MANAGER_H_
#define DRALLOC_NODE_DRA_MANAGER_H_

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/claim_locks.h"
#include "common/status.h"
#include "node/claim_info_cache.h"
#include "node/dra_plugin_client.h"
#include "node/node_claim.h"

namespace dralloc::node {

class DraManager {
 public:
  // The client of a registered driver (DraPluginManager::GetClient).
  using ClientLookup =
      std::function<StatusOr<std::shared_ptr<const DraPluginClient>>(
          std::string_view driver)>;

  DraManager(ClaimInfoCache& cache, ClientLookup clients);

  // Prepares `claims` (allocated, reserved for the pod; of either API
  // family) for pod `pod_uid`. The error lists each claim that failed and
  // why.
  Status PrepareResources(const std::string& pod_uid,
                          const std::vector<NodeClaim>& claims);
  // The pod is gone (or going): see the contract above.
  Status UnprepareResources(const std::string& pod_uid);
  // Forgets every pod not in `active` (after a restart).
  Status RemovePodsExcept(const std::set<std::string>& active);
  // The same with the pods `active_pods()` returns, called under the
  // checkpoint's lock: a pod that records a claim after that call is
  // never forgotten by it (the periodic reconcile while pods prepare).
  Status RemoveInactivePods(
      const std::function<std::set<std::string>()>& active_pods);
  // Unprepares every claim no pod uses; the error lists what failed.
  Status UnprepareUnused();

  // The CDI device IDs of claim `claim_uid` for a container's `request`
  // ("" = the whole claim); kFailedPrecondition when it is not prepared.
  StatusOr<std::vector<std::string>> CdiDeviceIds(
      const std::string& claim_uid, const std::string& request) const;

  ClaimInfoCache& cache() { return cache_; }

 private:
  // One driver call's worth of claims: driver → claims.
  using Batches = std::map<std::string, std::vector<DraClaimRef>>;
  // Unprepares those of `uids` that no pod uses (under their locks).
  Status UnprepareClaims(std::set<std::string> uids);
  // Unprepares those of `uids` (locked by the caller) that no pod but
  // `owner` ("" = none) uses; each leaves the checkpoint, owner and all,
  // once every driver has unprepared it.
  Status UnprepareLocked(const std::set<std::string>& uids,
                         const std::string& owner);
  // Calls each driver; returns per claim UID the first error.
  std::map<std::string, Status> RunPrepare(const Batches& batches);
  std::map<std::string, Status> RunUnprepare(const Batches& batches,
                                             const std::string& owner);

  ClaimInfoCache& cache_;
  const ClientLookup clients_;
  ClaimLocks locks_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_DRA_MANAGER_H_
