// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and
// ClusterRoleBinding: who may do what (rbac/RbacAuthorizer enforces them).
//
// Protobuf field numbers are upstream's (k8s.io/api/rbac/v1/generated.proto).
#ifndef DRALLOC_API_TYPES_RBAC_H_
#define DRALLOC_API_TYPES_RBAC_H_

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/label_selector.h"
#include "api/types/object_meta.h"

namespace dralloc::api {

inline constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";

// One permission: verbs on resources of API groups (optionally only the
// named objects), or verbs on non-resource URLs (ClusterRoles only).
struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;
  friend bool operator==(const PolicyRule&, const PolicyRule&) = default;
};
constexpr auto FieldsOf(const PolicyRule*) {
  using T = PolicyRule;
  return std::tuple{
      Field("verbs", &T::verbs, kAlways).Proto(1).ListAtomic(),
      Field("apiGroups", &T::api_groups).Proto(2).ListAtomic(),
      Field("resources", &T::resources).Proto(3).ListAtomic(),
      Field("resourceNames", &T::resource_names).Proto(4).ListAtomic(),
      Field("nonResourceURLs", &T::non_resource_urls).Proto(5).ListAtomic()};
}

// The ClusterRoles whose rules an aggregated ClusterRole unites.
struct AggregationRule {
  std::vector<LabelSelector> cluster_role_selectors;
  friend bool operator==(const AggregationRule&,
                         const AggregationRule&) = default;
};
constexpr auto FieldsOf(const AggregationRule*) {
  using T = AggregationRule;
  return std::tuple{Field("clusterRoleSelectors", &T::cluster_role_selectors)
                        .Proto(1)
                        .ListAtomic()};
}

// rbac.authorization.k8s.io/v1 Role: rules within its namespace.
struct Role {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::vector<PolicyRule> rules;
  friend bool operator==(const Role&, const Role&) = default;
};
constexpr auto FieldsOf(const Role*) {
  using T = Role;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind),
                    Field("metadata", &T::metadata).Proto(1),
                    Field("rules", &T::rules).Proto(2).ListAtomic()};
}

// rbac.authorization.k8s.io/v1 ClusterRole: rules in every namespace (when
// bound by a ClusterRoleBinding) or in one (by a RoleBinding).
struct ClusterRole {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::vector<PolicyRule> rules;
  std::optional<AggregationRule> aggregation_rule;
  friend bool operator==(const ClusterRole&, const ClusterRole&) = default;
};
constexpr auto FieldsOf(const ClusterRole*) {
  using T = ClusterRole;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind),
                    Field("metadata", &T::metadata).Proto(1),
                    Field("rules", &T::rules).Proto(2).ListAtomic(),
                    Field("aggregationRule", &T::aggregation_rule).Proto(3)};
}

// Who a binding grants to: a User, Group or ServiceAccount.
struct Subject {
  std::string kind;
  std::string api_group;
  std::string name;
  std::string namespace_;
  friend bool operator==(const Subject&, const Subject&) = default;
};
constexpr auto FieldsOf(const Subject*) {
  using T = Subject;
  return std::tuple{Field("kind", &T::kind, kAlways).Proto(1),
                    Field("apiGroup", &T::api_group).Proto(2),
                    Field("name", &T::name, kAlways).Proto(3),
                    Field("namespace", &T::namespace_).Proto(4)};
}

// The role a binding grants (immutable once created).
struct RoleRef {
  std::string api_group;
  std::string kind;
  std::string name;
  friend bool operator==(const RoleRef&, const RoleRef&) = default;
};
constexpr auto FieldsOf(const RoleRef*) {
  using T = RoleRef;
  return std::tuple{Field("apiGroup", &T::api_group, kAlways).Proto(1),
                    Field("kind", &T::kind, kAlways).Proto(2),
                    Field("name", &T::name, kAlways).Proto(3)};
}

// rbac.authorization.k8s.io/v1 RoleBinding: grants a Role or ClusterRole
// within its namespace.
struct RoleBinding {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::vector<Subject> subjects;
  RoleRef role_ref;
  friend bool operator==(const RoleBinding&, const RoleBinding&) = default;
};
constexpr auto FieldsOf(const RoleBinding*) {
  using T = RoleBinding;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind),
                    Field("metadata", &T::metadata).Proto(1),
                    Field("subjects", &T::subjects).Proto(2).ListAtomic(),
                    Field("roleRef", &T::role_ref, kAlways).Proto(3)};
}

// rbac.authorization.k8s.io/v1 ClusterRoleBinding: grants a ClusterRole in
// every namespace.
struct ClusterRoleBinding {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  std::vector<Subject> subjects;
  RoleRef role_ref;
  friend bool operator==(const ClusterRoleBinding&,
                         const ClusterRoleBinding&) = default;
};
constexpr auto FieldsOf(const ClusterRoleBinding*) {
  using T = ClusterRoleBinding;
  return std::tuple{Field("apiVersion", &T::api_version),
                    Field("kind", &T::kind),
                    Field("metadata", &T::metadata).Proto(1),
                    Field("subjects", &T::subjects).Proto(2).ListAtomic(),
                    Field("roleRef", &T::role_ref, kAlways).Proto(3)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_RBAC_H_
