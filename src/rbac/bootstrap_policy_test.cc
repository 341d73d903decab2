// The bootstrap policy passes validation, carries the bootstrapping label
// and annotation, and grants what upstream's defaults grant; aggregation
// fills admin/edit/view from the aggregate-to-* roles.
#include "rbac/bootstrap_policy.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "api/validation/validation.h"
#include "rbac/cluster_role_aggregation.h"
#include "rbac/policy_index.h"
#include "rbac/rbac_authorizer.h"
#include "rbac/rule_matching.h"

namespace dralloc::rbac {
namespace {

std::vector<api::ClusterRole> AggregatedBootstrapRoles() {
  std::vector<api::ClusterRole> roles = BootstrapClusterRoles();
  // Until nothing changes: view flows into edit, then edit into admin.
  for (bool changed = true; changed;) {
    changed = false;
    for (api::ClusterRole& role : roles) {
      if (!role.aggregation_rule) continue;
      std::vector<api::PolicyRule> rules = AggregatedRules(role, roles);
      if (rules == role.rules) continue;
      role.rules = std::move(rules);
      changed = true;
    }
  }
  return roles;
}

void FillBootstrapIndex(PolicyIndex& index) {
  for (const auto& role : AggregatedBootstrapRoles()) index.Upsert(role);
  for (const auto& binding : BootstrapClusterRoleBindings()) {
    index.Upsert(binding);
  }
}

TEST(BootstrapPolicyTest, ObjectsAreValidAndMarked) {
  std::set<std::string> role_names;
  for (const api::ClusterRole& role : BootstrapClusterRoles()) {
    EXPECT_EQ(api::ToString(api::ValidateClusterRole(role)), "")
        << role.metadata.name;
    EXPECT_EQ(role.metadata.labels.at(std::string(kBootstrappingLabel)),
              "rbac-defaults");
    EXPECT_EQ(role.metadata.annotations.at(std::string(kAutoupdateAnnotation)),
              "true");
    role_names.insert(role.metadata.name);
  }
  for (const char* name :
       {"cluster-admin", "admin", "edit", "view", "system:basic-user",
        "system:discovery", "system:public-info-viewer", "system:node",
        "system:kube-scheduler", "system:kube-controller-manager",
        "system:controller:resource-claim-controller"}) {
    EXPECT_TRUE(role_names.contains(name)) << name;
  }
  for (const api::ClusterRoleBinding& binding :
       BootstrapClusterRoleBindings()) {
    EXPECT_EQ(api::ToString(api::ValidateClusterRoleBinding(binding)), "")
        << binding.metadata.name;
    EXPECT_TRUE(role_names.contains(binding.role_ref.name));
  }
}

TEST(BootstrapPolicyTest, DefaultGrants) {
  PolicyIndex index;
  FillBootstrapIndex(index);
  const RbacAuthorizer authorizer(index);
  auto allowed = [&](auth::UserInfo user, std::string verb, std::string group,
                     std::string resource, std::string ns) {
    auth::RequestAttributes request{.user = std::move(user),
                                    .verb = std::move(verb),
                                    .api_group = std::move(group),
                                    .resource = std::move(resource),
                                    .namespace_ = std::move(ns)};
    return authorizer.Authorize(request).decision == auth::Decision::kAllow;
  };
  const auth::UserInfo master{.name = "admin", .groups = {"system:masters"}};
  const auth::UserInfo someone{.name = "someone",
                               .groups = {"system:authenticated"}};
  EXPECT_TRUE(allowed(master, "delete", "apps", "deployments", "x"));
  EXPECT_TRUE(allowed(someone, "create", "authorization.k8s.io",
                      "selfsubjectaccessreviews", ""));
  EXPECT_FALSE(allowed(someone, "list", "", "pods", "default"));
  EXPECT_TRUE(allowed({.name = "system:kube-scheduler"}, "update",
                      "resource.k8s.io", "resourceclaims/status", "default"));
  // Classic DRA (resource.k8s.io/v1alpha2): the scheduler negotiates
  // through PodSchedulingContexts and reads ResourceClasses.
  EXPECT_TRUE(allowed({.name = "system:kube-scheduler"}, "create",
                      "resource.k8s.io", "podschedulingcontexts", "default"));
  EXPECT_TRUE(allowed({.name = "system:kube-scheduler"}, "watch",
                      "resource.k8s.io", "resourceclasses", ""));
  EXPECT_FALSE(allowed({.name = "system:kube-scheduler"}, "update",
                       "resource.k8s.io", "podschedulingcontexts/status",
                       "default"));
  auth::RequestAttributes health{.user = {.name = "system:anonymous",
                                          .groups = {"system:unauthenticated"}},
                                 .verb = "get",
                                 .resource_request = false,
                                 .path = "/version"};
  EXPECT_EQ(authorizer.Authorize(health).reason,
            "RBAC: allowed by ClusterRoleBinding \"system:public-info-viewer\" "
            "of ClusterRole \"system:public-info-viewer\" to Group "
            "\"system:unauthenticated\"");
}

TEST(ClusterRoleAggregationTest, AdminEditViewAggregate) {
  std::map<std::string, std::vector<api::PolicyRule>> rules;
  for (const auto& role : AggregatedBootstrapRoles()) {
    rules[role.metadata.name] = role.rules;
  }
  const api::PolicyRule claim_write{.verbs = {"create"},
                                    .api_groups = {"resource.k8s.io"},
                                    .resources = {"resourceclaims"}};
  const api::PolicyRule claim_read{.verbs = {"list"},
                                   .api_groups = {"resource.k8s.io"},
                                   .resources = {"resourceclaims"}};
  const api::PolicyRule role_write{.verbs = {"create"},
                                   .api_groups = {"rbac.authorization.k8s.io"},
                                   .resources = {"rolebindings"}};
  EXPECT_TRUE(UncoveredRules(rules["view"], {claim_read}).empty());
  EXPECT_FALSE(UncoveredRules(rules["view"], {claim_write}).empty());
  EXPECT_TRUE(UncoveredRules(rules["edit"], {claim_read, claim_write}).empty());
  EXPECT_FALSE(UncoveredRules(rules["edit"], {role_write}).empty());
  EXPECT_TRUE(
      UncoveredRules(rules["admin"], {claim_read, claim_write, role_write})
          .empty());
}

TEST(ClusterRoleAggregationTest, SelectorsMatchLabelsAndExpressions) {
  api::LabelSelector selector;
  selector.match_labels["a"] = "1";
  selector.match_expressions = {{"b", "In", {"x", "y"}},
                                {"c", "DoesNotExist", {}}};
  EXPECT_TRUE(SelectorMatches(selector, {{"a", "1"}, {"b", "y"}}));
  EXPECT_FALSE(SelectorMatches(selector, {{"a", "1"}, {"b", "z"}}));
  EXPECT_FALSE(SelectorMatches(selector, {{"a", "1"}, {"b", "x"}, {"c", "1"}}));
  EXPECT_TRUE(SelectorMatches({}, {}));
}

TEST(RuleMatchingTest, UncoveredRulesAreCompacted) {
  const std::vector<api::PolicyRule> owned = {
      {.verbs = {"get", "list"}, .api_groups = {""}, .resources = {"pods"}}};
  const std::vector<api::PolicyRule> missing = UncoveredRules(
      owned, {{.verbs = {"get", "delete", "update"},
               .api_groups = {""},
               .resources = {"pods"}},
              {.verbs = {"get"}, .non_resource_urls = {"/metrics"}}});
  std::set<std::string> texts;
  for (const api::PolicyRule& rule : missing) texts.insert(CompactString(rule));
  EXPECT_EQ(texts, (std::set<std::string>{
                       "{APIGroups:[\"\"], Resources:[\"pods\"], "
                       "Verbs:[\"delete\" \"update\"]}",
                       "{NonResourceURLs:[\"/metrics\"], Verbs:[\"get\"]}"}));
}

}  // namespace
}  // namespace dralloc::rbac
