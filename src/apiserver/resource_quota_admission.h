// ResourceQuotaAdmission: upstream's ResourceQuota admission for
// ResourceClaims (k8s.io/apiserver/pkg/admission/plugin/resourcequota with
// the claim evaluator of quota/resource_claim_evaluator.h).
//
// On the create of a claim, every quota of its namespace that constrains a
// resource the claim uses (quota::CheckClaimAgainstQuota) must have room:
// otherwise the create is refused with 403
//   resourceclaims.resource.k8s.io "NAME" is forbidden: exceeded quota: Q,
//   requested: R=1, used: R=2, limited: R=2
// (or "status unknown for quota: Q, resources: R" while the quota
// controller has not computed the quota's usage yet). When every quota has
// room, the claim's usage is charged into each quota's status.used BEFORE
// the claim is stored, by a compare-and-swap write of the quota at the
// resourceVersion read: a racing charge makes the write conflict, and the
// quota is read and checked again, so concurrent creates at the limit never
// admit more than fits (also across API servers sharing a store). A dry
// run checks and charges nothing. Updates (a claim's spec is immutable) and
// deletes charge and release nothing here: the quota controller recomputes
// usage from the stored claims.
#ifndef DRALLOC_APISERVER_RESOURCE_QUOTA_ADMISSION_H_
#define DRALLOC_APISERVER_RESOURCE_QUOTA_ADMISSION_H_

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/types/resource_quota.h"
#include "apiserver/admission_plugin.h"
#include "apiserver/resource_storage.h"
#include "common/mutex.h"

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
      EXCLUDES(charge_mu_);

 private:
  // The quotas stored in `namespace_`, with their resourceVersions.
  ApiOr<std::vector<api::ResourceQuota>> QuotasIn(
      const std::string& namespace_) const;
  // Checks `usage` against the quotas of `namespace_` and charges it into
  // those not in `charged` yet (adding their names); nullopt when all are
  // charged, kConflict when a charge lost a race (retry), or the refusal.
  std::optional<ApiError> CheckAndCharge(const std::string& namespace_,
                                         const std::string& claim_name,
                                         const api::ResourceList& usage,
                                         bool dry_run,
                                         std::set<std::string>& charged)
      REQUIRES(charge_mu_);
  // The CAS write of `quota`'s status at its resourceVersion.
  std::optional<ApiError> WriteUsage(const api::ResourceQuota& quota);

  ResourceStorage& storage_;
  const int max_attempts_;
  // Serialises the charges of this server, as upstream's admission queues
  // them per namespace, so that local creates do not starve each other
  // with conflicts; the CAS write still guards against other servers.
  Mutex charge_mu_;
};

// The 403 of a refused claim create: `<resource> "<name>" is forbidden:
// <reason>`, with upstream's details (name, group, kind = the resource).
ApiError QuotaForbidden(const api::ResourceInfo& info, std::string_view name,
                        std::string_view reason);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_RESOURCE_QUOTA_ADMISSION_H_
