#include "cli/security_flags.h"

#include <gtest/gtest.h>

namespace dralloc::cli {
namespace {

TEST(SecurityFlagsTest, DefaultModesFollowTheTransport) {
  SecurityFlags plain;
  auto modes = AuthorizationModes(plain);
  ASSERT_TRUE(modes.ok()) << modes.status();
  EXPECT_EQ(*modes, std::vector<std::string>{"AlwaysAllow"});
  SecurityFlags tls;
  tls.tls_cert_file = "server.crt";
  tls.tls_private_key_file = "server.key";
  modes = AuthorizationModes(tls);
  ASSERT_TRUE(modes.ok()) << modes.status();
  EXPECT_EQ(*modes, (std::vector<std::string>{"Node", "RBAC"}));
}

TEST(SecurityFlagsTest, RefusesWhatCannotWork) {
  struct Case {
    SecurityFlags flags;
    std::string message;
  };
  SecurityFlags token_without_tls;
  token_without_tls.token_auth_file = "tokens.csv";
  SecurityFlags rbac_without_tls;
  rbac_without_tls.authorization_mode = "RBAC";
  SecurityFlags cert_without_key;
  cert_without_key.tls_cert_file = "server.crt";
  SecurityFlags unknown_mode;
  unknown_mode.tls_cert_file = "server.crt";
  unknown_mode.tls_private_key_file = "server.key";
  unknown_mode.authorization_mode = "Node,ABAC";
  SecurityFlags twice = unknown_mode;
  twice.authorization_mode = "RBAC,RBAC";
  const Case cases[] = {
      {token_without_tls, "--token-auth-file needs --tls-cert-file"},
      {rbac_without_tls, "--authorization-mode RBAC needs --tls-cert-file"},
      {cert_without_key, "--tls-cert-file needs --tls-private-key-file"},
      {unknown_mode, "unknown mode \"ABAC\""},
      {twice, "\"RBAC\" is given more than once"},
  };
  for (const Case& c : cases) {
    auto modes = AuthorizationModes(c.flags);
    ASSERT_FALSE(modes.ok()) << c.message;
    EXPECT_NE(modes.status().message().find(c.message), std::string::npos)
        << modes.status().message();
  }
}

TEST(SecurityFlagsTest, PlainHttpServesOnlyLoopback) {
  EXPECT_TRUE(CheckPlainHttpHost("127.0.0.1").ok());
  EXPECT_TRUE(CheckPlainHttpHost("127.0.0.2").ok());
  EXPECT_TRUE(CheckPlainHttpHost("::1").ok());
  EXPECT_TRUE(CheckPlainHttpHost("localhost").ok());
  EXPECT_FALSE(CheckPlainHttpHost("0.0.0.0").ok());
  EXPECT_FALSE(CheckPlainHttpHost("10.0.0.5").ok());
  EXPECT_FALSE(CheckPlainHttpHost("::").ok());
}

}  // namespace
}  // namespace dralloc::cli
