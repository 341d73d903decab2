#include "apiserver/access_control.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "apiserver/access_reviews.h"
#include "apiserver/audit_log.h"
#include "apiserver/request_info.h"

namespace dralloc::apiserver {
namespace {

HttpRequest Request(std::string method, std::string target) {
  HttpRequest request;
  request.method = std::move(method);
  const size_t question = target.find('?');
  request.path = target.substr(0, question);
  if (question != std::string::npos) {
    std::string query = target.substr(question + 1);
    size_t start = 0;
    while (start < query.size()) {
      size_t amp = query.find('&', start);
      if (amp == std::string::npos) amp = query.size();
      std::string pair = query.substr(start, amp - start);
      const size_t eq = pair.find('=');
      request.query.emplace(pair.substr(0, eq),
                            eq == std::string::npos ? "" : pair.substr(eq + 1));
      start = amp + 1;
    }
  }
  return request;
}

struct AttributesCase {
  std::string method, target;
  // verb|group|resource|subresource|namespace|name, or "nonresource|verb"
  std::string expected;
};

std::string Describe(const auth::RequestAttributes& a) {
  if (!a.resource_request) return "nonresource|" + a.verb;
  return a.verb + "|" + a.api_group + "|" + a.resource + "|" + a.subresource +
         "|" + a.namespace_ + "|" + a.name;
}

TEST(RequestAttributesTest, ReadsVerbAndResourceAsUpstream) {
  const AttributesCase cases[] = {
      {"GET", "/version", "nonresource|get"},
      {"GET", "/apis/resource.k8s.io/v1", "nonresource|get"},
      {"GET", "/api", "nonresource|get"},
      {"POST", "/healthz", "nonresource|post"},
      {"GET", "/api/v1/pods", "list||pods|||"},
      {"GET", "/api/v1/pods?watch=true", "watch||pods|||"},
      {"GET", "/api/v1/watch/namespaces/ns/pods", "watch||pods||ns|"},
      {"GET", "/api/v1/namespaces/ns/pods/p", "get||pods||ns|p"},
      {"PUT", "/api/v1/namespaces/ns/pods/p/status",
       "update||pods|status|ns|p"},
      {"POST", "/api/v1/namespaces/ns/pods/p/binding",
       "create||pods|binding|ns|p"},
      {"DELETE", "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims",
       "deletecollection|resource.k8s.io|resourceclaims||ns|"},
      {"DELETE", "/apis/resource.k8s.io/v1/resourceslices/s",
       "delete|resource.k8s.io|resourceslices|||s"},
      {"PATCH",
       "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/c/status",
       "patch|resource.k8s.io|resourceclaims|status|ns|c"},
      {"GET", "/api/v1/namespaces/ns", "get||namespaces||ns|ns"},
      {"PUT", "/api/v1/namespaces/ns/finalize",
       "update||namespaces|finalize|ns|ns"},
      {"GET", "/api/v1/namespaces", "list||namespaces|||"},
      {"GET", "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dp",
       "list||pods||ns|"},
      {"GET",
       "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name=p&watch=1",
       "watch||pods||ns|p"},
      {"POST", "/api/v1/namespaces/ns/serviceaccounts/sa/token",
       "create||serviceaccounts|token|ns|sa"},
  };
  for (const AttributesCase& c : cases) {
    SCOPED_TRACE(c.method + " " + c.target);
    EXPECT_EQ(Describe(RequestAttributesOf(Request(c.method, c.target), {})),
              c.expected);
  }
}

TEST(RequestAttributesTest, KeepsExactMatchFieldSelectorTerms) {
  auto a = RequestAttributesOf(
      Request("GET",
              "/apis/resource.k8s.io/v1/resourceslices?fieldSelector="
              "spec.nodeName=node-a,spec.driver!=x"),
      {});
  ASSERT_NE(a.FieldSelectorValue("spec.nodeName"), nullptr);
  EXPECT_EQ(*a.FieldSelectorValue("spec.nodeName"), "node-a");
  EXPECT_EQ(a.FieldSelectorValue("spec.driver"), nullptr);
}

TEST(AccessControlTest, ForbiddenMessagesMatchUpstream) {
  auth::RequestAttributes a;
  a.user.name = "bob";
  a.verb = "create";
  a.api_group = "resource.k8s.io";
  a.resource = "resourceclaims";
  a.namespace_ = "default";
  ApiError error = AccessControl::ForbiddenFor(a, "");
  EXPECT_EQ(error.code, 403);
  EXPECT_EQ(error.reason, "Forbidden");
  EXPECT_EQ(error.message,
            "resourceclaims.resource.k8s.io is forbidden: User \"bob\" cannot "
            "create resource \"resourceclaims\" in API group "
            "\"resource.k8s.io\" in the namespace \"default\"");
  a.verb = "get";
  a.name = "c1";
  a.subresource = "status";
  error = AccessControl::ForbiddenFor(a, "no relationship found");
  EXPECT_EQ(error.message,
            "resourceclaims.resource.k8s.io \"c1\" is forbidden: User \"bob\" "
            "cannot get resource \"resourceclaims/status\" in API group "
            "\"resource.k8s.io\" in the namespace \"default\": no "
            "relationship found");
  EXPECT_EQ(error.details["kind"], "resourceclaims");
  EXPECT_EQ(error.details["name"], "c1");
  a = {};
  a.user.name = "bob";
  a.verb = "list";
  a.resource = "nodes";
  error = AccessControl::ForbiddenFor(a, "");
  EXPECT_EQ(error.message,
            "nodes is forbidden: User \"bob\" cannot list resource \"nodes\" "
            "in API group \"\" at the cluster scope");
  a = {};
  a.user.name = "system:anonymous";
  a.resource_request = false;
  a.verb = "get";
  a.path = "/metrics";
  error = AccessControl::ForbiddenFor(a, "");
  EXPECT_EQ(
      error.message,
      "forbidden: User \"system:anonymous\" cannot get path \"/metrics\"");
}

// Allows `alice` to create resourceclaims in "team-a" and nothing else.
class AliceAuthorizer : public auth::Authorizer {
 public:
  auth::AuthorizationResult Authorize(
      const auth::RequestAttributes& a) const override {
    if (a.user.name == "alice" && a.verb == "create" &&
        a.resource == "resourceclaims" && a.namespace_ == "team-a") {
      return {auth::Decision::kAllow, "test rule"};
    }
    return {auth::Decision::kNoOpinion, ""};
  }
  void RulesFor(const auth::UserInfo& user, std::string_view namespace_,
                auth::RuleSet& rules) const override {
    if (user.name == "alice" && namespace_ == "team-a") {
      rules.resource_rules.push_back(
          {{"create"}, {"resource.k8s.io"}, {"resourceclaims"}, {}});
    }
  }
};

class TokenAuthenticator : public auth::Authenticator {
 public:
  auth::AuthenticationResult Authenticate(
      const auth::Credentials& credentials) const override {
    if (credentials.bearer_token == "alice-token") {
      return auth::AuthenticationResult::Authenticated(
          {"alice", "uid-1", {"team"}, {}});
    }
    if (!credentials.bearer_token.empty()) {
      return auth::AuthenticationResult::Rejected("invalid bearer token");
    }
    return {};
  }
};

AccessControl TestAccess(bool anonymous) {
  std::vector<std::unique_ptr<auth::Authenticator>> chain;
  chain.push_back(std::make_unique<TokenAuthenticator>());
  std::vector<std::unique_ptr<auth::Authorizer>> authorizers;
  authorizers.push_back(std::make_unique<AliceAuthorizer>());
  return AccessControl(
      std::make_shared<auth::UnionAuthenticator>(std::move(chain), anonymous),
      std::make_shared<auth::UnionAuthorizer>(std::move(authorizers)));
}

TEST(AccessControlTest, BearerTokensAreReadAsUpstreamReadsThem) {
  const AccessControl access = TestAccess(false);
  struct Case {
    std::string header;
    bool authenticated;
  } cases[] = {{"Bearer alice-token", true},
               {"bearer alice-token", true},
               {"BEARER alice-token", true},
               {"  Bearer alice-token  ", true},
               {"Bearer alice-token extra", true},
               {"Bearer  alice-token", false},
               {"Bearer Alice-token", false},
               {"Basic alice-token", false},
               {"Bearer", false},
               {"", false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.header);
    HttpRequest request = Request("GET", "/api");
    request.authorization = c.header;
    request.has_authorization = !c.header.empty();
    auto user = access.Authenticate(request);
    EXPECT_EQ(user.ok(), c.authenticated);
    if (user.ok()) {
      EXPECT_EQ(user->name, "alice");
      EXPECT_EQ(user->groups,
                (std::vector<std::string>{"team", "system:authenticated"}));
    } else {
      EXPECT_EQ(user.error().code, 401);
      EXPECT_EQ(user.error().message, "Unauthorized");
    }
  }
}

TEST(AccessControlTest, AnonymousOnlyWithoutCredentials) {
  const AccessControl access = TestAccess(true);
  HttpRequest request = Request("GET", "/api");
  auto anonymous = access.Authenticate(request);
  ASSERT_TRUE(anonymous.ok());
  EXPECT_EQ(anonymous->name, "system:anonymous");
  EXPECT_EQ(anonymous->groups,
            std::vector<std::string>{"system:unauthenticated"});
  request.authorization = "Bearer wrong";
  request.has_authorization = true;
  EXPECT_FALSE(access.Authenticate(request).ok());
}

TEST(AccessReviewsTest, AnswersWhoamiAndCanI) {
  const AccessControl access = TestAccess(false);
  const AccessReviews reviews(access);
  const auth::UserInfo alice{
      "alice", "uid-1", {"team", "system:authenticated"}, {}};
  auto whoami = reviews.Create(
      "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "{}", alice);
  ASSERT_TRUE(whoami.ok());
  auto json = nlohmann::json::parse(*whoami);
  EXPECT_EQ(json["status"]["userInfo"]["username"], "alice");
  EXPECT_EQ(json["kind"], "SelfSubjectReview");

  auto allowed = reviews.Create(
      "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      R"({"spec":{"resourceAttributes":{"namespace":"team-a","verb":"create",
          "group":"resource.k8s.io","resource":"resourceclaims"}}})",
      alice);
  ASSERT_TRUE(allowed.ok());
  EXPECT_EQ(nlohmann::json::parse(*allowed)["status"]["allowed"], true);
  auto denied = reviews.Create(
      "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      R"({"spec":{"user":"bob","resourceAttributes":{"namespace":"team-a",
          "verb":"create","group":"resource.k8s.io",
          "resource":"resourceclaims"}}})",
      alice);
  ASSERT_TRUE(denied.ok());
  EXPECT_EQ(nlohmann::json::parse(*denied)["status"]["allowed"], false);
  auto neither = reviews.Create(
      "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      R"({"spec":{}})", alice);
  ASSERT_FALSE(neither.ok());
  EXPECT_EQ(neither.error().code, 422);
  auto rules = reviews.Create(
      "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
      R"({"spec":{"namespace":"team-a"}})", alice);
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(nlohmann::json::parse(
                *rules)["status"]["resourceRules"][0]["resources"][0],
            "resourceclaims");
  EXPECT_FALSE(AccessReviews::Handles("/apis/authorization.k8s.io/v1/x"));
}

TEST(AuditLogTest, FormatsUpstreamsEventShape) {
  auth::RequestAttributes a = RequestAttributesOf(
      Request("GET", "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/c"),
      {"alice", "", {"team"}, {}});
  AuditRecord record;
  record.request_uri =
      "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/c";
  record.source_ip = "127.0.0.1";
  record.attributes = &a;
  record.code = 404;
  record.received = std::chrono::system_clock::time_point(
      std::chrono::microseconds(1'700'000'000'123'456));
  record.completed = record.received + std::chrono::microseconds(2500);
  record.decision = "allow";
  auto event = nlohmann::json::parse(AuditLog::Format(record));
  EXPECT_EQ(event["apiVersion"], "audit.k8s.io/v1");
  EXPECT_EQ(event["level"], "Metadata");
  EXPECT_EQ(event["stage"], "ResponseComplete");
  EXPECT_EQ(event["verb"], "get");
  EXPECT_EQ(event["user"]["username"], "alice");
  EXPECT_EQ(event["objectRef"]["resource"], "resourceclaims");
  EXPECT_EQ(event["objectRef"]["name"], "c");
  EXPECT_EQ(event["objectRef"]["apiGroup"], "resource.k8s.io");
  EXPECT_EQ(event["responseStatus"]["code"], 404);
  EXPECT_EQ(event["requestReceivedTimestamp"], "2023-11-14T22:13:20.123456Z");
  EXPECT_EQ(event["stageTimestamp"], "2023-11-14T22:13:20.125956Z");
  EXPECT_EQ(event["annotations"]["apiserver.latency.k8s.io/total"], "2.500ms");
  EXPECT_EQ(event["annotations"]["authorization.k8s.io/decision"], "allow");
}

}  // namespace
}  // namespace dralloc::apiserver
