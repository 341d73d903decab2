// The default ClusterRoles and ClusterRoleBindings a cluster starts with
// (upstream's bootstrappolicy: policy.go and controller_policy.go, limited to
// the resources dralloc serves), each labelled
// kubernetes.io/bootstrapping=rbac-defaults and annotated
// rbac.authorization.kubernetes.io/autoupdate=true.
#ifndef DRALLOC_RBAC_BOOTSTRAP_POLICY_H_
#define DRALLOC_RBAC_BOOTSTRAP_POLICY_H_

#include <string_view>
#include <vector>

#include "api/types/rbac.h"

namespace dralloc::rbac {

inline constexpr std::string_view kBootstrappingLabel =
    "kubernetes.io/bootstrapping";
inline constexpr std::string_view kRbacDefaults = "rbac-defaults";
inline constexpr std::string_view kAutoupdateAnnotation =
    "rbac.authorization.kubernetes.io/autoupdate";
inline constexpr std::string_view kAggregateToAdmin =
    "rbac.authorization.k8s.io/aggregate-to-admin";
inline constexpr std::string_view kAggregateToEdit =
    "rbac.authorization.k8s.io/aggregate-to-edit";
inline constexpr std::string_view kAggregateToView =
    "rbac.authorization.k8s.io/aggregate-to-view";

// The roles, aggregated ones (admin, edit, view) with empty rules: the
// aggregation fills them.
std::vector<api::ClusterRole> BootstrapClusterRoles();
std::vector<api::ClusterRoleBinding> BootstrapClusterRoleBindings();

}  // namespace dralloc::rbac

#endif  // DRALLOC_RBAC_BOOTSTRAP_POLICY_H_
