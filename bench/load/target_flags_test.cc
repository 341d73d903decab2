#include "load/target_flags.h"

#include <gtest/gtest.h>

#include <string>

namespace dralloc::load {
namespace {

// Tests run in the source root (dralloc_test).
const std::string kDir = "bench/load/testdata/tls/";

struct FlagsCase {
  std::string name;
  TargetFlags flags;
  // Expected result: the code, and for kOk the target's fields.
  StatusCode code = StatusCode::kOk;
  std::string message;  // a fragment of the error message
  bool tls = false;
  std::uint16_t port = 0;
  std::string server_name = "127.0.0.1";
  std::string authorization;
};

void PrintTo(const FlagsCase& c, std::ostream* out) { *out << c.name; }

class ResolveLoadTargetTest : public testing::TestWithParam<FlagsCase> {};

TEST_P(ResolveLoadTargetTest, BuildsTargetFromFlagsAndKubeconfig) {
  const FlagsCase& c = GetParam();
  StatusOr<LoadTarget> target = ResolveLoadTarget(c.flags);
  ASSERT_EQ(target.status().code(), c.code) << target.status();
  if (!target.ok()) {
    EXPECT_NE(target.status().message().find(c.message), std::string::npos)
        << target.status();
    return;
  }
  EXPECT_EQ(target->host, "127.0.0.1");
  EXPECT_EQ(target->port, c.port);
  EXPECT_EQ(target->tls, c.tls);
  EXPECT_EQ(target->tls_context != nullptr, c.tls);
  EXPECT_EQ(target->server_name, c.server_name);
  EXPECT_EQ(target->authorization, c.authorization);
}

INSTANTIATE_TEST_SUITE_P(
    Flags, ResolveLoadTargetTest,
    testing::Values(
        FlagsCase{.name = "PlainServer",
                  .flags = {.server = "http://127.0.0.1:8080"},
                  .port = 8080},
        FlagsCase{.name = "PlainServerWithToken",
                  .flags = {.server = "http://localhost:8080", .token = "t1"},
                  .port = 8080,
                  .server_name = "localhost",
                  .authorization = "Bearer t1"},
        FlagsCase{.name = "HttpsWithCaCertAndKey",
                  .flags = {.server = "https://127.0.0.1:6443",
                            .ca_file = kDir + "ca.crt",
                            .cert_file = kDir + "client.crt",
                            .key_file = kDir + "client.key"},
                  .tls = true,
                  .port = 6443},
        FlagsCase{.name = "HttpsWithCaAndToken",
                  .flags = {.server = "https://localhost:6443",
                            .ca_file = kDir + "ca.crt",
                            .token = "abc"},
                  .tls = true,
                  .port = 6443,
                  .server_name = "localhost",
                  .authorization = "Bearer abc"},
        FlagsCase{.name = "KubeconfigWithEmbeddedData",
                  .flags = {.kubeconfig = kDir + "embedded.kubeconfig"},
                  .tls = true,
                  .port = 6443,
                  .authorization = "Bearer kubeconfig-token"},
        FlagsCase{.name = "KubeconfigWithFilePaths",
                  .flags = {.kubeconfig = kDir + "files.kubeconfig"},
                  .tls = true,
                  .port = 6443,
                  .server_name = "localhost"},
        FlagsCase{.name = "FlagsOverrideKubeconfig",
                  .flags = {.server = "https://127.0.0.1:7000",
                            .kubeconfig = kDir + "embedded.kubeconfig",
                            .ca_file = kDir + "other-ca.crt",
                            .token = "flag-token"},
                  .tls = true,
                  .port = 7000,
                  .authorization = "Bearer flag-token"},
        FlagsCase{.name = "PlainKubeconfig",
                  .flags = {.kubeconfig = kDir + "plain.kubeconfig"},
                  .port = 8080,
                  .authorization = "Bearer plain-token"},
        FlagsCase{.name = "NoServer",
                  .flags = {.token = "t"},
                  .code = StatusCode::kInvalidArgument,
                  .message = "no server"},
        FlagsCase{.name = "RemoteKubeconfigServer",
                  .flags = {.kubeconfig = kDir + "remote.kubeconfig"},
                  .code = StatusCode::kInvalidArgument,
                  .message = "not loopback"},
        FlagsCase{.name = "MissingKubeconfig",
                  .flags = {.kubeconfig = kDir + "absent.kubeconfig"},
                  .code = StatusCode::kNotFound,
                  .message = "--kubeconfig"},
        FlagsCase{.name = "HttpsWithoutCa",
                  .flags = {.server = "https://127.0.0.1:6443", .token = "t"},
                  .code = StatusCode::kInvalidArgument,
                  .message = "needs a CA"},
        FlagsCase{.name = "CertWithoutKey",
                  .flags = {.server = "https://127.0.0.1:6443",
                            .ca_file = kDir + "ca.crt",
                            .cert_file = kDir + "client.crt"},
                  .code = StatusCode::kInvalidArgument,
                  .message = "--cert with --key"},
        FlagsCase{.name = "CaForPlainServer",
                  .flags = {.server = "http://127.0.0.1:8080",
                            .ca_file = kDir + "ca.crt"},
                  .code = StatusCode::kInvalidArgument,
                  .message = "--ca needs an https:// server"},
        FlagsCase{.name = "MissingCaFile",
                  .flags = {.server = "https://127.0.0.1:6443",
                            .ca_file = kDir + "absent.crt"},
                  .code = StatusCode::kNotFound,
                  .message = "--ca bench/load/testdata/tls/absent.crt"},
        FlagsCase{.name = "KeyIsNotAKey",
                  .flags = {.server = "https://127.0.0.1:6443",
                            .ca_file = kDir + "ca.crt",
                            .cert_file = kDir + "client.crt",
                            .key_file = kDir + "ca.crt"},
                  .code = StatusCode::kInvalidArgument,
                  .message = "client key"},
        FlagsCase{.name = "CaIsNotACertificate",
                  .flags = {.server = "https://127.0.0.1:6443",
                            .ca_file = kDir + "plain.kubeconfig"},
                  .code = StatusCode::kInvalidArgument,
                  .message = "certificate authority"}),
    [](const testing::TestParamInfo<FlagsCase>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace dralloc::load
