// KindTraits: the facts about each kind of api::Object, written once.
//
// The REST registry (resource_registry.h), the codec's version table
// (codec.h), patch merge rules, discovery, OpenAPI and the client's resource
// accessors all read this table. Adding a kind means adding its type to
// api::Object and one Kind<T> specialization here.
#ifndef DRALLOC_API_KIND_TRAITS_H_
#define DRALLOC_API_KIND_TRAITS_H_

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>
#include <variant>

#include "api/object.h"

namespace dralloc::api {

struct KindTraits {
  std::string_view group;     // "" for the core group
  std::string_view kind;      // "ResourceClaim"
  std::string_view plural;    // "resourceclaims"
  std::string_view singular;  // "resourceclaim"
  bool namespaced = false;
  bool has_status = false;  // serves the `status` subresource
  // Unused entries of the fixed-size lists below are empty.
  std::array<std::string_view, 1> short_names{};
  // Served apiVersions, preferred first; the first one is the storage (hub)
  // version. Every one but `converted_version` has the hub's wire shape.
  std::array<std::string_view, 3> api_versions{};
  // The apiVersion served through conversion (api/v1beta1), or empty.
  std::string_view converted_version;
  // Field selector labels beyond metadata.name and metadata.namespace.
  std::array<std::string_view, 11> field_labels{};
  // Objects loaded together are created in rising rank: what an object
  // refers to (its namespace, node, class, template) ranks lower.
  int creation_rank = 0;
  // Position in AllResources(), and so in discovery and OpenAPI listings.
  int listing = 0;
  // The first segments of the kind's store keys ("v1alpha2/resourceclaims"
  // for the classic family's claims); empty means `plural`. Two families of
  // one resource keep apart stores (docs/classic-dra.md, section 3).
  std::string_view store_prefix;
};

// The traits of kind T, an alternative of api::Object.
template <typename T>
struct Kind;

template <>
struct Kind<DeviceClass> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "DeviceClass",
      .plural = "deviceclasses",
      .singular = "deviceclass",
      .api_versions = {"resource.k8s.io/v1", "resource.k8s.io/v1beta2",
                       "resource.k8s.io/v1beta1"},
      .converted_version = "resource.k8s.io/v1beta1",
      .creation_rank = 2,
      .listing = 4};
};

template <>
struct Kind<ResourceSlice> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "ResourceSlice",
      .plural = "resourceslices",
      .singular = "resourceslice",
      .api_versions = {"resource.k8s.io/v1", "resource.k8s.io/v1beta2",
                       "resource.k8s.io/v1beta1"},
      .converted_version = "resource.k8s.io/v1beta1",
      .field_labels = {"spec.nodeName", "spec.driver", "spec.pool.name"},
      .creation_rank = 4,
      .listing = 7};
};

template <>
struct Kind<ResourceClaim> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "ResourceClaim",
      .plural = "resourceclaims",
      .singular = "resourceclaim",
      .namespaced = true,
      .has_status = true,
      .api_versions = {"resource.k8s.io/v1", "resource.k8s.io/v1beta2",
                       "resource.k8s.io/v1beta1"},
      .converted_version = "resource.k8s.io/v1beta1",
      .creation_rank = 12,
      .listing = 5};
};

template <>
struct Kind<ResourceClaimTemplate> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "ResourceClaimTemplate",
      .plural = "resourceclaimtemplates",
      .singular = "resourceclaimtemplate",
      .namespaced = true,
      .api_versions = {"resource.k8s.io/v1", "resource.k8s.io/v1beta2",
                       "resource.k8s.io/v1beta1"},
      .converted_version = "resource.k8s.io/v1beta1",
      .creation_rank = 10,
      .listing = 6};
};

template <>
struct Kind<DeviceTaintRule> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "DeviceTaintRule",
      .plural = "devicetaintrules",
      .singular = "devicetaintrule",
      .api_versions = {"resource.k8s.io/v1", "resource.k8s.io/v1beta2",
                       "resource.k8s.io/v1alpha3"},
      .creation_rank = 7,
      .listing = 8};
};

template <>
struct Kind<ResourceSlicePatch> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "ResourceSlicePatch",
      .plural = "resourceslicepatches",
      .singular = "resourceslicepatch",
      .api_versions = {"resource.k8s.io/v1alpha3"},
      .creation_rank = 6,
      .listing = 9};
};

template <>
struct Kind<Namespace> {
  static constexpr KindTraits traits{.kind = "Namespace",
                                     .plural = "namespaces",
                                     .singular = "namespace",
                                     .has_status = true,
                                     .short_names = {"ns"},
                                     .api_versions = {"v1"},
                                     .field_labels = {"status.phase"},
                                     .creation_rank = 0,
                                     .listing = 0};
};

template <>
struct Kind<Node> {
  static constexpr KindTraits traits{.kind = "Node",
                                     .plural = "nodes",
                                     .singular = "node",
                                     .has_status = true,
                                     .short_names = {"no"},
                                     .api_versions = {"v1"},
                                     .field_labels = {"spec.unschedulable"},
                                     .creation_rank = 1,
                                     .listing = 1};
};

