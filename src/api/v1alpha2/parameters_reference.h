// How Kubernetes 1.30 found the parameters of a structuredParameters class
// or claim: a parametersRef names a ResourceClassParameters /
// ResourceClaimParameters directly, or names another object (a vendor's
// CRD) whose translation is the parameters object with that object in
// `generatedFrom`.
#ifndef DRALLOC_API_V1ALPHA2_PARAMETERS_REFERENCE_H_
#define DRALLOC_API_V1ALPHA2_PARAMETERS_REFERENCE_H_

#include <string_view>

#include "api/v1alpha2/types.h"

namespace dralloc::api::v1alpha2 {

// The reference names the parameters kind itself (resource.k8s.io).
bool IsDirect(const ResourceClassParametersReference& ref);
bool IsDirect(const ResourceClaimParametersReference& ref);

// `parameters` were generated from the object `ref` names (for a claim's
// reference, in the claim's namespace `ns`).
bool IsGeneratedFrom(const ResourceClassParameters& parameters,
                     const ResourceClassParametersReference& ref);
bool IsGeneratedFrom(const ResourceClaimParameters& parameters,
                     const ResourceClaimParametersReference& ref,
                     std::string_view ns);

}  // namespace dralloc::api::v1alpha2

#endif  // DRALLOC_API_V1ALPHA2_PARAMETERS_REFERENCE_H_
