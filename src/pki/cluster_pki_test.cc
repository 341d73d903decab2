#include "pki/cluster_pki.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "auth/x509_authenticator.h"
#include "client/kubeconfig.h"
#include "pki/output_file.h"
#include "pki/private_key.h"

namespace dralloc::pki {
namespace {

namespace fs = std::filesystem;

class ClusterPkiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/dralloc_pki_test_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  ClusterPkiOptions Options() const {
    ClusterPkiOptions options;
    options.directory = dir_ + "/pki";
    options.server = "https://api.example.com:6443";
    options.serving_names = *ParseHosts("api.example.com,10.1.2.3", "--hosts");
    options.nodes = {"node-a", "node-b"};
    return options;
  }
  std::string Path(const std::string& name) const {
    return dir_ + "/pki/" + name;
  }

  std::string dir_;
};

mode_t ModeOf(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  return info.st_mode & 0777;
}

X509Ptr ReadCertificate(const std::string& pem) {
  BioPtr bio = ReadOnlyBio(pem);
  return X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

std::string PemToDer(const std::string& pem) {
  X509Ptr certificate = ReadCertificate(pem);
  unsigned char* der = nullptr;
  const int size = i2d_X509(certificate.get(), &der);
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(size));
  OPENSSL_free(der);
  return out;
}

TEST_F(ClusterPkiTest, WritesEveryFileWithItsMode) {
  auto written = InitClusterPki(Options());
  ASSERT_TRUE(written.ok()) << written.status().message();
  const std::pair<const char*, mode_t> expected[] = {
      {"ca.crt", 0644},
      {"ca.key", 0600},
      {"apiserver.crt", 0644},
      {"apiserver.key", 0600},
      {"sa.key", 0600},
      {"sa.pub", 0644},
      {"admin.kubeconfig", 0600},
      {"scheduler.kubeconfig", 0600},
      {"controller-manager.kubeconfig", 0600},
      {"node-node-a.kubeconfig", 0600},
      {"node-node-b.kubeconfig", 0600},
  };
  ASSERT_EQ(written->size(), std::size(expected));
  for (size_t i = 0; i < std::size(expected); ++i) {
    EXPECT_EQ((*written)[i], Path(expected[i].first));
    EXPECT_EQ(ModeOf(Path(expected[i].first)), expected[i].second)
        << expected[i].first;
  }
  EXPECT_EQ(ModeOf(dir_ + "/pki"), 0700u);
  EXPECT_FALSE(fs::exists(Path("ca.crt.tmp")));
}

TEST_F(ClusterPkiTest, ServingCertificateCoversHostsAndLoopback) {
  ASSERT_TRUE(InitClusterPki(Options()).ok());
  X509Ptr serving = ReadCertificate(*ReadInputFile(Path("apiserver.crt")));
  ASSERT_TRUE(serving);
  for (const char* host :
       {"api.example.com", "localhost", "kubernetes.default.svc"}) {
    EXPECT_EQ(X509_check_host(serving.get(), host, 0, 0, nullptr), 1) << host;
  }
  EXPECT_EQ(X509_check_host(serving.get(), "other.example.com", 0, 0, nullptr),
            0);
  for (const char* ip : {"10.1.2.3", "127.0.0.1"}) {
    EXPECT_EQ(X509_check_ip_asc(serving.get(), ip, 0), 1) << ip;
  }
  EXPECT_EQ(X509_check_purpose(serving.get(), X509_PURPOSE_SSL_SERVER, 0), 1);
  auto key = PrivateKey::FromPem(*ReadInputFile(Path("apiserver.key")), "key");
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(X509_check_private_key(serving.get(), key->get()), 1);
}

struct KubeconfigCase {
  const char* file;
  const char* user;
  std::vector<std::string> groups;
};

TEST_F(ClusterPkiTest, KubeconfigsLoadAndAuthenticateAsTheirUsers) {
  ASSERT_TRUE(InitClusterPki(Options()).ok());
  auto authenticator = auth::X509Authenticator::FromCaFile(Path("ca.crt"));
  ASSERT_TRUE(authenticator.ok()) << authenticator.status().message();
  const KubeconfigCase cases[] = {
      {"admin.kubeconfig", "admin", {"system:masters"}},
      {"scheduler.kubeconfig", "system:kube-scheduler", {}},
      {"controller-manager.kubeconfig", "system:kube-controller-manager", {}},
      {"node-node-a.kubeconfig", "system:node:node-a", {"system:nodes"}},
      {"node-node-b.kubeconfig", "system:node:node-b", {"system:nodes"}},
  };
  const std::string ca_pem = *ReadInputFile(Path("ca.crt"));
  for (const KubeconfigCase& c : cases) {
    auto config = client::LoadKubeconfig(Path(c.file));
    ASSERT_TRUE(config.ok()) << c.file << ": " << config.status().message();
    EXPECT_EQ(config->server, "https://api.example.com:6443");
    EXPECT_EQ(config->certificate_authority_data, ca_pem);
    auth::Credentials credentials;
    credentials.client_certificates_der = {
        PemToDer(config->client_certificate_data)};
    const auth::AuthenticationResult result =
        (*authenticator)->Authenticate(credentials);
    ASSERT_EQ(result.outcome,
              auth::AuthenticationResult::Outcome::kAuthenticated)
        << c.file << ": " << result.error;
    EXPECT_EQ(result.user.name, c.user);
    EXPECT_EQ(result.user.groups, c.groups);
    auto key = PrivateKey::FromPem(config->client_key_data, c.file);
    ASSERT_TRUE(key.ok()) << key.status().message();
    X509Ptr certificate = ReadCertificate(config->client_certificate_data);
    EXPECT_EQ(X509_check_private_key(certificate.get(), key->get()), 1);
  }
}

TEST_F(ClusterPkiTest, ExistingFilesAreKeptUnlessOverwrite) {
  ASSERT_TRUE(InitClusterPki(Options()).ok());
  const std::string ca_before = *ReadInputFile(Path("ca.crt"));
  auto again = InitClusterPki(Options());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(again.status().message().find(Path("ca.crt")), std::string::npos);
  EXPECT_EQ(*ReadInputFile(Path("ca.crt")), ca_before);

  ClusterPkiOptions force = Options();
  force.overwrite = true;
  ASSERT_TRUE(InitClusterPki(force).ok());
  EXPECT_NE(*ReadInputFile(Path("ca.crt")), ca_before);
}

TEST_F(ClusterPkiTest, OneExistingKubeconfigStopsEveryWrite) {
  fs::create_directories(dir_ + "/pki");
  ASSERT_TRUE(
      WriteOutputFile(Path("node-node-b.kubeconfig"), "x", 0600, false).ok());
  auto result = InitClusterPki(Options());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("node-node-b.kubeconfig"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(Path("ca.crt")));
}

TEST_F(ClusterPkiTest, BadOptions) {
  ClusterPkiOptions bad_server = Options();
  bad_server.server = "api.example.com:6443";
  ClusterPkiOptions bad_node = Options();
  bad_node.nodes = {"Node_A"};
  ClusterPkiOptions no_dir = Options();
  no_dir.directory = "";
  for (const auto& [options, flag] :
       {std::pair{bad_server, "--server"}, std::pair{bad_node, "--nodes"},
        std::pair{no_dir, "DIR"}}) {
    auto result = InitClusterPki(options);
    ASSERT_FALSE(result.ok()) << flag;
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(result.status().message().find(flag), std::string::npos)
        << result.status().message();
  }
}

TEST_F(ClusterPkiTest, ExtraClientKubeconfigSignedByTheSameCa) {
  ASSERT_TRUE(InitClusterPki(Options()).ok());
  ClientKubeconfigOptions options;
  options.directory = dir_ + "/pki";
  options.user = "jane";
  options.groups = {"dev", "ops"};
  options.output_path = dir_ + "/jane.kubeconfig";
  ASSERT_TRUE(WriteClientKubeconfig(options).ok());
  EXPECT_EQ(ModeOf(options.output_path), 0600u);
  auto config = client::LoadKubeconfig(options.output_path);
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->server, "https://api.example.com:6443");
  auto authenticator = auth::X509Authenticator::FromCaFile(Path("ca.crt"));
  ASSERT_TRUE(authenticator.ok());
  auth::Credentials credentials;
  credentials.client_certificates_der = {
      PemToDer(config->client_certificate_data)};
  const auth::AuthenticationResult result =
      (*authenticator)->Authenticate(credentials);
  EXPECT_EQ(result.user.name, "jane");
  EXPECT_EQ(result.user.groups, (std::vector<std::string>{"dev", "ops"}));

  auto again = WriteClientKubeconfig(options);
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists);
  options.user = "";
  EXPECT_EQ(WriteClientKubeconfig(options).code(),
            StatusCode::kInvalidArgument);
}

TEST_F(ClusterPkiTest, ServiceAccountKeyPair) {
  ASSERT_TRUE(InitClusterPki(Options()).ok());
  auto key = PrivateKey::FromPem(*ReadInputFile(Path("sa.key")), "sa.key");
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(*key->PublicPem(), *ReadInputFile(Path("sa.pub")));
  EXPECT_EQ(EVP_PKEY_get_base_id(key->get()), EVP_PKEY_EC);
}

}  // namespace
}  // namespace dralloc::pki