template <>
struct Kind<Pod> {
  static constexpr KindTraits traits{
      .kind = "Pod",
      .plural = "pods",
      .singular = "pod",
      .namespaced = true,
      .has_status = true,
      .short_names = {"po"},
      .api_versions = {"v1"},
      .field_labels = {"spec.nodeName", "spec.schedulerName", "status.phase",
                       "status.nominatedNodeName"},
      .creation_rank = 14,
      .listing = 2};
};

template <>
struct Kind<Event> {
  static constexpr KindTraits traits{
      .kind = "Event",
      .plural = "events",
      .singular = "event",
      .namespaced = true,
      .short_names = {"ev"},
      .api_versions = {"v1"},
      .field_labels = {"involvedObject.kind", "involvedObject.namespace",
                       "involvedObject.name", "involvedObject.uid",
                       "involvedObject.apiVersion",
                       "involvedObject.resourceVersion",
                       "involvedObject.fieldPath", "reason",
                       "reportingComponent", "source", "type"},
      .creation_rank = 16,
      .listing = 3};
};

template <>
struct Kind<Lease> {
  static constexpr KindTraits traits{.group = "coordination.k8s.io",
                                     .kind = "Lease",
                                     .plural = "leases",
                                     .singular = "lease",
                                     .namespaced = true,
                                     .api_versions = {"coordination.k8s.io/v1"},
                                     .creation_rank = 17,
                                     .listing = 10};
};

template <>
struct Kind<ResourceQuota> {
  static constexpr KindTraits traits{.kind = "ResourceQuota",
                                     .plural = "resourcequotas",
                                     .singular = "resourcequota",
                                     .namespaced = true,
                                     .has_status = true,
                                     .short_names = {"quota"},
                                     .api_versions = {"v1"},
                                     .creation_rank = 22,
                                     .listing = 15};
};

// rbac.authorization.k8s.io/v1 kinds.
template <>
struct Kind<ClusterRole> {
  static constexpr KindTraits traits{
      .group = "rbac.authorization.k8s.io",
      .kind = "ClusterRole",
      .plural = "clusterroles",
      .singular = "clusterrole",
      .api_versions = {"rbac.authorization.k8s.io/v1"},
      .creation_rank = 18,
      .listing = 11};
};

template <>
struct Kind<Role> {
  static constexpr KindTraits traits{
      .group = "rbac.authorization.k8s.io",
      .kind = "Role",
      .plural = "roles",
      .singular = "role",
      .namespaced = true,
      .api_versions = {"rbac.authorization.k8s.io/v1"},
      .creation_rank = 19,
      .listing = 12};
};

template <>
struct Kind<ClusterRoleBinding> {
  static constexpr KindTraits traits{
      .group = "rbac.authorization.k8s.io",
      .kind = "ClusterRoleBinding",
      .plural = "clusterrolebindings",
      .singular = "clusterrolebinding",
      .api_versions = {"rbac.authorization.k8s.io/v1"},
      .creation_rank = 20,
      .listing = 13};
};

template <>
struct Kind<RoleBinding> {
  static constexpr KindTraits traits{
      .group = "rbac.authorization.k8s.io",
      .kind = "RoleBinding",
      .plural = "rolebindings",
      .singular = "rolebinding",
      .namespaced = true,
      .api_versions = {"rbac.authorization.k8s.io/v1"},
      .creation_rank = 21,
      .listing = 14};
};

// core/v1 ServiceAccount, Secret and ConfigMap (issue 25).
template <>
struct Kind<ServiceAccount> {
  static constexpr KindTraits traits{.kind = "ServiceAccount",
                                     .plural = "serviceaccounts",
                                     .singular = "serviceaccount",
                                     .namespaced = true,
                                     .short_names = {"sa"},
                                     .api_versions = {"v1"},
                                     .creation_rank = 23,
                                     .listing = 16};
};

template <>
struct Kind<Secret> {
  static constexpr KindTraits traits{.kind = "Secret",
                                     .plural = "secrets",
                                     .singular = "secret",
                                     .namespaced = true,
                                     .api_versions = {"v1"},
                                     .field_labels = {"type"},
                                     .creation_rank = 24,
                                     .listing = 17};
};

template <>
struct Kind<ConfigMap> {
  static constexpr KindTraits traits{.kind = "ConfigMap",
                                     .plural = "configmaps",
                                     .singular = "configmap",
                                     .namespaced = true,
                                     .short_names = {"cm"},
                                     .api_versions = {"v1"},
                                     .creation_rank = 25,
                                     .listing = 18};
};

// KEP-5677: a one-time pool status question, answered in its status.
template <>
struct Kind<ResourcePoolStatusRequest> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "ResourcePoolStatusRequest",
      .plural = "resourcepoolstatusrequests",
      .singular = "resourcepoolstatusrequest",
      .has_status = true,
      .api_versions = {"resource.k8s.io/v1alpha3"},
      .creation_rank = 26,
      .listing = 19};
};

