#include "rbac/bootstrap_policy.h"

#include <string>
#include <utility>

#include "auth/user_info.h"

namespace dralloc::rbac {
namespace {

using Strings = std::vector<std::string>;

const Strings kRead = {"get", "list", "watch"};
const Strings kWrite = {"create", "delete", "deletecollection", "patch",
                        "update"};
const Strings kReadWrite = {"get",    "list",  "watch",  "create",
                            "update", "patch", "delete", "deletecollection"};
constexpr std::string_view kResourceGroup = "resource.k8s.io";

api::PolicyRule Rule(Strings verbs, std::string_view group, Strings resources) {
  return {.verbs = std::move(verbs),
          .api_groups = {std::string(group)},
          .resources = std::move(resources)};
}

api::PolicyRule UrlRule(Strings verbs, Strings urls) {
  return {.verbs = std::move(verbs), .non_resource_urls = std::move(urls)};
}

api::ObjectMeta BootstrapMeta(std::string name, api::StringMap labels = {}) {
  api::ObjectMeta meta;
  meta.name = std::move(name);
  meta.labels = std::move(labels);
  meta.labels[std::string(kBootstrappingLabel)] = kRbacDefaults;
  meta.annotations[std::string(kAutoupdateAnnotation)] = "true";
  return meta;
}

api::ClusterRole MakeRole(std::string name, std::vector<api::PolicyRule> rules,
                          api::StringMap labels = {}) {
  api::ClusterRole role;
  role.api_version = "rbac.authorization.k8s.io/v1";
  role.kind = "ClusterRole";
  role.metadata = BootstrapMeta(std::move(name), std::move(labels));
  role.rules = std::move(rules);
  return role;
}

api::ClusterRole Aggregated(std::string name, std::string_view selector_label,
                            api::StringMap labels = {}) {
  api::ClusterRole role = MakeRole(std::move(name), {}, std::move(labels));
  api::LabelSelector selector;
  selector.match_labels[std::string(selector_label)] = "true";
  role.aggregation_rule = api::AggregationRule{{std::move(selector)}};
  return role;
}

api::StringMap Label(std::string_view key) {
  return {{std::string(key), "true"}};
}

std::vector<api::ClusterRole> UserFacingRoles() {
  std::vector<api::ClusterRole> roles;
  roles.push_back(MakeRole("cluster-admin",
                           {Rule({"*"}, "*", {"*"}), UrlRule({"*"}, {"*"})}));
  roles.push_back(Aggregated("admin", kAggregateToAdmin));
  roles.push_back(
      Aggregated("edit", kAggregateToEdit, Label(kAggregateToAdmin)));
  roles.push_back(
      Aggregated("view", kAggregateToView, Label(kAggregateToEdit)));
  roles.push_back(MakeRole(
      "system:aggregate-to-admin",
      {Rule({"create"}, "authorization.k8s.io", {"localsubjectaccessreviews"}),
       Rule(kReadWrite, "rbac.authorization.k8s.io", {"roles", "rolebindings"}),
       Rule(kWrite, "", {"resourcequotas"})},
      Label(kAggregateToAdmin)));
  roles.push_back(
      MakeRole("system:aggregate-to-edit",
               {Rule(kWrite, "",
                     {"pods", "pods/attach", "pods/exec", "pods/portforward",
                      "pods/proxy", "configmaps", "events", "secrets",
                      "serviceaccounts"}),
                Rule({"impersonate"}, "", {"serviceaccounts"}),
                Rule({"create"}, "", {"serviceaccounts/token"}),
                Rule(kRead, "", {"secrets"}),
                Rule(kWrite, kResourceGroup,
                     {"resourceclaims", "resourceclaimtemplates"}),
                // Classic DRA (v1alpha2): users write claim parameters as
                // they write claims (the rules above cover both families
                // of claims and templates: RBAC has no versions).
                Rule(kWrite, kResourceGroup, {"resourceclaimparameters"})},
               Label(kAggregateToEdit)));
  roles.push_back(
      MakeRole("system:aggregate-to-view",
               {Rule(kRead, "",
                     {"configmaps", "events", "pods", "pods/log", "pods/status",
                      "resourcequotas", "resourcequotas/status",
                      "serviceaccounts", "namespaces", "namespaces/status"}),
                Rule(kRead, "coordination.k8s.io", {"leases"}),
                Rule(kRead, kResourceGroup,
                     {"resourceclaims", "resourceclaims/status",
                      "resourceclaimtemplates"}),
                // Classic DRA (v1alpha2): a pod's scheduling negotiation and
                // the claim parameters, as 1.30's view role read them.
                Rule(kRead, kResourceGroup,
                     {"podschedulingcontexts", "podschedulingcontexts/status",
                      "resourceclaimparameters"})},
               Label(kAggregateToView)));
  return roles;
}

std::vector<api::ClusterRole> DiscoveryRoles() {
  std::vector<api::ClusterRole> roles;
  roles.push_back(MakeRole(
      "system:discovery",
      {UrlRule({"get"}, {"/api", "/api/*", "/apis", "/apis/*", "/healthz",
                         "/livez", "/openapi", "/openapi/*", "/readyz",
                         "/version", "/version/"})}));
  roles.push_back(MakeRole(
      "system:basic-user",
      {Rule({"create"}, "authorization.k8s.io",
            {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}),
       Rule({"create"}, "authentication.k8s.io", {"selfsubjectreviews"})}));
  roles.push_back(MakeRole("system:public-info-viewer",
                           {UrlRule({"get"}, {"/healthz", "/livez", "/readyz",
                                              "/version", "/version/"})}));
  return roles;
}

std::vector<api::ClusterRole> ComponentRoles() {
  std::vector<api::ClusterRole> roles;
  roles.push_back(MakeRole(
      "system:node",
      {Rule({"create"}, "authentication.k8s.io", {"tokenreviews"}),
       Rule({"create"}, "authorization.k8s.io",
            {"subjectaccessreviews", "localsubjectaccessreviews"}),
       Rule(kRead, "", {"services", "endpoints", "configmaps", "secrets"}),
       Rule({"create", "get", "list", "watch", "update", "patch", "delete"}, "",
            {"nodes"}),
       Rule({"patch", "update"}, "", {"nodes/status", "pods/status"}),
       Rule(kRead, "", {"pods"}), Rule({"create", "delete"}, "", {"pods"}),
       Rule({"create", "patch", "update"}, "", {"events"}),
       Rule({"create"}, "", {"serviceaccounts/token"}),
       Rule({"get", "create", "update", "patch", "delete"},
            "coordination.k8s.io", {"leases"}),
       Rule({"get"}, kResourceGroup, {"resourceclaims"}),
       Rule(kReadWrite, kResourceGroup, {"resourceslices"})}));
  roles.push_back(MakeRole(
      "system:kube-scheduler",
      {Rule({"create", "patch", "update"}, "", {"events"}),
       Rule({"create"}, "coordination.k8s.io", {"leases"}),
       Rule({"get", "update"}, "coordination.k8s.io", {"leases"}),
       Rule({"delete", "get", "list", "watch"}, "", {"nodes"}),
       Rule({"delete", "get", "list", "watch"}, "", {"pods"}),
       Rule({"create"}, "", {"bindings", "pods/binding"}),
       Rule({"patch", "update"}, "", {"pods/status"}),
       Rule(kRead, "", {"namespaces", "configmaps"}),
       Rule({"create"}, "authentication.k8s.io", {"tokenreviews"}),
       Rule({"create"}, "authorization.k8s.io", {"subjectaccessreviews"}),
       Rule(kRead, kResourceGroup,
            {"deviceclasses", "resourceclaims", "resourceslices",
             "devicetaintrules", "resourceclaimtemplates",
             "resourceslicepatches"}),
       // The claim finalizer is written with the allocation (an update of
       // the claim, then of its status).
       Rule({"update", "patch"}, kResourceGroup,
            {"resourceclaims", "resourceclaims/status"}),
       // resource.k8s.io/v1alpha2 (classic DRA, Kubernetes 1.30's rules):
       // the classes it filters by, the contexts it negotiates through.
       Rule(kRead, kResourceGroup,
            {"resourceclasses", "resourceclaimparameters",
             "resourceclassparameters", "podschedulingcontexts/status"}),
       Rule(kReadWrite, kResourceGroup, {"podschedulingcontexts"})}));
  roles.push_back(MakeRole(
      "system:kube-controller-manager",
      {Rule({"create", "patch", "update"}, "", {"events"}),
       Rule({"create"}, "coordination.k8s.io", {"leases"}),
       Rule({"get", "update"}, "coordination.k8s.io", {"leases"}),
       Rule({"create"}, "", {"secrets", "serviceaccounts"}),
       Rule({"delete"}, "", {"secrets"}),
       Rule({"get"}, "",
            {"configmaps", "namespaces", "secrets", "serviceaccounts"}),
       Rule({"update"}, "", {"secrets", "serviceaccounts"}),
       Rule({"create"}, "authentication.k8s.io", {"tokenreviews"}),
       Rule({"create"}, "authorization.k8s.io", {"subjectaccessreviews"}),
       Rule({"list", "watch"}, "*", {"*"}),
       Rule({"create"}, "", {"serviceaccounts/token"})}));
  roles.push_back(MakeRole(
      "system:controller:resource-claim-controller",
      {Rule(kRead, "", {"pods"}), Rule({"update"}, "", {"pods/finalizers"}),
       Rule({"get", "list", "watch", "create", "delete"}, kResourceGroup,
            {"resourceclaims"}),
       Rule({"update", "patch"}, kResourceGroup,
            {"resourceclaims", "resourceclaims/status"}),
       Rule({"update", "patch"}, "", {"pods/status"}),
       Rule({"create", "update", "patch"}, "", {"events"})}));
  roles.push_back(
      MakeRole("system:controller:device-taint-eviction-controller",
               {Rule({"get", "list", "watch", "delete"}, "", {"pods"}),
                Rule({"update", "patch"}, "", {"pods/status"}),
                Rule(kRead, kResourceGroup,
                     {"resourceclaims", "resourceslices", "deviceclasses",
                      "devicetaintrules"}),
                Rule({"create", "update", "patch"}, "", {"events"})}));
  // KEP-5677: answers ResourcePoolStatusRequests from slices, claims and
  // taint rules.
  roles.push_back(MakeRole(
      "system:controller:resourcepoolstatusrequest-controller",
      {Rule(kRead, kResourceGroup,
            {"resourcepoolstatusrequests", "resourceslices", "resourceclaims",
             "devicetaintrules"}),
       Rule({"delete"}, kResourceGroup, {"resourcepoolstatusrequests"}),
       Rule({"update", "patch"}, kResourceGroup,
            {"resourcepoolstatusrequests/status"}),
       Rule({"create", "update", "patch"}, "", {"events"})}));
  roles.push_back(
      MakeRole("system:controller:resourcequota-controller",
               {Rule({"list", "watch"}, "*", {"*"}),
                Rule({"update"}, "", {"resourcequotas/status"}),
                Rule({"create", "update", "patch"}, "", {"events"})}));
  roles.push_back(
      MakeRole("system:controller:service-account-controller",
               {Rule({"create"}, "", {"serviceaccounts"}),
                Rule({"create", "update", "patch"}, "", {"events"})}));
  roles.push_back(MakeRole("system:controller:pod-garbage-collector",
                           {Rule({"list", "watch", "delete"}, "", {"pods"}),
                            Rule({"get", "list"}, "", {"nodes"}),
                            Rule({"patch"}, "", {"pods/status"})}));
  return roles;
}

api::Subject Group(std::string_view name) {
  return {.kind = "Group",
          .api_group = std::string(api::kRbacGroup),
          .name = std::string(name)};
}
api::Subject User(std::string_view name) {
  return {.kind = "User",
          .api_group = std::string(api::kRbacGroup),
          .name = std::string(name)};
}

api::Subject ControllerAccount(std::string_view name) {
  return {.kind = "ServiceAccount",
          .name = std::string(name),
          .namespace_ = "kube-system"};
}

api::ClusterRoleBinding Binding(std::string role,
                                std::vector<api::Subject> subjects) {
  api::ClusterRoleBinding binding;
  binding.api_version = "rbac.authorization.k8s.io/v1";
  binding.kind = "ClusterRoleBinding";
  binding.metadata = BootstrapMeta(role);
  binding.role_ref = {.api_group = std::string(api::kRbacGroup),
                      .kind = "ClusterRole",
                      .name = std::move(role)};
  binding.subjects = std::move(subjects);
  return binding;
}

}  // namespace

std::vector<api::ClusterRole> BootstrapClusterRoles() {
  std::vector<api::ClusterRole> roles = UserFacingRoles();
  for (auto* more : {&DiscoveryRoles, &ComponentRoles}) {
    for (api::ClusterRole& role : (*more)()) roles.push_back(std::move(role));
  }
  return roles;
}

std::vector<api::ClusterRoleBinding> BootstrapClusterRoleBindings() {
  return {
      Binding("cluster-admin", {Group(auth::kSystemMasters)}),
      Binding("system:discovery", {Group(auth::kAllAuthenticated)}),
      Binding("system:basic-user", {Group(auth::kAllAuthenticated)}),
      Binding("system:public-info-viewer", {Group(auth::kAllAuthenticated),
                                            Group(auth::kAllUnauthenticated)}),
      // upstream binds system:node to nobody: the Node authorizer grants
      // nodes their rights.
      Binding("system:node", {}),
      Binding("system:kube-scheduler", {User(auth::kKubeScheduler)}),
      Binding("system:kube-controller-manager",
              {User(auth::kKubeControllerManager)}),
      // `dralloc controller` runs these controllers under one identity
      // (kube-controller-manager's own, as without
      // --use-service-account-credentials), so its user is bound to each
      // controller role as well as the controller's service account.
      Binding("system:controller:resource-claim-controller",
              {ControllerAccount("resource-claim-controller"),
               User(auth::kKubeControllerManager)}),
      Binding("system:controller:device-taint-eviction-controller",
              {ControllerAccount("device-taint-eviction-controller"),
               User(auth::kKubeControllerManager)}),
      Binding("system:controller:resourcepoolstatusrequest-controller",
              {ControllerAccount("resourcepoolstatusrequest-controller"),
               User(auth::kKubeControllerManager)}),
      Binding("system:controller:resourcequota-controller",
              {ControllerAccount("resourcequota-controller"),
               User(auth::kKubeControllerManager)}),
      Binding("system:controller:service-account-controller",
              {ControllerAccount("service-account-controller"),
               User(auth::kKubeControllerManager)}),
      Binding("system:controller:pod-garbage-collector",
              {ControllerAccount("pod-garbage-collector"),
               User(auth::kKubeControllerManager)}),
  };
}

}  // namespace dralloc::rbac
