// ClaimController: the ResourceClaim controller of KEP-3063/4381.
//
// - Creates a ResourceClaim for every pod.spec.resourceClaims entry with a
//   resourceClaimTemplateName (generateName "<pod>-<claim>-", controller
//   ownerReference to the pod, annotation
//   resource.kubernetes.io/pod-claim-name) and records it in
//   pod.status.resourceClaimStatuses. A claim is only ever adopted if the pod
//   owns it.
// - Removes reservedFor entries of pods that are gone, replaced (other uid)
//   or done; when the last one goes, deallocates the claim (clears
//   status.allocation) and drops the resource.kubernetes.io/delete-protection
//   finalizer; a deleting claim nobody uses is released the same way.
// - Deletes generated claims whose pod is done or gone.
// - Reserves allocated claims for pods bound to a node without the scheduler.
#ifndef DRALLOC_CONTROLLER_CLAIM_CONTROLLER_H_
#define DRALLOC_CONTROLLER_CLAIM_CONTROLLER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/well_known.h"
#include "client/api_client.h"
#include "client/informer.h"
#include "client/retry_queue.h"
#include "common/mutex.h"
#include "common/string_hash.h"

namespace dralloc::controller {

struct ClaimControllerMetrics {
  uint64_t create_attempts = 0;
  uint64_t create_failures = 0;
  uint64_t reservations_removed = 0;
  uint64_t deallocations = 0;
  uint64_t claims_deleted = 0;
  uint64_t sync_errors = 0;
  uint64_t syncs = 0;  // pod and claim keys processed
};

// The resource.k8s.io/v1alpha2 (classic DRA) informers, when the classic
// family is on: pods' template entries may name a v1alpha2 template, whose
// claims are v1alpha2 claims (docs/classic-dra.md, section 6).
struct ClassicClaimInformers {
  client::Informer* claims = nullptr;
  client::Informer* templates = nullptr;
};

struct ClaimControllerOptions {
  // Worker threads for Start().
  int workers = 4;
  // Requeues of a failing key, each after client-go's backoff
  // (client/retry_queue.h), before it waits for its next change.
  int max_retries = 5;
};

class ClaimController {
 public:
  // The informers must not be pumped before the controller is constructed
  // (it registers handlers).
  ClaimController(client::ApiClient& client, client::Informer& pods,
                  client::Informer& claims, client::Informer& templates,
                  ClaimControllerOptions options = {},
                  ClassicClaimInformers classic = {});
  ~ClaimController();

  // Processes one queued key, waiting up to `wait` for one; false when
  // there was none.
  bool ProcessOne(std::chrono::milliseconds wait = std::chrono::milliseconds(0))
      EXCLUDES(mu_);
  void Start();
  void Stop();
  // Nothing queued or in progress.
  bool Idle() const { return queue_.Idle(); }
  ClaimControllerMetrics metrics() const EXCLUDES(mu_);

 private:
  void OnPod(const client::ObjectPtr& old, const client::ObjectPtr& now);
  void OnClaim(const client::ObjectPtr& old, const client::ObjectPtr& now)
      EXCLUDES(mu_);
  // Whether SyncPod / SyncClaim may have work for it, judged from the caches
  // (the handlers queue nothing else).
  bool PodNeedsSync(const api::Pod& pod) const;
  bool ClaimNeedsSync(const api::ResourceClaim& claim) const;
  void OnTemplate(const client::ObjectPtr& old, const client::ObjectPtr& now);
  // Indexes a generated claim (either family) by its owning pod.
  void IndexOwnedClaim(const api::ObjectMeta& claim, bool added) EXCLUDES(mu_);
  // Whether a pod consumer `ref` (pods only) is gone or done, from the cache.
  bool ConsumerGone(const std::string& namespace_, std::string_view resource,
                    std::string_view api_group, std::string_view name,
                    std::string_view uid) const;

  // resource.k8s.io/v1alpha2 claims: the consumers that are gone are
  // released as Kubernetes 1.30 did (controller/classic).
  void OnClassicClaim(const client::ObjectPtr& old,
                      const client::ObjectPtr& now) EXCLUDES(mu_);
  bool ClassicClaimNeedsSync(const api::v1alpha2::ResourceClaim& claim) const;
  Status SyncClassicClaim(const std::string& key) EXCLUDES(mu_);

  Status Sync(const std::string& key);
  Status SyncPod(const std::string& key);
  Status SyncClaim(const std::string& key) EXCLUDES(mu_);
  // Deletes a claim of `resource` generated for a pod that is gone or
  // finished.
  Status DeleteIfOrphaned(const api::ObjectMeta& claim,
                          const api::ResourceInfo& resource) EXCLUDES(mu_);
  // The claim to generate for the pod's template entry `entry`, of the
  // family of the template it names; nullopt while no such template is
  // known.
  std::optional<api::Object> ClaimFromTemplate(
      const api::Pod& pod, const api::PodResourceClaim& entry) const;
  // Creates (or finds) the claims of the pod's template entries and
  // records them in its status.
  Status EnsureGeneratedClaims(const api::Pod& pod) EXCLUDES(mu_);
  Status ReserveForBoundPod(const api::Pod& pod);
  // Writes `claim`'s status and replaces it with what the server stored.
  Status WriteStatus(api::ResourceClaim& claim);
  // True if the consumer pod still needs the claim (asks the server when
  // the cache does not know the pod).
  bool PodStillUses(std::string_view namespace_, std::string_view name,
                    std::string_view uid);
  // The claim (in the pod's namespace) owned by `pod_uid` for pod claim
  // `pod_claim`, if one is known.
  std::string OwnedClaimName(const std::string& pod_uid,
                             std::string_view pod_claim) const EXCLUDES(mu_);

  client::ApiClient& client_;
  client::Informer& pods_;
  client::Informer& claims_;
  client::Informer& templates_;
  ClaimControllerOptions options_;
  ClassicClaimInformers classic_;
  client::RetryQueue queue_;

  // mu_ guards owned_ and metrics_ (the workers share them);
  // it is never held across an API call.
  mutable Mutex mu_;
  // pod uid → (pod claim name → claim name), from claims' owner references
  // and annotations, and from claims this controller created.
  std::unordered_map<std::string, std::unordered_map<std::string, std::string>>
      owned_ GUARDED_BY(mu_);
  ClaimControllerMetrics metrics_ GUARDED_BY(mu_);

  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
};

// True for pods that will not run (again): phase Succeeded or Failed, or
// deleted before they were scheduled.
bool PodIsDone(const api::Pod& pod);

}  // namespace dralloc::controller

#endif  // DRALLOC_CONTROLLER_CLAIM_CONTROLLER_H_
