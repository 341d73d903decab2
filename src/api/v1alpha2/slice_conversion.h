// The v1 form of a resource.k8s.io/v1alpha2 namedResources ResourceSlice
// (docs/classic-dra.md §4): one pool named after the node, generation 0,
// one slice; each instance a device of the same name. bool, int, string and
// version attributes keep their names and values, intSlice and stringSlice
// become list attributes (KEP-5491), and a quantity becomes a capacity of
// that name (a v1 attribute cannot hold a quantity).
#ifndef DRALLOC_API_V1ALPHA2_SLICE_CONVERSION_H_
#define DRALLOC_API_V1ALPHA2_SLICE_CONVERSION_H_

#include "api/types/resource_slice.h"
#include "api/v1alpha2/types.h"
#include "common/status.h"

namespace dralloc::api::v1alpha2 {

// Fails, naming the field, for a slice without nodeName (1.30 never
// allocated from one, and v1 has no pool for it), without namedResources,
// or whose v1 form v1 validation refuses (an attribute name that is no v1
// name, such as "driver-version").
StatusOr<api::ResourceSlice> ToV1ResourceSlice(const ResourceSlice& slice);

}  // namespace dralloc::api::v1alpha2

#endif  // DRALLOC_API_V1ALPHA2_SLICE_CONVERSION_H_
