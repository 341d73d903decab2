// Helpers about ResourceClaims and the pods that use them, shared by the
// scheduler and the claim controller (upstream's
// k8s.io/dynamic-resource-allocation/resourceclaim package).
//
// All functions are pure and thread-compatible; returned views point into
// the objects passed in.
#ifndef DRALLOC_API_CLAIM_HELPERS_H_
#define DRALLOC_API_CLAIM_HELPERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "api/types/core.h"
#include "api/types/object_meta.h"
#include "api/types/resource_claim.h"

namespace dralloc::api {

// How one pod.spec.resourceClaims entry resolves to a claim name.
struct PodClaimName {
  enum class Kind {
    kDirect,      // resourceClaimName: `name` is the claim
    kGenerated,   // from a template, recorded in pod.status: `name` is the
                  // claim, which must be owned by the pod
    kNotNeeded,   // from a template, and the status says no claim was made
    kNotCreated,  // from a template, not recorded in pod.status yet
  };
  Kind kind = Kind::kNotCreated;
  std::string_view name;  // kDirect and kGenerated only
};

// Resolves `entry` of `pod`: a resourceClaimName directly, otherwise the
// first pod.status.resourceClaimStatuses entry with the same name.
PodClaimName ClaimNameFor(const Pod& pod, const PodResourceClaim& entry);

// The names of the claims `pod` uses: each spec.resourceClaims entry that
// resolves to a claim (kDirect, kGenerated), in spec order, then the claim
// the scheduler made for the pod's extended resources (KEP-5004,
// status.extendedResourceClaimStatus).
std::vector<std::string> PodClaimNames(const Pod& pod);

// The pod.status.resourceClaimStatuses entry named `name`, or null.
const PodResourceClaimStatus* ClaimStatusFor(const Pod& pod,
                                             std::string_view name);

// Whether any status.reservedFor entry has `uid` (upstream's
// IsReservedForPod compares uids only).
bool IsReservedFor(const ResourceClaim& claim, std::string_view uid);
// Whether a status.reservedFor entry is the pod `uid` (resource "pods").
bool IsReservedForPod(const ResourceClaim& claim, std::string_view uid);

// Whether another consumer fits into status.reservedFor
// (kResourceClaimReservedForMaxSize entries at most).
bool CanBeReserved(const ResourceClaim& claim);

// Whether `pod_uid` is the controlling owner of `claim` (a claim generated
// for the pod).
bool IsForPod(const ResourceClaim& claim, std::string_view pod_uid);

// The status.reservedFor entry naming `pod`.
ResourceClaimConsumerReference PodConsumerRef(const Pod& pod);

bool HasFinalizer(const ObjectMeta& meta, std::string_view finalizer);

// Whether the object's controlling owner reference names `uid`.
bool IsControlledBy(const ObjectMeta& meta, std::string_view uid);

// True if `toleration` tolerates `taint` (upstream's
// DeviceToleration.ToleratesTaint): same effect and key when given; Exists
// matches any value, Equal (or no operator) the same value.
bool DeviceTolerationMatches(const DeviceToleration& toleration,
                             const DeviceTaint& taint);

}  // namespace dralloc::api

#endif  // DRALLOC_API_CLAIM_HELPERS_H_
