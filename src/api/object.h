// Object: any API object dralloc understands, in its hub (internal) version.
#ifndef DRALLOC_API_OBJECT_H_
#define DRALLOC_API_OBJECT_H_

#include <string>
#include <string_view>
#include <variant>

#include "api/types/core.h"
#include "api/types/device_class.h"
#include "api/types/device_taint_rule.h"
#include "api/types/resource_claim.h"
#include "api/types/resource_slice.h"
#include "api/types/resource_slice_patch.h"

namespace dralloc::api {

using Object = std::variant<DeviceClass, ResourceSlice, ResourceClaim,
                            ResourceClaimTemplate, DeviceTaintRule,
                            ResourceSlicePatch, Namespace, Node, Pod, Event>;

// Kind name of the alternative held ("ResourceSlice").
std::string_view KindOf(const Object& object);
const ObjectMeta& MetaOf(const Object& object);
ObjectMeta& MetaOf(Object& object);
// "kind namespace/name" or "kind name" for cluster-scoped objects.
std::string DisplayName(const Object& object);

}  // namespace dralloc::api

#endif  // DRALLOC_API_OBJECT_H_
