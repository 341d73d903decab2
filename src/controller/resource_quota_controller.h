// ResourceQuotaController: keeps the status of every ResourceQuota current,
// as upstream's pkg/controller/resourcequota does for the resources this
// server evaluates (ResourceClaims, quota/resource_claim_evaluator.h, and
// Pods, quota/pod_evaluator.h): status.hard = spec.hard, and status.used
// recomputed from the claims and pods of the quota's namespace for every
// resource in hard either evaluator charges (0 when none; a resource both
// charge is the sum). Claims match only quotas without scopes; pods match
// when every scope does. Used values of other resources are kept as they
// are.
//
// A quota is synced when it is created, when its spec.hard differs from
// status.hard (an edit), when a claim or pod of its namespace is deleted or
// a pod stops being charged (it succeeded or failed), which releases usage
// the admission charged, and on every full resync (ResyncAll, run every
// `resync_period` by Start; it also catches pods whose deletion grace period
// ran out). Creates are charged by the admission
// (apiserver/resource_quota_admission.h), not here.
#ifndef DRALLOC_CONTROLLER_RESOURCE_QUOTA_CONTROLLER_H_
#define DRALLOC_CONTROLLER_RESOURCE_QUOTA_CONTROLLER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "api/types/resource_quota.h"
#include "client/api_client.h"
#include "client/informer.h"
#include "client/retry_queue.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "common/string_hash.h"
#include "quota/resource_claim_evaluator.h"

namespace dralloc::controller {

struct ResourceQuotaControllerOptions {
  // Worker threads for Start().
  int workers = 1;
  // How often Start()'s workers queue every quota again (upstream's
  // --resource-quota-sync-period, 5m); zero disables the periodic resync.
  std::chrono::milliseconds resync_period = std::chrono::minutes(5);
  // Requeues of a failing quota, each after client-go's backoff
  // (client/retry_queue.h), before it waits for its next change.
  int max_retries = 5;
};

struct ResourceQuotaControllerMetrics {
  uint64_t syncs = 0;           // quota keys processed
  uint64_t status_updates = 0;  // status writes that succeeded
  uint64_t sync_errors = 0;
};

class ResourceQuotaController {
 public:
  // `quotas` and `claims` inform on ResourceQuotas and ResourceClaims (all
  // namespaces); `classes`, when given, on DeviceClasses, whose
  // extendedResourceName claims are charged under too (KEP-5004); `pods`,
  // when given, on Pods (without it, pod resources keep what was recorded);
  // `classic_claims`, when given, on classic (resource.k8s.io/v1alpha2)
  // ResourceClaims, which count under count/resourceclaims.resource.k8s.io
  // too (they name no DeviceClass, so they cost nothing per class).
  // They must not be pumped before the controller is constructed (it
  // registers handlers).
  ResourceQuotaController(client::ApiClient& client, client::Informer& quotas,
                          client::Informer& claims,
                          ResourceQuotaControllerOptions options = {},
                          client::Informer* classes = nullptr,
                          client::Informer* pods = nullptr,
                          client::Informer* classic_claims = nullptr);
  ~ResourceQuotaController();

  // Processes one queued quota, waiting up to `wait` for one; false when
  // there was none.
  bool ProcessOne(std::chrono::milliseconds wait = std::chrono::milliseconds(0))
      EXCLUDES(mu_);
  // Queues every known quota (the periodic full resync).
  void ResyncAll();
  void Start();
  void Stop();
  // Nothing queued or in progress.
  bool Idle() const { return queue_.Idle(); }
  ResourceQuotaControllerMetrics metrics() const EXCLUDES(mu_);

  // What a quota's usage is computed from: the objects of its namespace.
  struct NamespaceObjects {
    std::vector<const api::ResourceClaim*> claims;
    // Classic (v1alpha2) claims of the namespace: each counts one claim.
    int64_t classic_claims = 0;
    // Null: pods are not evaluated (their resources keep what was recorded).
    const std::vector<const api::Pod*>* pods = nullptr;
    quota::ResourceClaimEvaluator::ExtendedNameOf extended_name_of;
    // Which extended resource names some DeviceClass maps (the claim
    // evaluator charges only those).
    quota::ResourceClaimEvaluator::IsMapped is_mapped;
    SystemTime now = std::chrono::system_clock::now();
  };
  // The status `quota` should have given the objects of its namespace.
  static api::ResourceQuotaStatus DesiredStatus(
      const api::ResourceQuota& quota, const NamespaceObjects& objects);

 private:
  void OnQuota(const client::ObjectPtr& old, const client::ObjectPtr& now);
  void OnClaim(const client::ObjectPtr& old, const client::ObjectPtr& now);
  void OnPod(const client::ObjectPtr& old, const client::ObjectPtr& now);
  // DeviceClass → spec.extendedResourceName, from `classes_`.
  quota::ResourceClaimEvaluator::ExtendedNameOf ExtendedNameOf() const;
  // The device class mapping of `classes_` (maps nothing without it).
  quota::ResourceClaimEvaluator::IsMapped IsMapped() const;
  // Queues every quota of `namespace_`.
  void QueueNamespace(const std::string& namespace_);
  Status Sync(const std::string& key);
  void RunWorker(bool resyncs);

  client::ApiClient& client_;
  client::Informer& quotas_;
  client::Informer& claims_;
  client::Informer* classes_;  // null: no class names an extended resource
  client::Informer* pods_;     // null: pods are not evaluated
  client::Informer* classic_claims_;  // null: classic DRA is not served
  ResourceQuotaControllerOptions options_;
  client::RetryQueue queue_;

  // mu_ guards metrics_; never held across an API call.
  mutable Mutex mu_;
  ResourceQuotaControllerMetrics metrics_ GUARDED_BY(mu_);

  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
};

}  // namespace dralloc::controller

#endif  // DRALLOC_CONTROLLER_RESOURCE_QUOTA_CONTROLLER_H_
