#include "client/kubeconfig.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace dralloc::client {
namespace {

namespace fs = std::filesystem;

constexpr char kMinimal[] = R"(
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: local
  cluster: {server: "http://127.0.0.1:6443"}
contexts:
- name: dev
  context: {cluster: local, user: alice, namespace: team-a}
- name: bare
  context: {cluster: local}
users:
- name: alice
  user: {token: secret-token}
)";

struct ParseCase {
  std::string name;
  std::string yaml;
  std::string context;
  // Expected result: a config, or an error code and message fragment.
  std::optional<Kubeconfig> expected;
  StatusCode code = StatusCode::kOk;
  std::string message;
};

Kubeconfig Expect(std::string server, std::string namespace_,
                  std::string token) {
  Kubeconfig config;
  config.server = std::move(server);
  config.namespace_ = std::move(namespace_);
  config.token = std::move(token);
  return config;
}

void ExpectSameConfig(const Kubeconfig& got, const Kubeconfig& want) {
  EXPECT_EQ(got.server, want.server);
  EXPECT_EQ(got.namespace_, want.namespace_);
  EXPECT_EQ(got.token, want.token);
  EXPECT_EQ(got.insecure_skip_tls_verify, want.insecure_skip_tls_verify);
  EXPECT_EQ(got.certificate_authority_data, want.certificate_authority_data);
  EXPECT_EQ(got.client_certificate_data, want.client_certificate_data);
  EXPECT_EQ(got.client_key_data, want.client_key_data);
}

std::vector<ParseCase> ParseCases() {
  Kubeconfig with_tls = Expect("https://k8s.example.com", "", "");
  with_tls.insecure_skip_tls_verify = true;
  with_tls.certificate_authority_data = "ca pem";
  with_tls.client_certificate_data = "hello pem";
  with_tls.client_key_data = "hello pem";
  return {
      {"current context", kMinimal, "",
       Expect("http://127.0.0.1:6443", "team-a", "secret-token")},
      {"named context without user", kMinimal, "bare",
       Expect("http://127.0.0.1:6443", "", "")},
      {"missing context", kMinimal, "foo", std::nullopt, StatusCode::kNotFound,
       "kubeconfig inline.yaml: context \"foo\" not found"},
      {"base64 data fields", R"(
current-context: c
clusters:
- name: k
  cluster:
    server: https://k8s.example.com
    insecure-skip-tls-verify: true
    certificate-authority-data: Y2EgcGVt
contexts: [{name: c, context: {cluster: k, user: u}}]
users:
- name: u
  user: {client-certificate-data: aGVsbG8gcGVt, client-key-data: aGVsbG8gcGVt}
)",
       "", with_tls},
      {"json input",
       R"({"current-context":"c","clusters":[{"name":"k","cluster":{"server":"http://h:1"}}],"contexts":[{"name":"c","context":{"cluster":"k"}}]})",
       "", Expect("http://h:1", "", "")},
      {"no current context", "clusters: []\n", "", std::nullopt,
       StatusCode::kInvalidArgument, "no current-context"},
      {"missing cluster", R"(
current-context: c
contexts: [{name: c, context: {cluster: gone}}]
)",
       "", std::nullopt, StatusCode::kNotFound, "cluster \"gone\" not found"},
      {"missing user", R"(
current-context: c
clusters: [{name: k, cluster: {server: "http://h"}}]
contexts: [{name: c, context: {cluster: k, user: nobody}}]
)",
       "", std::nullopt, StatusCode::kNotFound, "user \"nobody\" not found"},
      {"cluster without server", R"(
current-context: c
clusters: [{name: k, cluster: {}}]
contexts: [{name: c, context: {cluster: k}}]
)",
       "", std::nullopt, StatusCode::kInvalidArgument,
       "cluster \"k\" has no server"},
      {"bad base64", R"(
current-context: c
clusters: [{name: k, cluster: {server: "http://h", certificate-authority-data: "!!"}}]
contexts: [{name: c, context: {cluster: k}}]
)",
       "", std::nullopt, StatusCode::kInvalidArgument,
       "certificate-authority-data is not valid base64"},
      {"missing token file", R"(
current-context: c
clusters: [{name: k, cluster: {server: "http://h"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {tokenFile: /nonexistent/token}}]
)",
       "", std::nullopt, StatusCode::kNotFound,
       "cannot read tokenFile /nonexistent/token"},
      {"not a mapping", "- a\n- b\n", "", std::nullopt,
       StatusCode::kInvalidArgument, "expected a mapping"},
      {"malformed yaml", "a: [b\n", "", std::nullopt,
       StatusCode::kInvalidArgument, "inline.yaml"},
  };
}

