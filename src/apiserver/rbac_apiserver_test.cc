// The RBAC parts that run in the API server, over a memory store: the
// policy feed keeps the index current, bootstrap and aggregation write the
// default roles, and escalation admission refuses what upstream refuses.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "api/resource_registry.h"
#include "apiserver/rbac_aggregation.h"
#include "apiserver/rbac_bootstrap.h"
#include "apiserver/rbac_escalation_admission.h"
#include "apiserver/rbac_policy_feed.h"
#include "apiserver/resource_storage.h"
#include "rbac/rbac_authorizer.h"
#include "rbac/rule_matching.h"
#include "store/memory_store.h"

namespace dralloc::apiserver {
namespace {

using std::chrono::milliseconds;
constexpr milliseconds kCatchUp{5000};

api::Subject UserSubject(std::string name) {
  return {"User", "rbac.authorization.k8s.io", std::move(name), ""};
}

class RbacApiServerTest : public testing::Test {
 protected:
  RbacApiServerTest() : storage_(store_), feed_(store_, index_) {}

  void SetUp() override {
    api::Namespace ns;
    ns.metadata.name = "default";
    ASSERT_TRUE(Create(ns, nullptr).ok());
    storage_.AddAdmissionPlugin(
        std::make_unique<RbacEscalationAdmission>(index_, authorizer_));
  }
  void TearDown() override { feed_.Stop(); }

  template <typename T>
  ApiOr<WriteResult> Create(const T& object, const auth::UserInfo* user) {
    RequestScope scope{
        .info = api::FindResourceByKind(api::KindOf(api::Object(object))),
        .version = "v1",
        .namespace_ = object.metadata.namespace_};
    return storage_.CreateObject(
        scope, object, WriteOptions{.want_object = true, .user = user});
  }
  bool Synced() { return feed_.WaitForRevision(store_.Revision(), kCatchUp); }

  bool Allowed(const auth::UserInfo& user, std::string verb,
               std::string resource, std::string ns = "default") {
    auth::RequestAttributes request{.user = user,
                                    .verb = std::move(verb),
                                    .api_group = "resource.k8s.io",
                                    .resource = std::move(resource),
                                    .namespace_ = std::move(ns)};
    return authorizer_.Authorize(request).decision == auth::Decision::kAllow;
  }

