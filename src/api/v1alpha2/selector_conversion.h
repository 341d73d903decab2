// A Kubernetes 1.30 namedResources selector rewritten for resource.k8s.io/v1
// (docs/classic-dra.md, section 4): each `attributes.<map>["name"]` (or
// `attributes.<map>.name`) of the instance becomes the converted device's
// `device.attributes["<driver>"].name`, or `device.capacity["<driver>"].name`
// for a quantity (a v1 attribute cannot hold one; the slice conversion
// makes quantities capacities). The rest of the expression is kept as
// written. The result is compiled in the v1 selector environment.
#ifndef DRALLOC_API_V1ALPHA2_SELECTOR_CONVERSION_H_
#define DRALLOC_API_V1ALPHA2_SELECTOR_CONVERSION_H_

#include <string>
#include <string_view>

#include "common/status.h"

namespace dralloc::api::v1alpha2 {

// Fails (kInvalidArgument) when the selector uses `attributes` other than
// through one attribute, names an attribute that is no v1 name (a C
// identifier), or does not compile afterwards.
StatusOr<std::string> ToV1Selector(std::string_view selector,
                                   std::string_view driver);

}  // namespace dralloc::api::v1alpha2

#endif  // DRALLOC_API_V1ALPHA2_SELECTOR_CONVERSION_H_
