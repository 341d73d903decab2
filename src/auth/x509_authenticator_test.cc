#include "auth/x509_authenticator.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <chrono>
#include <string>
#include <vector>

#include "pki/certificate_authority.h"

namespace dralloc::auth {
namespace {

using Outcome = AuthenticationResult::Outcome;
using pki::CertificateAuthority;
using pki::CertificateSpec;
using pki::CertificateUsage;
using pki::Validity;

std::string PemToDer(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* certificate = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (certificate == nullptr) return {};
  unsigned char* der = nullptr;
  const int size = i2d_X509(certificate, &der);
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(size));
  OPENSSL_free(der);
  X509_free(certificate);
  return out;
}

CertificateAuthority NewCa(const char* name) {
  auto ca = CertificateAuthority::Generate(name, Validity{});
  EXPECT_TRUE(ca.ok()) << ca.status().message();
  return std::move(*ca);
}

CertificateSpec ClientSpec(std::string user, std::vector<std::string> groups,
                           Validity validity = {}) {
  return CertificateSpec{.common_name = std::move(user),
                         .organizations = std::move(groups),
                         .alt_names = {},
                         .usage = CertificateUsage::kClient,
                         .validity = validity};
}

std::string IssueDer(const CertificateAuthority& ca,
                     const CertificateSpec& spec) {
  auto issued = ca.Issue(spec);
  EXPECT_TRUE(issued.ok()) << issued.status().message();
  return PemToDer(issued->certificate_pem);
}

class X509AuthenticatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto pem = ca_.CertificatePem();
    ASSERT_TRUE(pem.ok());
    auto authenticator = X509Authenticator::FromCaPem(*pem, "ca.crt");
    ASSERT_TRUE(authenticator.ok()) << authenticator.status().message();
    authenticator_ = std::move(*authenticator);
  }

  AuthenticationResult Authenticate(std::vector<std::string> chain) const {
    Credentials credentials;
    credentials.client_certificates_der = std::move(chain);
    return authenticator_->Authenticate(credentials);
  }

  CertificateAuthority ca_ = NewCa("test-ca");
  std::unique_ptr<X509Authenticator> authenticator_;
};

TEST_F(X509AuthenticatorTest, ValidCertificateIsCommonNameAndOrganizations) {
  const AuthenticationResult result = Authenticate(
      {IssueDer(ca_, ClientSpec("system:node:a", {"system:nodes", "extra"}))});
  ASSERT_EQ(result.outcome, Outcome::kAuthenticated) << result.error;
  EXPECT_EQ(result.user.name, "system:node:a");
  EXPECT_EQ(result.user.groups,
            (std::vector<std::string>{"system:nodes", "extra"}));
  EXPECT_EQ(result.user.uid, "");
}

TEST_F(X509AuthenticatorTest, NamesLongerThanX520BoundsAreKept) {
  const std::string user =
      "system:serviceaccount:a-long-namespace-name:" + std::string(80, 'x');
  const std::string group(100, 'g');
  const AuthenticationResult result =
      Authenticate({IssueDer(ca_, ClientSpec(user, {group}))});
  ASSERT_EQ(result.outcome, Outcome::kAuthenticated) << result.error;
  EXPECT_EQ(result.user.name, user);
  EXPECT_EQ(result.user.groups, std::vector<std::string>{group});
}

TEST_F(X509AuthenticatorTest, NoCertificateIsNoCredentials) {
  EXPECT_EQ(Authenticate({}).outcome, Outcome::kNoCredentials);
}

TEST_F(X509AuthenticatorTest, EmptyCommonNameIsNoCredentials) {
  EXPECT_EQ(Authenticate({IssueDer(ca_, ClientSpec("", {"g"}))}).outcome,
            Outcome::kNoCredentials);
}

struct RejectCase {
  const char* name;
  CertificateSpec spec;
  bool signed_by_other_ca;
  const char* error;  // substring of the rejection
};

