// TokenRequestHandler: defaults, the response shape, and each error upstream
// answers (data-driven: request body → code and message).
#include "serviceaccount/token_request_handler.h"

#include <gtest/gtest.h>

#include "serviceaccount/fake_object_lookup_test_util.h"
#include "serviceaccount/jws.h"
#include "serviceaccount/test_keys.h"

namespace dralloc::serviceaccount {
namespace {

using Json = nlohmann::ordered_json;

constexpr int64_t kNow = 1'800'000'000;  // 2027-01-15T08:00:00Z
constexpr char kIssuer[] = "https://kubernetes.default.svc.cluster.local";

class TokenRequestHandlerTest : public ::testing::Test {
 protected:
  TokenRequestHandlerTest()
      : keys_(testing::NewTestKeyPair("P-256")),
        signer_(*TokenSigner::Create(*ParsePrivateKeyPem(keys_.private_pem),
                                     kIssuer)),
        handler_(signer_, lookup_,
                 {.api_audiences = {},
                  .max_expiration_seconds = 48 * 3600,
                  .clock = [] { return kNow; },
                  .new_token_id = [] { return std::string("jti-1"); }}) {
    lookup_.service_accounts["drivers/gpu-driver"] = {.uid = "sa-uid"};
    lookup_.pods["drivers/plugin-0"] = {.uid = "pod-uid",
                                        .service_account_name = "gpu-driver",
                                        .node_name = "node-1"};
    lookup_.pods["drivers/other"] = {.uid = "other-uid",
                                     .service_account_name = "default"};
    lookup_.secrets["drivers/creds"] = {.uid = "secret-uid"};
    lookup_.nodes["node-1"] = {.uid = "node-uid"};
  }

  TokenRequestResponse Post(const std::string& body,
                            std::string_view name = "gpu-driver") {
    return handler_.Handle("drivers", name, body);
  }

  // The claims of the token in a 201 response.
  Json ClaimsOf(const TokenRequestResponse& response) {
    const std::string token = response.body["status"]["token"];
    return Json::parse(*Base64UrlDecode(SplitJws(token)->payload));
  }

  testing::TestKeyPair keys_;
  TokenSigner signer_;
  testing::FakeObjectLookup lookup_;
  TokenRequestHandler handler_;
};

TEST_F(TokenRequestHandlerTest, DefaultsAudienceAndExpiration) {
  const TokenRequestResponse response = Post(R"({"kind": "TokenRequest",
      "apiVersion": "authentication.k8s.io/v1", "spec": {}})");
  ASSERT_EQ(response.code, 201) << response.body.dump();
  EXPECT_EQ(response.body["spec"]["audiences"], Json::array({kIssuer}));
  EXPECT_EQ(response.body["spec"]["expirationSeconds"], 3600);
  EXPECT_TRUE(response.body["spec"]["boundObjectRef"].is_null());
  EXPECT_EQ(response.body["metadata"]["name"], "gpu-driver");
  EXPECT_EQ(response.body["status"]["expirationTimestamp"],
            "2027-01-15T09:00:00Z");
  const Json claims = ClaimsOf(response);
  EXPECT_EQ(claims["exp"], kNow + 3600);
  EXPECT_EQ(claims["sub"], "system:serviceaccount:drivers:gpu-driver");
  EXPECT_EQ(claims["kubernetes.io"]["serviceaccount"]["uid"], "sa-uid");
}

TEST_F(TokenRequestHandlerTest, PodBoundTokenNamesPodAndNode) {
  const TokenRequestResponse response = Post(R"({"spec": {
      "audiences": ["https://kubernetes.default.svc.cluster.local", "vault"],
      "expirationSeconds": 600,
      "boundObjectRef": {"kind": "Pod", "apiVersion": "v1",
                         "name": "plugin-0", "uid": "pod-uid"}}})");
  ASSERT_EQ(response.code, 201) << response.body.dump();
  const Json claims = ClaimsOf(response);
  EXPECT_EQ(claims["aud"], Json::array({kIssuer, "vault"}));
  EXPECT_EQ(claims["kubernetes.io"]["pod"],
            Json({{"name", "plugin-0"}, {"uid", "pod-uid"}}));
  EXPECT_EQ(claims["kubernetes.io"]["node"],
            Json({{"name", "node-1"}, {"uid", "node-uid"}}));
  EXPECT_EQ(response.body["spec"]["boundObjectRef"]["name"], "plugin-0");
}

