// Impersonation as upstream's filter does it: each part authorized with the
// `impersonate` verb, upstream's 403 for a part that is not, and the
// groups of the acting user.
#include "apiserver/impersonation.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dralloc::apiserver {
namespace {

// Allows `admin` to impersonate the "<resource>/<subresource>/<namespace>/
// <name>" strings in `allowed`, and nothing else.
class ImpersonateAuthorizer : public auth::Authorizer {
 public:
  explicit ImpersonateAuthorizer(std::set<std::string> allowed)
      : allowed_(std::move(allowed)) {}
  auth::AuthorizationResult Authorize(
      const auth::RequestAttributes& a) const override {
    const std::string key = a.api_group + ":" + a.resource + "/" +
                            a.subresource + "/" + a.namespace_ + "/" + a.name;
    if (a.user.name == "admin" && a.verb == "impersonate" &&
        allowed_.contains(key)) {
      return {auth::Decision::kAllow, ""};
    }
    return {auth::Decision::kNoOpinion, ""};
  }
  void RulesFor(const auth::UserInfo&, std::string_view,
                auth::RuleSet&) const override {}

 private:
  std::set<std::string> allowed_;
};

AccessControl Access(std::set<std::string> allowed) {
  std::vector<std::unique_ptr<auth::Authorizer>> authorizers;
  authorizers.push_back(
      std::make_unique<ImpersonateAuthorizer>(std::move(allowed)));
  return AccessControl(
      nullptr, std::make_shared<auth::UnionAuthorizer>(std::move(authorizers)));
}

HttpRequest Request(std::vector<std::pair<std::string, std::string>> headers) {
  HttpRequest request;
  request.method = "GET";
  request.path = "/api/v1/namespaces/default/pods";
  request.impersonation_headers = std::move(headers);
  return request;
}

const auth::UserInfo kAdmin{"admin", "", {"system:authenticated"}, {}};

using Groups = std::vector<std::string>;

TEST(ImpersonationTest, NoHeadersKeepsTheRequester) {
  auto user = ActingUser(Request({}), kAdmin, Access({}));
  ASSERT_TRUE(user.ok());
  EXPECT_EQ(*user, kAdmin);
}

TEST(ImpersonationTest, AUserGetsSystemAuthenticated) {
  auto user = ActingUser(Request({{"impersonate-user", "bob"}}), kAdmin,
                         Access({":users///bob"}));
  ASSERT_TRUE(user.ok()) << user.error().message;
  EXPECT_EQ(user->name, "bob");
  EXPECT_EQ(user->groups, Groups{"system:authenticated"});
}

TEST(ImpersonationTest, GroupsUidAndExtrasAreEachAuthorized) {
  const auto request = Request({{"impersonate-user", "bob"},
                                {"impersonate-group", "gpu-team"},
                                {"impersonate-uid", "u-1"},
                                {"impersonate-extra-scopes%2Fa", "view"}});
  const std::set<std::string> all = {
      ":users///bob", ":groups///gpu-team", "authentication.k8s.io:uids///u-1",
      "authentication.k8s.io:userextras/scopes/a//view"};
  auto user = ActingUser(request, kAdmin, Access(all));
  ASSERT_TRUE(user.ok()) << user.error().message;
  EXPECT_EQ(user->groups, (Groups{"gpu-team", "system:authenticated"}));
  EXPECT_EQ(user->uid, "u-1");
  EXPECT_EQ(user->extra.at("scopes/a"), Groups{"view"});
  for (const std::string& missing : all) {
    std::set<std::string> fewer = all;
    fewer.erase(missing);
    SCOPED_TRACE(missing);
    auto refused = ActingUser(request, kAdmin, Access(fewer));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, 403);
  }
}

TEST(ImpersonationTest, RefusalIsUpstreamsForbidden) {
  auto refused =
      ActingUser(Request({{"impersonate-user", "bob"}}), kAdmin, Access({}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 403);
  EXPECT_EQ(refused.error().message,
            "users \"bob\" is forbidden: User \"admin\" cannot impersonate "
            "resource \"users\" in API group \"\" at the cluster scope");
}

TEST(ImpersonationTest, ServiceAccountsAreCheckedInTheirNamespace) {
  auto user = ActingUser(
      Request({{"impersonate-user", "system:serviceaccount:gpu:driver"}}),
      kAdmin, Access({":serviceaccounts//gpu/driver"}));
  ASSERT_TRUE(user.ok()) << user.error().message;
  EXPECT_EQ(user->groups,
            (Groups{"system:serviceaccounts", "system:serviceaccounts:gpu",
                    "system:authenticated"}));
  auto refused = ActingUser(
      Request({{"impersonate-user", "system:serviceaccount:gpu:driver"}}),
      kAdmin, Access({":users///system:serviceaccount:gpu:driver"}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "serviceaccounts \"driver\" is forbidden: User \"admin\" cannot "
            "impersonate resource \"serviceaccounts\" in API group \"\" in "
            "the namespace \"gpu\"");
}

TEST(ImpersonationTest, AnonymousGetsSystemUnauthenticated) {
  auto user = ActingUser(Request({{"impersonate-user", "system:anonymous"}}),
                         kAdmin, Access({":users///system:anonymous"}));
  ASSERT_TRUE(user.ok());
  EXPECT_EQ(user->groups, Groups{"system:unauthenticated"});
}

TEST(ImpersonationTest, GroupsWithoutAUserAreMalformed) {
  auto refused = ActingUser(Request({{"impersonate-group", "gpu-team"}}),
                            kAdmin, Access({":groups///gpu-team"}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 500);
}

}  // namespace
}  // namespace dralloc::apiserver
