// Validation of resource.k8s.io/v1alpha2 objects with Kubernetes 1.30's rules
// (pkg/apis/resource/validation and structured/namedresources/validation at
// 1.30), for the classic DRA protocol of issue #27.
//
// As api/validation/validation.h: every function returns all problems, each
// with the field path and error type 1.30 reported, and never modifies the
// object. The ...Update functions take the new object first and include
// the create checks of the new object (1.30's strategies ran both; where
// they reported a create error twice, it is reported once here). The
// metadata update rule of every kind is included: name, namespace and uid
// are immutable.
//
// 1.30 quirks kept on purpose:
//   - a driver name is checked on its lowercase form (uppercase passes) and
//     an empty one is both Required and Invalid;
//   - PodSchedulingContext status paths say `status.claims`, not
//     `status.resourceClaims`;
//   - ResourceSlice model errors have no base path (`namedResources...`);
//   - nothing in a ResourceClass is immutable, and neither are the two
//     parameters kinds.
#ifndef DRALLOC_API_V1ALPHA2_VALIDATION_H_
#define DRALLOC_API_V1ALPHA2_VALIDATION_H_

#include "api/field_error.h"
#include "api/v1alpha2/types.h"

namespace dralloc::api::v1alpha2 {

ErrorList ValidateResourceClass(const ResourceClass& resource_class);
ErrorList ValidateResourceClassUpdate(const ResourceClass& next,
                                      const ResourceClass& old);

// The spec is immutable after create; allocationMode must be defaulted.
ErrorList ValidateResourceClaim(const ResourceClaim& claim);
ErrorList ValidateResourceClaimUpdate(const ResourceClaim& next,
                                      const ResourceClaim& old);
// What a driver or the scheduler may do to status (1.30's
// ValidateClaimStatusUpdate): allocation set once, reservedFor only while
// allocated, and the deallocationRequested protocol.
ErrorList ValidateResourceClaimStatusUpdate(const ResourceClaim& next,
                                            const ResourceClaim& old);

ErrorList ValidateResourceClaimTemplate(const ResourceClaimTemplate& tmpl);
ErrorList ValidateResourceClaimTemplateUpdate(const ResourceClaimTemplate& next,
                                              const ResourceClaimTemplate& old);

ErrorList ValidatePodSchedulingContext(const PodSchedulingContext& context);
ErrorList ValidatePodSchedulingContextUpdate(const PodSchedulingContext& next,
                                             const PodSchedulingContext& old);
ErrorList ValidatePodSchedulingContextStatusUpdate(
    const PodSchedulingContext& next, const PodSchedulingContext& old);

// nodeName and driverName are immutable.
ErrorList ValidateResourceSlice(const ResourceSlice& slice);
ErrorList ValidateResourceSliceUpdate(const ResourceSlice& next,
                                      const ResourceSlice& old);

// Selectors are compiled in the namedResources CEL environment
// (cel/dra/named_resources_environment.h).
ErrorList ValidateResourceClaimParameters(
    const ResourceClaimParameters& parameters);
ErrorList ValidateResourceClaimParametersUpdate(
    const ResourceClaimParameters& next, const ResourceClaimParameters& old);
ErrorList ValidateResourceClassParameters(
    const ResourceClassParameters& parameters);
ErrorList ValidateResourceClassParametersUpdate(
    const ResourceClassParameters& next, const ResourceClassParameters& old);

// 1.30's only defaulting rule: an empty allocationMode of a claim (or of a
// template's claim) becomes WaitForFirstConsumer.
void SetDefaults(ResourceClaim& claim);
void SetDefaults(ResourceClaimTemplate& tmpl);

}  // namespace dralloc::api::v1alpha2

#endif  // DRALLOC_API_V1ALPHA2_VALIDATION_H_
