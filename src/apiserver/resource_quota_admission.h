// ResourceQuotaAdmission: upstream's ResourceQuota admission
// (k8s.io/apiserver/pkg/admission/plugin/resourcequota) for the objects this
// server evaluates: ResourceClaims (quota/resource_claim_evaluator.h) and
// Pods (quota/pod_evaluator.h).
//
// On the create of a claim or pod, every quota of its namespace that
// constrains a resource the object uses (quota::CheckClaimAgainstQuota,
// quota::CheckPodAgainstQuota) must have room: otherwise the create is
// refused with 403
//   pods "NAME" is forbidden: exceeded quota: Q, requested: R=1, used: R=2,
//   limited: R=2
// (or "status unknown for quota: Q, resources: R" while the quota
// controller has not computed the quota's usage yet, or "failed quota: Q:
// must specify requests.cpu for: c" for a pod whose containers do not state
// the cpu or memory the quota constrains). When every quota has room, the
// object's usage is charged into each quota's status.used BEFORE the object
// is stored, by a compare-and-swap write of the quota at the
// resourceVersion read: a racing charge makes the write conflict, and the
// quota is read and checked again, so concurrent creates at the limit never
// admit more than fits (also across API servers sharing a store).
//
// The claim the scheduler creates for a pod's extended resources (KEP-5004)
// is charged for its requests.* names only beyond the stored pod's own
// usage (quota/extended_resource_claim_owner.h).
//
// As upstream's admission does, the creates of one namespace are charged in
// batches: the creates that arrive while a batch is being charged wait and
// form the next batch, which is checked in arrival order against the
// quotas read once, and charged by one write per quota. Under load this
// turns N quota writes into one, and a create never waits for more than the
// batch in flight. A dry run is checked with its batch and charges
// nothing. Updates and deletes charge and release nothing here: the quota
// controller recomputes usage from the stored objects. (Upstream's pod
// evaluator also handles an update that moves a pod into or out of the
// Terminating scope, but it charges the usage delta, which such an update
// leaves at zero, so the outcome is the same; the pods/resize subresource
// it charges is not served here.)
#ifndef DRALLOC_APISERVER_RESOURCE_QUOTA_ADMISSION_H_
#define DRALLOC_APISERVER_RESOURCE_QUOTA_ADMISSION_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/types/resource_quota.h"
#include "apiserver/admission_plugin.h"
#include "apiserver/resource_storage.h"
#include "common/mutex.h"
#include "quota/quota_check.h"

namespace dralloc::apiserver {

class ResourceQuotaAdmission : public AdmissionPlugin {
 public:
  // How often a charge is retried after losing a race for a quota.
  static constexpr int kDefaultMaxAttempts = 10;

  // `storage` holds the quotas and must outlive the plugin; register the
  // plugin on that same storage (storage.AddAdmissionPlugin).
  explicit ResourceQuotaAdmission(ResourceStorage& storage,
                                  int max_attempts = kDefaultMaxAttempts);

  std::optional<ApiError> Admit(const AdmissionRequest& request) override
      EXCLUDES(mu_);

 private:
  // One create waiting for its namespace's batch to be charged.
  struct PendingCharge {
    const api::ResourceInfo* info = nullptr;  // pods or resourceclaims
    std::string name;
    api::ResourceList usage;
    // The object's check against one quota with `usage`.
    std::function<quota::QuotaCheck(const api::ResourceQuota&)> check;
    bool dry_run = false;
    std::optional<ApiError> outcome;  // set by the batch's charger
    bool done = false;
  };
  // The creates of one namespace that wait for the next batch, and
  // whether a thread is charging a batch of that namespace now.
  struct NamespaceQueue {
    std::vector<PendingCharge*> waiting;
    bool charging = false;
  };

  // Queues `charge` in `namespace_`'s next batch and waits for its outcome.
  std::optional<ApiError> Charge(const std::string& namespace_,
                                 PendingCharge& charge) EXCLUDES(mu_);
  // The usage of a new claim, with its owning pod's usage taken off when
  // it is a pod's verified special claim (KEP-5004).
  api::ResourceList ClaimUsage(const api::ResourceClaim& claim) const;
  // The stored `info` object `name` of `namespace_`, or null.
  SharedObject StoredObject(const api::ResourceInfo& info,
                            std::string_view namespace_,
                            std::string_view name) const;
  // The stored DeviceClass's spec.extendedResourceName (KEP-5004); nullopt
  // when the class is not stored or names none.
  std::optional<std::string> ExtendedResourceNameOf(
      std::string_view device_class) const;
  // Whether a stored DeviceClass maps extended resource `name` (the
  // implicit name of a stored class, or some class's extendedResourceName):
  // quota::ResourceClaimEvaluator::IsMapped over the store.
  bool IsMappedExtendedResource(std::string_view name) const;
  // The quotas stored in `namespace_`, with their resourceVersions.
  ApiOr<std::vector<api::ResourceQuota>> QuotasIn(
      const std::string& namespace_) const;
  // Decides and charges every charge of `batch` (sets each outcome),
  // retrying the quota writes that lose a race; called without `mu_`.
  void ChargeBatch(const std::string& namespace_,
                   const std::vector<PendingCharge*>& batch) EXCLUDES(mu_);
  // One attempt: checks the undecided charges of `batch` in order against
  // the quotas not in `charged` yet, then writes those quotas' new usage.
  // Returns kConflict when a write lost a race (the quotas written so far
  // are added to `charged`, and the refusals stay decided).
  std::optional<ApiError> ChargeOnce(const std::string& namespace_,
                                     const std::vector<PendingCharge*>& batch,
                                     std::set<std::string>& charged);
  // The CAS write of `quota`'s status at its resourceVersion.
  std::optional<ApiError> WriteUsage(const api::ResourceQuota& quota);

  ResourceStorage& storage_;
  const int max_attempts_;
  Mutex mu_;
  CondVar batch_charged_;
  std::map<std::string, NamespaceQueue> queues_ GUARDED_BY(mu_);
};

// The 403 of a refused claim create: `<resource> "<name>" is forbidden:
// <reason>`, with upstream's details (name, group, kind = the resource).
ApiError QuotaForbidden(const api::ResourceInfo& info, std::string_view name,
                        std::string_view reason);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_RESOURCE_QUOTA_ADMISSION_H_