  store::MemoryStore store_;
  ResourceStorage storage_;
  rbac::PolicyIndex index_;
  rbac::RbacAuthorizer authorizer_{index_};
  RbacPolicyFeed feed_;
  const auth::UserInfo alice_{.name = "alice",
                              .groups = {"system:authenticated"}};
};

api::ClusterRole ClaimRole(std::string name, std::vector<std::string> verbs) {
  api::ClusterRole role;
  role.metadata.name = std::move(name);
  role.rules = {{.verbs = std::move(verbs),
                 .api_groups = {"resource.k8s.io"},
                 .resources = {"resourceclaims"}}};
  return role;
}

api::RoleBinding Binding(std::string name, std::string role, std::string user) {
  api::RoleBinding binding;
  binding.metadata.name = std::move(name);
  binding.metadata.namespace_ = "default";
  binding.role_ref = {"rbac.authorization.k8s.io", "ClusterRole",
                      std::move(role)};
  binding.subjects = {UserSubject(std::move(user))};
  return binding;
}

TEST_F(RbacApiServerTest, FeedMakesABindingEffective) {
  ASSERT_TRUE(feed_.Start().ok());
  EXPECT_FALSE(Allowed(alice_, "list", "resourceclaims"));
  ASSERT_TRUE(Create(ClaimRole("reader", {"list"}), nullptr).ok());
  ASSERT_TRUE(Create(Binding("alice-reads", "reader", "alice"), nullptr).ok());
  ASSERT_TRUE(Synced());
  EXPECT_TRUE(Allowed(alice_, "list", "resourceclaims"));
  EXPECT_FALSE(Allowed(alice_, "list", "resourceclaims", "other"));
  EXPECT_EQ(index_.size(), 2u);
  EXPECT_EQ(feed_.lists(), 1);
}

TEST_F(RbacApiServerTest, BootstrapAndAggregation) {
  RbacAggregation aggregation(storage_, index_);
  feed_.set_change_listener([&](bool cluster_roles_changed) {
    if (cluster_roles_changed) aggregation.Reconcile();
  });
  ASSERT_TRUE(EnsureBootstrapPolicy(storage_).ok());
  ASSERT_TRUE(feed_.Start().ok());
  // Aggregation writes admin/edit/view; the feed brings them back.
  const api::PolicyRule claim_write{.verbs = {"create"},
                                    .api_groups = {"resource.k8s.io"},
                                    .resources = {"resourceclaims"}};
  bool aggregated = false;
  for (int i = 0; i < 100 && !aggregated; ++i) {
    ASSERT_TRUE(Synced());
    auto rules = index_.RoleRefRules(
        {"rbac.authorization.k8s.io", "ClusterRole", "admin"}, "");
    aggregated = rules && rbac::UncoveredRules(*rules, {claim_write}).empty();
  }
  EXPECT_TRUE(aggregated);
  // Classic DRA (v1alpha2): view reads PodSchedulingContexts and claim
  // parameters; edit writes claim parameters (claims and templates are
  // the same resources in both families).
  auto view = index_.RoleRefRules(
      {"rbac.authorization.k8s.io", "ClusterRole", "view"}, "");
  ASSERT_TRUE(view);
  EXPECT_TRUE(rbac::UncoveredRules(
                  *view, {{.verbs = {"get", "list", "watch"},
                           .api_groups = {"resource.k8s.io"},
                           .resources = {"podschedulingcontexts",
                                         "podschedulingcontexts/status",
                                         "resourceclaimparameters"}}})
                  .empty());
  auto edit = index_.RoleRefRules(
      {"rbac.authorization.k8s.io", "ClusterRole", "edit"}, "");
  ASSERT_TRUE(edit);
  EXPECT_TRUE(
      rbac::UncoveredRules(*edit, {{.verbs = {"create", "delete"},
                                    .api_groups = {"resource.k8s.io"},
                                    .resources = {"resourceclaimparameters"}}})
          .empty());
  EXPECT_FALSE(
      rbac::UncoveredRules(*edit, {{.verbs = {"create"},
                                    .api_groups = {"resource.k8s.io"},
                                    .resources = {"podschedulingcontexts"}}})
          .empty());
  // A new aggregate-to-view role flows into view, edit and admin.
  api::ClusterRole extra = ClaimRole("extra-view", {"watch"});
  extra.rules[0].resources = {"deviceclasses"};
  extra.metadata.labels["rbac.authorization.k8s.io/aggregate-to-view"] = "true";
  ASSERT_TRUE(Create(extra, nullptr).ok());
  const api::PolicyRule class_watch = extra.rules[0];
  bool in_view = false;
  for (int i = 0; i < 100 && !in_view; ++i) {
    ASSERT_TRUE(Synced());
    auto rules = index_.RoleRefRules(
        {"rbac.authorization.k8s.io", "ClusterRole", "view"}, "");
    in_view = rules && rbac::UncoveredRules(*rules, {class_watch}).empty();
  }
  EXPECT_TRUE(in_view);
  // Running bootstrap again changes nothing and fails nothing.
  const int64_t revision = store_.Revision();
  ASSERT_TRUE(EnsureBootstrapPolicy(storage_).ok());
  EXPECT_EQ(store_.Revision(), revision);
  // system:masters may do anything through cluster-admin.
  EXPECT_TRUE(Allowed({.name = "root", .groups = {"system:masters"}}, "delete",
                      "resourceslices", ""));
}

TEST_F(RbacApiServerTest, EscalationIsRefused) {
  ASSERT_TRUE(Create(ClaimRole("reader", {"get", "list"}), nullptr).ok());
  ASSERT_TRUE(Create(ClaimRole("writer", {"create"}), nullptr).ok());
  ASSERT_TRUE(Create(Binding("alice-reads", "reader", "alice"), nullptr).ok());
  api::ClusterRole rbac_writer;
  rbac_writer.metadata.name = "rbac-writer";
  rbac_writer.rules = {{.verbs = {"create", "update"},
                        .api_groups = {"rbac.authorization.k8s.io"},
                        .resources = {"roles", "rolebindings"}}};
  ASSERT_TRUE(Create(rbac_writer, nullptr).ok());
  ASSERT_TRUE(
      Create(Binding("alice-rbac", "rbac-writer", "alice"), nullptr).ok());
  ASSERT_TRUE(feed_.Start().ok());

  // A role within her rights is fine; one beyond them is refused.
  api::Role role;
  role.metadata.name = "mine";
  role.metadata.namespace_ = "default";
  role.rules = ClaimRole("", {"get"}).rules;
  EXPECT_TRUE(Create(role, &alice_).ok());
  role.metadata.name = "more";
  role.rules = ClaimRole("", {"get", "delete"}).rules;
  auto refused = Create(role, &alice_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 403);
  EXPECT_EQ(refused.error().message,
            "roles.rbac.authorization.k8s.io \"more\" is forbidden: user "
            "\"alice\" (groups=[\"system:authenticated\"]) is attempting to "
            "grant RBAC permissions not currently held:\n"
            "{APIGroups:[\"resource.k8s.io\"], Resources:[\"resourceclaims\"], "
            "Verbs:[\"delete\"]}");

  // Binding a role she holds is fine; one she does not is refused.
  EXPECT_TRUE(Create(Binding("bob-reads", "reader", "bob"), &alice_).ok());
  refused = Create(Binding("bob-writes", "writer", "bob"), &alice_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 403);
  // A binding to a role that does not exist.
  refused = Create(Binding("bob-ghost", "ghost", "bob"), &alice_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 403);
  EXPECT_EQ(refused.error().message,
            "rolebindings.rbac.authorization.k8s.io \"bob-ghost\" is "
            "forbidden: clusterroles.rbac.authorization.k8s.io \"ghost\" not "
            "found");
  // system:masters and in-process writers skip the check.
  const auth::UserInfo master{.name = "root", .groups = {"system:masters"}};
  EXPECT_TRUE(Create(Binding("bob-ghost", "ghost", "bob"), &master).ok());
  EXPECT_TRUE(Create(Binding("bob-writes", "writer", "bob"), nullptr).ok());
  EXPECT_EQ(store_.Count("/rolebindings/"), 5u);
}

TEST_F(RbacApiServerTest, BindVerbAllowsBindingWithoutTheRules) {
  ASSERT_TRUE(Create(ClaimRole("writer", {"create"}), nullptr).ok());
  api::ClusterRole binder;
  binder.metadata.name = "binder";
  binder.rules = {{.verbs = {"create"},
                   .api_groups = {"rbac.authorization.k8s.io"},
                   .resources = {"rolebindings"}},
                  {.verbs = {"bind"},
                   .api_groups = {"rbac.authorization.k8s.io"},
                   .resources = {"clusterroles"},
                   .resource_names = {"writer", "ghost"}}};
  ASSERT_TRUE(Create(binder, nullptr).ok());
  ASSERT_TRUE(Create(Binding("alice-binds", "binder", "alice"), nullptr).ok());
  ASSERT_TRUE(feed_.Start().ok());
  EXPECT_TRUE(Create(Binding("bob-writes", "writer", "bob"), &alice_).ok());
  EXPECT_TRUE(Create(Binding("bob-ghost", "ghost", "bob"), &alice_).ok());
}

TEST_F(RbacApiServerTest, RoleRefIsImmutable) {
  ASSERT_TRUE(Create(ClaimRole("reader", {"get"}), nullptr).ok());
  auto created = Create(Binding("b", "reader", "bob"), nullptr);
  ASSERT_TRUE(created.ok());
  api::RoleBinding changed = std::get<api::RoleBinding>(*created->object);
  changed.role_ref.name = "other";
  RequestScope scope{.info = api::FindResourceByKind("RoleBinding"),
                     .version = "v1",
                     .namespace_ = "default",
                     .name = "b"};
  const auth::UserInfo master{.name = "root", .groups = {"system:masters"}};
  auto updated =
      storage_.UpdateObject(scope, changed, WriteOptions{.user = &master});
  ASSERT_FALSE(updated.ok());
  EXPECT_EQ(updated.error().code, 422);
  EXPECT_NE(updated.error().message.find("cannot change roleRef"),
            std::string::npos)
      << updated.error().message;
}

}  // namespace
}  // namespace dralloc::apiserver
