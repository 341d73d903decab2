// The CEL view of a resource.k8s.io/v1alpha2 namedResources instance: what
// a 1.30 selector sees as `attributes` (cel/dra/named_resources_environment.h).
#ifndef DRALLOC_API_V1ALPHA2_NAMED_RESOURCES_CEL_H_
#define DRALLOC_API_V1ALPHA2_NAMED_RESOURCES_CEL_H_

#include "api/v1alpha2/types.h"
#include "cel/dra/named_resources_environment.h"

namespace dralloc::api::v1alpha2 {

// Each attribute lands in the map of its value's type under its bare name;
// an attribute without a value (refused by validation) is left out.
cel::NamedResourcesAttributes CelAttributesOf(
    const NamedResourcesInstance& instance);

}  // namespace dralloc::api::v1alpha2

#endif  // DRALLOC_API_V1ALPHA2_NAMED_RESOURCES_CEL_H_