TEST(KubeconfigTest, ParsesTheCases) {
  for (const ParseCase& test : ParseCases()) {
    SCOPED_TRACE(test.name);
    auto parsed = ParseKubeconfig(test.yaml, "inline.yaml", test.context);
    if (test.expected) {
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      ExpectSameConfig(*parsed, *test.expected);
      continue;
    }
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().code(), test.code) << parsed.status();
    EXPECT_NE(parsed.status().message().find(test.message), std::string::npos)
        << parsed.status();
  }
}

class KubeconfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::path(::testing::TempDir()) /
        ("kubeconfig_test_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path Write(const std::string& name, const std::string& text) {
    fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path;
  }

  fs::path dir_;
};

TEST_F(KubeconfigFileTest, ReadsRelativeTokenAndCertificateFiles) {
  Write("token", "file-token\n");
  Write("ca.pem", "ca pem");
  Write("client.pem", "cert pem");
  Write("client.key", "key pem");
  const fs::path path = Write("config", R"(
current-context: c
clusters:
- name: k
  cluster: {server: "https://h:6443", certificate-authority: ca.pem}
contexts: [{name: c, context: {cluster: k, user: u}}]
users:
- name: u
  user: {tokenFile: token, client-certificate: client.pem, client-key: client.key}
)");
  auto config = LoadKubeconfig(path.string());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->token, "file-token");
  EXPECT_EQ(config->certificate_authority_data, "ca pem");
  EXPECT_EQ(config->client_certificate_data, "cert pem");
  EXPECT_EQ(config->client_key_data, "key pem");
}

TEST_F(KubeconfigFileTest, InlineTokenWinsOverTokenFile) {
  const fs::path path = Write("config", R"(
current-context: c
clusters: [{name: k, cluster: {server: "http://h"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {token: inline, tokenFile: /nonexistent}}]
)");
  auto config = LoadKubeconfig(path.string());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->token, "inline");
}

TEST_F(KubeconfigFileTest, EmptyPathUsesTheFirstKubeconfigEntry) {
  const fs::path path = Write("config", kMinimal);
  const char* saved = std::getenv("KUBECONFIG");
  const std::optional<std::string> previous =
      saved ? std::optional<std::string>(saved) : std::nullopt;
  ::setenv("KUBECONFIG", (":" + path.string() + ":/nonexistent").c_str(), 1);
  auto config = LoadKubeconfig("", "bare");
  if (previous) {
    ::setenv("KUBECONFIG", previous->c_str(), 1);
  } else {
    ::unsetenv("KUBECONFIG");
  }
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->server, "http://127.0.0.1:6443");
  EXPECT_EQ(config->token, "");
}

TEST_F(KubeconfigFileTest, MissingFileIsNotFound) {
  const std::string path = (dir_ / "absent").string();
  auto config = LoadKubeconfig(path);
  EXPECT_EQ(config.status().code(), StatusCode::kNotFound);
  EXPECT_NE(config.status().message().find(path), std::string::npos);
}

TEST_F(KubeconfigFileTest, MissingContextNamesTheFile) {
  const fs::path path = Write("config", kMinimal);
  auto config = LoadKubeconfig(path.string(), "foo");
  EXPECT_EQ(config.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(config.status().message(),
            "kubeconfig " + path.string() + ": context \"foo\" not found");
}

}  // namespace
}  // namespace dralloc::client