TEST_F(TokenRequestHandlerTest, LongExpirationIsShortenedToTheMaximum) {
  const TokenRequestResponse response =
      Post(R"({"spec": {"expirationSeconds": 604800}})");
  ASSERT_EQ(response.code, 201);
  EXPECT_EQ(response.body["spec"]["expirationSeconds"], 48 * 3600);
  EXPECT_EQ(ClaimsOf(response)["exp"], kNow + 48 * 3600);
}

TEST_F(TokenRequestHandlerTest, SecretAndNodeBindings) {
  TokenRequestResponse response = Post(R"({"spec": {"boundObjectRef":
      {"kind": "Secret", "apiVersion": "v1", "name": "creds"}}})");
  ASSERT_EQ(response.code, 201) << response.body.dump();
  EXPECT_EQ(ClaimsOf(response)["kubernetes.io"]["secret"]["uid"], "secret-uid");
  response = Post(R"({"spec": {"boundObjectRef":
      {"kind": "Node", "apiVersion": "v1", "name": "node-1"}}})");
  ASSERT_EQ(response.code, 201) << response.body.dump();
  EXPECT_EQ(ClaimsOf(response)["kubernetes.io"]["node"]["uid"], "node-uid");
}

struct ErrorCase {
  std::string label;
  std::string name;  // the service account in the URL
  std::string body;
  int code;
  std::string message;
};

class TokenRequestErrorTest : public TokenRequestHandlerTest,
                              public ::testing::WithParamInterface<ErrorCase> {
};

TEST_P(TokenRequestErrorTest, AnswersAsUpstream) {
  const ErrorCase& c = GetParam();
  const TokenRequestResponse response = Post(c.body, c.name);
  EXPECT_EQ(response.code, c.code) << response.body.dump();
  EXPECT_EQ(response.body["kind"], "Status");
  EXPECT_EQ(response.body["code"], c.code);
  EXPECT_EQ(response.body["message"], c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TokenRequestErrorTest,
    ::testing::Values(
        ErrorCase{"MissingServiceAccount", "ghost", R"({"spec": {}})", 404,
                  R"(serviceaccounts "ghost" not found)"},
        ErrorCase{"TooShort", "gpu-driver",
                  R"({"spec": {"expirationSeconds": 60}})", 422,
                  R"(TokenRequest.authentication.k8s.io "" is invalid: )"
                  "spec.expirationSeconds: Invalid value: 60: may not "
                  "specify a duration less than 10 minutes"},
        ErrorCase{"TooLong", "gpu-driver",
                  R"({"spec": {"expirationSeconds": 4294967297}})", 422,
                  R"(TokenRequest.authentication.k8s.io "" is invalid: )"
                  "spec.expirationSeconds: Invalid value: 4294967297: may "
                  "not specify a duration larger than 2^32 seconds"},
        ErrorCase{"NameMismatch", "gpu-driver",
                  R"({"metadata": {"name": "other"}, "spec": {}})", 422,
                  R"(TokenRequest.authentication.k8s.io "gpu-driver" is )"
                  R"(invalid: metadata.name: Invalid value: "other": must )"
                  "match the service account name if specified"},
        ErrorCase{"UnsupportedKind", "gpu-driver",
                  R"({"spec": {"boundObjectRef": {"kind": "ConfigMap",
                      "apiVersion": "v1", "name": "x"}}})",
                  400,
                  "cannot bind token to object of type /v1, Kind=ConfigMap"},
        ErrorCase{"MissingPod", "gpu-driver",
                  R"({"spec": {"boundObjectRef": {"kind": "Pod",
                      "apiVersion": "v1", "name": "gone"}}})",
                  404, R"(pods "gone" not found)"},
        ErrorCase{"PodOfAnotherAccount", "gpu-driver",
                  R"({"spec": {"boundObjectRef": {"kind": "Pod",
                      "apiVersion": "v1", "name": "other"}}})",
                  400,
                  R"(cannot bind token for serviceaccount "gpu-driver" to )"
                  "pod running with different serviceaccount name."},
        ErrorCase{"UidMismatch", "gpu-driver",
                  R"({"spec": {"boundObjectRef": {"kind": "Secret",
                      "apiVersion": "v1", "name": "creds", "uid": "old"}}})",
                  409,
                  R"(Operation cannot be fulfilled on Secret "creds": the )"
                  "UID in the bound object reference (old) does not match "
                  "the UID in record. The object might have been deleted "
                  "and then recreated"},
        ErrorCase{"NotJson", "gpu-driver", "{", 400,
                  "the TokenRequest body is not a JSON object"}),
    [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace dralloc::serviceaccount
