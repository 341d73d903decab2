// Well-known names that several components agree on: finalizers, labels and
// annotations with a meaning fixed by Kubernetes.
#ifndef DRALLOC_API_WELL_KNOWN_H_
#define DRALLOC_API_WELL_KNOWN_H_

#include <string_view>

namespace dralloc::api {

// Set on an allocated ResourceClaim by the scheduler; the claim controller
// removes it after deallocating a claim that is being deleted.
inline constexpr std::string_view kDeleteProtectionFinalizer =
    "resource.kubernetes.io/delete-protection";

// The spec.finalizers entry every new namespace gets; the namespace
// finalizer removes it once a deleted namespace is empty.
inline constexpr std::string_view kNamespaceFinalizer = "kubernetes";

// A namespace label that must be "true" for claims and claim templates in
// the namespace to request adminAccess.
inline constexpr std::string_view kAdminAccessLabel =
    "resource.kubernetes.io/admin-access";

// On a claim generated from a pod's template: the pod's claim entry name.
inline constexpr std::string_view kPodClaimNameAnnotation =
    "resource.kubernetes.io/pod-claim-name";

// "true" on the claim the scheduler creates for a pod's extended resources
// backed by DRA (KEP-5004), whose controlling owner is the pod.
inline constexpr std::string_view kExtendedResourceClaimAnnotation =
    "resource.kubernetes.io/extended-resource-claim";

// KEP-5945: the feature a node declares in status.declaredFeatures when its
// kubelet (node agent) honours skipNodeOperations, and the operations.
inline constexpr std::string_view kDeclaredFeatureOptionalNodeOps =
    "DRAOptionalNodeOperations";
inline constexpr std::string_view kSkipNodePrepare = "NodePrepareResources";
inline constexpr std::string_view kSkipNodeUnprepare = "NodeUnprepareResources";
inline constexpr std::string_view kSkipAllNodeOperations = "*";

}  // namespace dralloc::api

#endif  // DRALLOC_API_WELL_KNOWN_H_