// resource.k8s.io/v1alpha2, the classic DRA family (docs/classic-dra.md):
// served only in v1alpha2, stored in its own wire shape under its own keys.
template <>
struct Kind<v1alpha2::ResourceClass> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "ResourceClass",
      .plural = "resourceclasses",
      .singular = "resourceclass",
      .api_versions = {"resource.k8s.io/v1alpha2"},
      .creation_rank = 3,
      .listing = 20,
      .store_prefix = "v1alpha2/resourceclasses"};
};

template <>
struct Kind<v1alpha2::ResourceClaim> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "ResourceClaim",
      .plural = "resourceclaims",
      .singular = "resourceclaim",
      .namespaced = true,
      .has_status = true,
      .api_versions = {"resource.k8s.io/v1alpha2"},
      .creation_rank = 13,
      .listing = 21,
      .store_prefix = "v1alpha2/resourceclaims"};
};

template <>
struct Kind<v1alpha2::ResourceClaimTemplate> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "ResourceClaimTemplate",
      .plural = "resourceclaimtemplates",
      .singular = "resourceclaimtemplate",
      .namespaced = true,
      .api_versions = {"resource.k8s.io/v1alpha2"},
      .creation_rank = 11,
      .listing = 22,
      .store_prefix = "v1alpha2/resourceclaimtemplates"};
};

template <>
struct Kind<v1alpha2::PodSchedulingContext> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "PodSchedulingContext",
      .plural = "podschedulingcontexts",
      .singular = "podschedulingcontext",
      .namespaced = true,
      .has_status = true,
      .api_versions = {"resource.k8s.io/v1alpha2"},
      .creation_rank = 15,
      .listing = 23,
      .store_prefix = "v1alpha2/podschedulingcontexts"};
};

// 1.30's slices: nodeName and driverName at the top level.
template <>
struct Kind<v1alpha2::ResourceSlice> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "ResourceSlice",
      .plural = "resourceslices",
      .singular = "resourceslice",
      .api_versions = {"resource.k8s.io/v1alpha2"},
      .field_labels = {"nodeName", "driverName"},
      .creation_rank = 5,
      .listing = 24,
      .store_prefix = "v1alpha2/resourceslices"};
};

template <>
struct Kind<v1alpha2::ResourceClaimParameters> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "ResourceClaimParameters",
      .plural = "resourceclaimparameters",
      .singular = "resourceclaimparameters",
      .namespaced = true,
      .api_versions = {"resource.k8s.io/v1alpha2"},
      .creation_rank = 9,
      .listing = 25,
      .store_prefix = "v1alpha2/resourceclaimparameters"};
};

template <>
struct Kind<v1alpha2::ResourceClassParameters> {
  static constexpr KindTraits traits{
      .group = "resource.k8s.io",
      .kind = "ResourceClassParameters",
      .plural = "resourceclassparameters",
      .singular = "resourceclassparameters",
      .namespaced = true,
      .api_versions = {"resource.k8s.io/v1alpha2"},
      .creation_rank = 8,
      .listing = 26,
      .store_prefix = "v1alpha2/resourceclassparameters"};
};

// The number of kinds.
inline constexpr size_t kKindCount = std::variant_size_v<Object>;

// The kind name of T ("ResourceSlice").
template <typename T>
constexpr std::string_view KindName() {
  return Kind<T>::traits.kind;
}

// Calls fn.template operator()<T>(Kind<T>::traits) for every alternative T
// of api::Object, in the variant's order; e.g.
//   ForEachKind([&]<typename T>(const KindTraits& traits) { ... });
template <typename Fn>
constexpr void ForEachKind(Fn&& fn) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    (fn.template operator()<std::variant_alternative_t<I, Object>>(
         Kind<std::variant_alternative_t<I, Object>>::traits),
     ...);
  }
  (std::make_index_sequence<kKindCount>());
}

// The traits of every kind, in the variant's order.
constexpr std::array<const KindTraits*, kKindCount> AllKindTraits() {
  std::array<const KindTraits*, kKindCount> all{};
  size_t next = 0;
  ForEachKind(
      [&]<typename T>(const KindTraits& traits) { all[next++] = &traits; });
  return all;
}

// The traits of `kind`, or nullptr. A name two families share gives the
// structured family's kind; FindKindTraits(api_version, kind) picks by
// version.
const KindTraits* FindKindTraits(std::string_view kind);
// The traits of the kind `api_version` serves as `kind`, or nullptr.
const KindTraits* FindKindTraits(std::string_view api_version,
                                 std::string_view kind);

// The traits of the alternative `object` holds.
const KindTraits& TraitsOf(const Object& object);

// The creation rank of `kind` (KindTraits::creation_rank); kinds that are
// not served rank after every served one.
int CreationRank(std::string_view kind);
inline int CreationRank(const Object& object) {
  return TraitsOf(object).creation_rank;
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_KIND_TRAITS_H_
