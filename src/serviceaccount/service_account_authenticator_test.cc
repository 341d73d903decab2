// ServiceAccountAuthenticator over a fake lookup: the user a token is, and
// every way a once-valid token stops being one.
#include "serviceaccount/service_account_authenticator.h"

#include <gtest/gtest.h>

#include "serviceaccount/fake_object_lookup_test_util.h"
#include "serviceaccount/test_keys.h"
#include "serviceaccount/token_request_handler.h"

namespace dralloc::serviceaccount {
namespace {

using Outcome = auth::AuthenticationResult::Outcome;

constexpr int64_t kNow = 1'800'000'000;
constexpr char kIssuer[] = "https://kubernetes.default.svc.cluster.local";

class ServiceAccountAuthenticatorTest : public ::testing::Test {
 protected:
  ServiceAccountAuthenticatorTest()
      : keys_(testing::NewTestKeyPair("P-256")),
        signer_(*TokenSigner::Create(*ParsePrivateKeyPem(keys_.private_pem),
                                     kIssuer)),
        verifier_(*ParsePublicKeysPem(keys_.public_pem), {kIssuer}, {},
                  [this] { return now_; }),
        handler_(signer_, lookup_,
                 {.api_audiences = {},
                  .max_expiration_seconds = 0,
                  .clock = [] { return kNow; },
                  .new_token_id = [] { return std::string("jti-1"); }}),
        authenticator_(verifier_, lookup_) {
    lookup_.service_accounts["drivers/gpu-driver"] = {.uid = "sa-uid"};
    lookup_.pods["drivers/plugin-0"] = {.uid = "pod-uid",
                                        .service_account_name = "gpu-driver",
                                        .node_name = "node-1"};
    lookup_.secrets["drivers/creds"] = {.uid = "secret-uid"};
    lookup_.nodes["node-1"] = {.uid = "node-uid"};
  }

  // A token from the TokenRequest handler, bound to `bound_kind`'s object.
  std::string Token(std::string_view bound_kind = "") {
    std::string body = R"({"spec": {}})";
    if (bound_kind == "Pod") {
      body = R"({"spec": {"boundObjectRef": {"kind": "Pod",
                 "apiVersion": "v1", "name": "plugin-0"}}})";
    } else if (bound_kind == "Secret") {
      body = R"({"spec": {"boundObjectRef": {"kind": "Secret",
                 "apiVersion": "v1", "name": "creds"}}})";
    } else if (bound_kind == "Node") {
      body = R"({"spec": {"boundObjectRef": {"kind": "Node",
                 "apiVersion": "v1", "name": "node-1"}}})";
    }
    TokenRequestResponse response =
        handler_.Handle("drivers", "gpu-driver", body);
    EXPECT_EQ(response.code, 201) << response.body.dump();
    return response.body["status"]["token"];
  }

  auth::AuthenticationResult Authenticate(std::string token) {
    auth::Credentials credentials;
    credentials.bearer_token = std::move(token);
    credentials.has_authorization_header = true;
    return authenticator_.Authenticate(credentials);
  }

  void ExpectRejected(const std::string& token, const std::string& error) {
    const auth::AuthenticationResult result = Authenticate(token);
    EXPECT_EQ(result.outcome, Outcome::kRejected);
    EXPECT_EQ(result.error, error);
  }

  int64_t now_ = kNow + 10;
  testing::TestKeyPair keys_;
  TokenSigner signer_;
  testing::FakeObjectLookup lookup_;
  TokenVerifier verifier_;
  TokenRequestHandler handler_;
  ServiceAccountAuthenticator authenticator_;
};

