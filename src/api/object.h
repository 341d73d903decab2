// Object: any API object dralloc understands, in its hub (internal) version.
#ifndef DRALLOC_API_OBJECT_H_
#define DRALLOC_API_OBJECT_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "api/types/config_map.h"
#include "api/types/core.h"
#include "api/types/device_class.h"
#include "api/types/device_taint_rule.h"
#include "api/types/lease.h"
#include "api/types/rbac.h"
#include "api/types/resource_claim.h"
#include "api/types/resource_pool_status_request.h"
#include "api/types/resource_quota.h"
#include "api/types/resource_slice.h"
#include "api/types/resource_slice_patch.h"
#include "api/types/secret.h"
#include "api/types/service_account.h"
#include "api/v1alpha2/types.h"

namespace dralloc::api {

using Object =
    std::variant<DeviceClass, ResourceSlice, ResourceClaim,
                 ResourceClaimTemplate, DeviceTaintRule, ResourceSlicePatch,
                 Namespace, Node, Pod, Event, Lease, ResourceQuota,
                 // rbac.authorization.k8s.io/v1
                 ClusterRole, Role, ClusterRoleBinding, RoleBinding,
                 // core/v1 identities and configuration
                 ServiceAccount, Secret, ConfigMap,
                 // resource.k8s.io/v1alpha3 pool status (KEP-5677)
                 ResourcePoolStatusRequest,
                 // resource.k8s.io/v1alpha2: classic DRA (KEP-3063), stored
                 // in its own wire shape (docs/classic-dra.md)
                 v1alpha2::ResourceClass, v1alpha2::ResourceClaim,
                 v1alpha2::ResourceClaimTemplate,
                 v1alpha2::PodSchedulingContext, v1alpha2::ResourceSlice,
                 v1alpha2::ResourceClaimParameters,
                 v1alpha2::ResourceClassParameters>;

// Kind name of the alternative held ("ResourceSlice"). Three names
// (ResourceClaim, ResourceClaimTemplate, ResourceSlice) belong to two
// alternatives, one per family: code that needs the resource asks by
// alternative (ResourceInfoOf in resource_registry.h, TraitsOf here).
std::string_view KindOf(const Object& object);
// Whether a kind of Object has a status (and a spec), for code that
// visits objects and treats those parts apart.
template <typename T>
constexpr bool kHasStatus = requires(T t) {
  t.status;
};
template <typename T>
constexpr bool kHasSpec = requires(T t) {
  t.spec;
};

const ObjectMeta& MetaOf(const Object& object);
ObjectMeta& MetaOf(Object& object);
// "kind namespace/name" or "kind name" for cluster-scoped objects.
std::string DisplayName(const Object& object);

// Copies of `before` and `after` that keep apiVersion, kind, metadata and
// the other top-level members (spec, status, unknown fields, ...) only where
// the two differ; equal members are left empty in both. The JSON difference
// between the copies is the JSON difference between the originals, at the
// cost of encoding only what changed. nullopt when the kinds differ.
std::optional<std::pair<Object, Object>> DifferingMembers(const Object& before,
                                                          const Object& after);

}  // namespace dralloc::api

#endif  // DRALLOC_API_OBJECT_H_
