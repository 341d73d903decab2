#include "load/load_target.h"

#include <gtest/gtest.h>

namespace dralloc::load {
namespace {

struct TargetCase {
  std::string url;
  bool valid;
  std::uint16_t port;
  bool tls = false;
  std::string server_name = "127.0.0.1";
};

class ParseLoadTargetTest : public testing::TestWithParam<TargetCase> {};

TEST_P(ParseLoadTargetTest, AcceptsOnlyLoopbackHttpOrHttpsWithPort) {
  const TargetCase& c = GetParam();
  StatusOr<LoadTarget> target = ParseLoadTarget(c.url);
  ASSERT_EQ(target.ok(), c.valid) << c.url << ": " << target.status();
  if (!c.valid) {
    EXPECT_EQ(target.status().code(), StatusCode::kInvalidArgument);
    return;
  }
  EXPECT_EQ(target->host, "127.0.0.1");
  EXPECT_EQ(target->port, c.port);
  EXPECT_EQ(target->HostHeader(), "127.0.0.1:" + std::to_string(c.port));
  EXPECT_EQ(target->tls, c.tls);
  EXPECT_EQ(target->server_name, c.server_name);
  EXPECT_EQ(target->tls_context, nullptr);
  EXPECT_EQ(target->authorization, "");
}

INSTANTIATE_TEST_SUITE_P(
    Urls, ParseLoadTargetTest,
    testing::Values(
        TargetCase{"http://127.0.0.1:8080", true, 8080},
        TargetCase{"http://127.0.0.1:8080/", true, 8080},
        TargetCase{"http://localhost:1", true, 1, false, "localhost"},
        TargetCase{"http://127.0.0.1:65535", true, 65535},
        TargetCase{"https://127.0.0.1:8080", true, 8080, true},
        TargetCase{"https://localhost:6443/", true, 6443, true, "localhost"},
        TargetCase{"https://10.0.0.1:6443", false, 0},
        TargetCase{"https://127.0.0.1", false, 0},
        TargetCase{"ftp://127.0.0.1:8080", false, 0},
        TargetCase{"127.0.0.1:8080", false, 0},
        TargetCase{"http://10.0.0.1:8080", false, 0},
        TargetCase{"http://example.com:80", false, 0},
        TargetCase{"http://127.0.0.2:8080", false, 0},
        TargetCase{"http://127.0.0.1", false, 0},
        TargetCase{"http://127.0.0.1:0", false, 0},
        TargetCase{"http://127.0.0.1:65536", false, 0},
        TargetCase{"http://127.0.0.1:80x", false, 0},
        TargetCase{"http://127.0.0.1:8080/api", false, 0}));

}  // namespace
}  // namespace dralloc::load