TEST_F(ServiceAccountAuthenticatorTest, PodBoundTokenIsTheServiceAccount) {
  const auth::AuthenticationResult result = Authenticate(Token("Pod"));
  ASSERT_EQ(result.outcome, Outcome::kAuthenticated) << result.error;
  EXPECT_EQ(result.user.name, "system:serviceaccount:drivers:gpu-driver");
  EXPECT_EQ(result.user.uid, "sa-uid");
  EXPECT_EQ(result.user.groups,
            (std::vector<std::string>{"system:serviceaccounts",
                                      "system:serviceaccounts:drivers"}));
  using Extra = std::map<std::string, std::vector<std::string>>;
  EXPECT_EQ(
      result.user.extra,
      (Extra{{"authentication.kubernetes.io/credential-id", {"JTI=jti-1"}},
             {"authentication.kubernetes.io/node-name", {"node-1"}},
             {"authentication.kubernetes.io/node-uid", {"node-uid"}},
             {"authentication.kubernetes.io/pod-name", {"plugin-0"}},
             {"authentication.kubernetes.io/pod-uid", {"pod-uid"}}}));
  EXPECT_EQ(result.audiences, std::vector<std::string>{kIssuer});
}

TEST_F(ServiceAccountAuthenticatorTest, OtherCredentialsAreNotItsBusiness) {
  EXPECT_EQ(Authenticate("").outcome, Outcome::kNoCredentials);
  EXPECT_EQ(Authenticate("static-token-from-the-csv").outcome,
            Outcome::kNoCredentials);
}

TEST_F(ServiceAccountAuthenticatorTest, DeletedServiceAccount) {
  const std::string token = Token();
  lookup_.service_accounts.clear();
  ExpectRejected(token, R"(serviceaccounts "gpu-driver" not found)");
}

TEST_F(ServiceAccountAuthenticatorTest, ServiceAccountBeingDeleted) {
  const std::string token = Token();
  // Within the minute's leeway the token still works.
  lookup_.service_accounts["drivers/gpu-driver"].deletion_time = now_ - 30;
  EXPECT_EQ(Authenticate(token).outcome, Outcome::kAuthenticated);
  lookup_.service_accounts["drivers/gpu-driver"].deletion_time = now_ - 61;
  ExpectRejected(token, "service account drivers/gpu-driver has been deleted");
}

TEST_F(ServiceAccountAuthenticatorTest, RecreatedServiceAccount) {
  const std::string token = Token();
  lookup_.service_accounts["drivers/gpu-driver"].uid = "new-uid";
  ExpectRejected(token,
                 "service account UID (new-uid) does not match claim (sa-uid)");
}

TEST_F(ServiceAccountAuthenticatorTest, BoundPodDeletedOrRecreated) {
  const std::string token = Token("Pod");
  lookup_.pods["drivers/plugin-0"].uid = "pod-uid-2";
  ExpectRejected(token,
                 "pod UID (pod-uid-2) does not match service account pod ref "
                 "claim (pod-uid)");
  lookup_.pods.clear();
  ExpectRejected(token, "service account token has been invalidated");
}

TEST_F(ServiceAccountAuthenticatorTest, PodBoundTokenOutlivesItsNode) {
  const std::string token = Token("Pod");
  lookup_.nodes.clear();
  EXPECT_EQ(Authenticate(token).outcome, Outcome::kAuthenticated);
}

TEST_F(ServiceAccountAuthenticatorTest, BoundSecretAndNodeDeleted) {
  const std::string secret_token = Token("Secret");
  const std::string node_token = Token("Node");
  EXPECT_EQ(Authenticate(secret_token).outcome, Outcome::kAuthenticated);
  EXPECT_EQ(Authenticate(node_token).outcome, Outcome::kAuthenticated);
  lookup_.secrets.clear();
  lookup_.nodes["node-1"].uid = "node-uid-2";
  ExpectRejected(secret_token, "service account token has been invalidated");
  ExpectRejected(node_token,
                 "node UID (node-uid-2) does not match service account node "
                 "ref claim (node-uid)");
}

TEST_F(ServiceAccountAuthenticatorTest, ExpiredToken) {
  const std::string token = Token();
  now_ = kNow + 3600 + 61;
  ExpectRejected(token, "service account token has expired");
}

}  // namespace
}  // namespace dralloc::serviceaccount
