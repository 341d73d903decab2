// Claims and classes of Kubernetes 1.30's structured parameters as
// resource.k8s.io/v1 objects (docs/classic-dra.md, section 4), for `dralloc
// convert`:
//
// - a ResourceClass with `structuredParameters: true` and its
//   ResourceClassParameters → a DeviceClass of the same name selecting the
//   class's driver and its filter, with the vendor parameters of that
//   driver as opaque config;
// - a claim's ResourceClaimParameters (none: 1.30's default of one request
//   for any instance) → a claim spec with one request per namedResources
//   request (`r<i>-<e>`, exactly one device of the class, the selector
//   rewritten by ToV1Selector) and the driver's and requests' vendor
//   parameters as opaque config.
//
// What has no v1 form is refused with its field path: a request of another
// driver than the class's, a selector that does not convert. `shareable`
// has none either: v1 claims may always be shared, so a claim that was not
// shareable is reported in `lost` instead.
#ifndef DRALLOC_API_V1ALPHA2_CLAIM_CONVERSION_H_
#define DRALLOC_API_V1ALPHA2_CLAIM_CONVERSION_H_

#include <string>
#include <vector>

#include "api/types/device_class.h"
#include "api/types/resource_claim.h"
#include "api/v1alpha2/types.h"
#include "common/status.h"

namespace dralloc::api::v1alpha2 {

StatusOr<api::DeviceClass> ToV1DeviceClass(
    const ResourceClass& resource_class,
    const ResourceClassParameters* parameters);

// `parameters` null: the claim has no parametersRef. `lost` gets what the
// conversion drops ("shareable: false").
StatusOr<api::ResourceClaimSpec> ToV1ClaimSpec(
    const ResourceClass& resource_class,
    const ResourceClaimParameters* parameters, std::vector<std::string>& lost);

}  // namespace dralloc::api::v1alpha2

#endif  // DRALLOC_API_V1ALPHA2_CLAIM_CONVERSION_H_