TEST_F(X509AuthenticatorTest, BadCertificatesAreRejectedWithTheReason) {
  using std::chrono::hours;
  const RejectCase cases[] = {
      {"expired", ClientSpec("u", {}, Validity{hours(-48), hours(24)}), false,
       "x509: certificate has expired or is not yet valid: current time "},
      {"not yet valid", ClientSpec("u", {}, Validity{hours(24), hours(24)}),
       false, "is before "},
      {"other CA", ClientSpec("u", {}), true,
       "x509: certificate signed by unknown authority"},
      {"server certificate",
       CertificateSpec{.common_name = "u",
                       .organizations = {},
                       .alt_names = {},
                       .usage = CertificateUsage::kServer,
                       .validity = {}},
       false, "x509: certificate specifies an incompatible key usage"},
  };
  const CertificateAuthority other = NewCa("other-ca");
  for (const RejectCase& c : cases) {
    const AuthenticationResult result =
        Authenticate({IssueDer(c.signed_by_other_ca ? other : ca_, c.spec)});
    EXPECT_EQ(result.outcome, Outcome::kRejected) << c.name;
    EXPECT_NE(result.error.find(c.error), std::string::npos)
        << c.name << ": " << result.error;
    EXPECT_NE(result.error.find("verifying certificate SN="), std::string::npos)
        << result.error;
  }
}

TEST_F(X509AuthenticatorTest, ExpiredSaysWhenItExpired) {
  const AuthenticationResult result = Authenticate({IssueDer(
      ca_,
      ClientSpec("u", {},
                 Validity{std::chrono::hours(-48), std::chrono::hours(24)}))});
  EXPECT_NE(result.error.find(" is after "), std::string::npos) << result.error;
}

TEST_F(X509AuthenticatorTest, SelfSignedIsRejected) {
  const CertificateAuthority self = NewCa("mallory");
  auto pem = self.CertificatePem();
  ASSERT_TRUE(pem.ok());
  const AuthenticationResult result = Authenticate({PemToDer(*pem)});
  EXPECT_EQ(result.outcome, Outcome::kRejected);
  EXPECT_NE(result.error.find("signed by unknown authority"), std::string::npos)
      << result.error;
}

TEST_F(X509AuthenticatorTest, GarbageIsRejected) {
  const AuthenticationResult result = Authenticate({"not a certificate"});
  EXPECT_EQ(result.outcome, Outcome::kRejected);
  EXPECT_NE(result.error.find("malformed"), std::string::npos);
}

TEST_F(X509AuthenticatorTest, ExtraChainCertificatesDoNotAddTrust) {
  // The client sends the foreign CA as its "intermediate": still untrusted.
  const CertificateAuthority other = NewCa("other-ca");
  auto other_pem = other.CertificatePem();
  ASSERT_TRUE(other_pem.ok());
  const AuthenticationResult result = Authenticate(
      {IssueDer(other, ClientSpec("u", {})), PemToDer(*other_pem)});
  EXPECT_EQ(result.outcome, Outcome::kRejected) << result.error;
}

TEST_F(X509AuthenticatorTest, IntermediatesComeFromTheRestOfTheChain) {
  auto intermediate = ca_.IssueIntermediate("intermediate", Validity{});
  ASSERT_TRUE(intermediate.ok()) << intermediate.status().message();
  auto intermediate_pem = intermediate->CertificatePem();
  ASSERT_TRUE(intermediate_pem.ok());
  const std::string leaf = IssueDer(*intermediate, ClientSpec("bob", {"g"}));
  const AuthenticationResult chained =
      Authenticate({leaf, PemToDer(*intermediate_pem)});
  ASSERT_EQ(chained.outcome, Outcome::kAuthenticated) << chained.error;
  EXPECT_EQ(chained.user.name, "bob");
  const AuthenticationResult alone = Authenticate({leaf});
  EXPECT_EQ(alone.outcome, Outcome::kRejected);
  EXPECT_NE(alone.error.find("signed by unknown authority"), std::string::npos)
      << alone.error;
}

TEST(X509AuthenticatorLoad, BundleOfTwoCasTrustsBoth) {
  const CertificateAuthority first = NewCa("first");
  const CertificateAuthority second = NewCa("second");
  auto bundle = X509Authenticator::FromCaPem(
      *first.CertificatePem() + *second.CertificatePem(), "bundle");
  ASSERT_TRUE(bundle.ok()) << bundle.status().message();
  for (const CertificateAuthority* ca : {&first, &second}) {
    Credentials credentials;
    credentials.client_certificates_der = {IssueDer(*ca, ClientSpec("u", {}))};
    EXPECT_EQ((*bundle)->Authenticate(credentials).outcome,
              Outcome::kAuthenticated);
  }
}

TEST(X509AuthenticatorLoad, Errors) {
  auto empty = X509Authenticator::FromCaPem("no pem here", "ca.crt");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(empty.status().message().find("ca.crt"), std::string::npos);
  auto missing = X509Authenticator::FromCaFile("/nonexistent/ca.crt");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/ca.crt"),
            std::string::npos);
}

}  // namespace
}  // namespace dralloc::auth
