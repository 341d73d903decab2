// TokenSigner and TokenVerifier: round trips for every key type, and the
// tokens a verifier must refuse or leave to other authenticators.
#include "serviceaccount/token_signer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "serviceaccount/jws.h"
#include "serviceaccount/test_keys.h"
#include "serviceaccount/token_verifier.h"

namespace dralloc::serviceaccount {
namespace {

using Outcome = VerifiedToken::Outcome;

constexpr int64_t kNow = 1'800'000'000;
constexpr char kIssuer[] = "https://kubernetes.default.svc.cluster.local";

ServiceAccountClaims SampleClaims() {
  ServiceAccountClaims claims;
  claims.audiences = {kIssuer};
  claims.issued_at = kNow;
  claims.not_before = kNow;
  claims.expiry = kNow + 3600;
  claims.id = "jti-1";
  claims.namespace_ = "drivers";
  claims.service_account = {"gpu-driver", "sa-uid"};
  claims.pod = ObjectRef{"gpu-driver-abc", "pod-uid"};
  claims.node = ObjectRef{"node-1", "node-uid"};
  return claims;
}

TokenSigner SignerFor(const testing::TestKeyPair& keys) {
  StatusOr<PKeyPtr> key = ParsePrivateKeyPem(keys.private_pem);
  EXPECT_TRUE(key.ok()) << key.status();
  StatusOr<TokenSigner> signer = TokenSigner::Create(std::move(*key), kIssuer);
  EXPECT_TRUE(signer.ok()) << signer.status();
  return std::move(*signer);
}

TokenVerifier VerifierFor(const std::string& public_pem, int64_t now = kNow) {
  StatusOr<std::vector<PKeyPtr>> keys = ParsePublicKeysPem(public_pem);
  EXPECT_TRUE(keys.ok()) << keys.status();
  return TokenVerifier(std::move(*keys), {kIssuer}, {}, [now] { return now; });
}

std::string Sign(const TokenSigner& signer, ServiceAccountClaims claims) {
  StatusOr<std::string> token = signer.Sign(std::move(claims));
  EXPECT_TRUE(token.ok()) << token.status();
  return *token;
}

class RoundTripTest
    : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(RoundTripTest, SignedTokenVerifiesWithItsClaims) {
  const auto& [key_type, algorithm] = GetParam();
  const testing::TestKeyPair keys = testing::NewTestKeyPair(key_type);
  const TokenSigner signer = SignerFor(keys);
  EXPECT_EQ(signer.algorithm(), algorithm);
  const std::string token = Sign(signer, SampleClaims());

  const JwsParts parts = *SplitJws(token);
  const auto header = nlohmann::json::parse(*Base64UrlDecode(parts.header));
  EXPECT_EQ(header["alg"], algorithm);
  EXPECT_EQ(header["kid"], KeyIdFor(signer.key()));

  const VerifiedToken verified = VerifierFor(keys.public_pem).Verify(token);
  ASSERT_EQ(verified.outcome, Outcome::kVerified) << verified.error;
  ServiceAccountClaims expected = SampleClaims();
  expected.issuer = kIssuer;
  EXPECT_EQ(verified.claims, expected);
  EXPECT_EQ(verified.audiences, std::vector<std::string>{kIssuer});
}

INSTANTIATE_TEST_SUITE_P(
    KeyTypes, RoundTripTest,
    ::testing::Values(std::pair<std::string, std::string>{"P-256", "ES256"},
                      std::pair<std::string, std::string>{"P-384", "ES384"},
                      std::pair<std::string, std::string>{"RSA", "RS256"}),
    [](const auto& info) { return info.param.second; });

TEST(TokenSignerTest, PayloadHasUpstreamClaims) {
  const TokenSigner signer = SignerFor(testing::NewTestKeyPair("P-256"));
  const std::string token = Sign(signer, SampleClaims());
  const auto payload =
      nlohmann::json::parse(*Base64UrlDecode(SplitJws(token)->payload));
  EXPECT_EQ(payload["iss"], kIssuer);
  EXPECT_EQ(payload["sub"], "system:serviceaccount:drivers:gpu-driver");
  EXPECT_EQ(payload["aud"], nlohmann::json::array({kIssuer}));
  EXPECT_EQ(payload["exp"], kNow + 3600);
  EXPECT_EQ(payload["iat"], kNow);
  EXPECT_EQ(payload["nbf"], kNow);
  EXPECT_EQ(payload["jti"], "jti-1");
  EXPECT_EQ(payload["kubernetes.io"],
            nlohmann::json::parse(R"({"namespace": "drivers",
              "serviceaccount": {"name": "gpu-driver", "uid": "sa-uid"},
              "pod": {"name": "gpu-driver-abc", "uid": "pod-uid"},
              "node": {"name": "node-1", "uid": "node-uid"}})"));
}

TEST(TokenVerifierTest, ExpiryAndNotBeforeHonourOneMinuteLeeway) {
  const testing::TestKeyPair keys = testing::NewTestKeyPair("P-256");
  const std::string token = Sign(SignerFor(keys), SampleClaims());
  EXPECT_EQ(
      VerifierFor(keys.public_pem, kNow + 3600 + 60).Verify(token).outcome,
      Outcome::kVerified);
  const VerifiedToken expired =
      VerifierFor(keys.public_pem, kNow + 3600 + 61).Verify(token);
  EXPECT_EQ(expired.outcome, Outcome::kRejected);
  EXPECT_EQ(expired.error, "service account token has expired");
  const VerifiedToken early =
      VerifierFor(keys.public_pem, kNow - 61).Verify(token);
  EXPECT_EQ(early.outcome, Outcome::kRejected);
  EXPECT_EQ(early.error, "service account token is not valid yet");
}

TEST(TokenVerifierTest, WrongKeyIsRejected) {
  const std::string token =
      Sign(SignerFor(testing::NewTestKeyPair("P-256")), SampleClaims());
  const testing::TestKeyPair other = testing::NewTestKeyPair("P-256");
  const VerifiedToken verified = VerifierFor(other.public_pem).Verify(token);
  EXPECT_EQ(verified.outcome, Outcome::kRejected);
  // An RSA key cannot verify an ES256 token either.
  const testing::TestKeyPair rsa = testing::NewTestKeyPair("RSA");
  EXPECT_EQ(VerifierFor(rsa.public_pem).Verify(token).outcome,
            Outcome::kRejected);
}

TEST(TokenVerifierTest, AnyOfSeveralKeysVerifies) {
  const testing::TestKeyPair old_keys = testing::NewTestKeyPair("RSA");
  const testing::TestKeyPair new_keys = testing::NewTestKeyPair("P-256");
  const std::string token = Sign(SignerFor(old_keys), SampleClaims());
  EXPECT_EQ(VerifierFor(new_keys.public_pem + old_keys.public_pem)
                .Verify(token)
                .outcome,
            Outcome::kVerified);
}

TEST(TokenVerifierTest, TamperedPayloadIsRejected) {
  const testing::TestKeyPair keys = testing::NewTestKeyPair("P-256");
  const std::string token = Sign(SignerFor(keys), SampleClaims());
  const JwsParts parts = *SplitJws(token);
  auto payload = nlohmann::json::parse(*Base64UrlDecode(parts.payload));
  payload["kubernetes.io"]["serviceaccount"]["name"] = "cluster-admin";
  const std::string tampered = std::string(parts.header) + "." +
                               Base64UrlEncode(payload.dump()) + "." +
                               std::string(parts.signature);
  const VerifiedToken verified = VerifierFor(keys.public_pem).Verify(tampered);
  EXPECT_EQ(verified.outcome, Outcome::kRejected);
}

TEST(TokenVerifierTest, OtherTokensAreLeftToOtherAuthenticators) {
  const testing::TestKeyPair keys = testing::NewTestKeyPair("P-256");
  const TokenVerifier verifier = VerifierFor(keys.public_pem);
  EXPECT_EQ(verifier.Verify("31ada4fd-adec-460c-809a-9e56ceb75269").outcome,
            Outcome::kNotMine);
  EXPECT_EQ(verifier.Verify("a.b.c").outcome, Outcome::kNotMine);
  StatusOr<TokenSigner> foreign = TokenSigner::Create(
      *ParsePrivateKeyPem(keys.private_pem), "https://issuer.example");
  ASSERT_TRUE(foreign.ok());
  EXPECT_EQ(verifier.Verify(Sign(*foreign, SampleClaims())).outcome,
            Outcome::kNotMine);
}

TEST(TokenVerifierTest, AudienceMustBeTheApiServers) {
  const testing::TestKeyPair keys = testing::NewTestKeyPair("P-256");
  ServiceAccountClaims claims = SampleClaims();
  claims.audiences = {"vault"};
  const VerifiedToken verified =
      VerifierFor(keys.public_pem).Verify(Sign(SignerFor(keys), claims));
  EXPECT_EQ(verified.outcome, Outcome::kRejected);
  EXPECT_NE(verified.error.find("token audiences"), std::string::npos);
  // A legacy token without audiences is the API server's.
  claims.audiences.clear();
  EXPECT_EQ(VerifierFor(keys.public_pem)
                .Verify(Sign(SignerFor(keys), claims))
                .outcome,
            Outcome::kVerified);
}

TEST(PemKeysTest, RejectsFilesWithoutKeys) {
  EXPECT_FALSE(ParsePrivateKeyPem("not a key").ok());
  EXPECT_FALSE(ParsePublicKeysPem("").ok());
  // A private key serves as a verification key (its public half).
  const testing::TestKeyPair keys = testing::NewTestKeyPair("P-256");
  EXPECT_TRUE(ParsePublicKeysPem(keys.private_pem).ok());
  EXPECT_FALSE(ParsePrivateKeyPem(keys.public_pem).ok());
}

}  // namespace
}  // namespace dralloc::serviceaccount
