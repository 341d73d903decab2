#include "cli/leader_election_flags.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace dralloc::cli {
namespace {

using std::chrono::milliseconds;

TEST(ParseGoDurationTest, GoSyntax) {
  struct Case {
    std::string text;
    std::optional<int64_t> ms;  // nullopt: rejected
  };
  const std::vector<Case> cases = {
      {"15s", 15'000},     {"500ms", 500},       {"1m30s", 90'000},
      {"1.5s", 1'500},     {"2h", 7'200'000},    {"0", 0},
      {"250000us", 250},   {"", std::nullopt},   {"15", std::nullopt},
      {"s", std::nullopt}, {"1x", std::nullopt}, {"1..5s", std::nullopt},
      {"-", std::nullopt},
  };
  for (const Case& c : cases) {
    auto parsed = ParseGoDuration(c.text, "--flag");
    if (c.ms.has_value()) {
      ASSERT_TRUE(parsed.ok()) << c.text << ": " << parsed.status();
      EXPECT_EQ(*parsed, milliseconds(*c.ms)) << c.text;
    } else {
      ASSERT_FALSE(parsed.ok()) << c.text;
      EXPECT_NE(parsed.status().message().find("--flag"), std::string::npos);
    }
  }
}

TEST(ElectionConfigTest, FlagsBecomeAValidatedConfig) {
  LeaderElectionFlags flags;
  auto config = ElectionConfig(flags, "dralloc-scheduler");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->lease_duration, milliseconds(15'000));
  EXPECT_EQ(config->renew_deadline, milliseconds(10'000));
  EXPECT_EQ(config->retry_period, milliseconds(2'000));
  EXPECT_EQ(config->lease_namespace, "kube-system");
  EXPECT_EQ(config->lease_name, "dralloc-scheduler");
  EXPECT_TRUE(config->release_on_cancel);

  flags.renew_deadline = "20s";
  auto inconsistent = ElectionConfig(flags, "dralloc-scheduler");
  ASSERT_FALSE(inconsistent.ok());
  EXPECT_NE(inconsistent.status().message().find(
                "leaseDuration must be greater than renewDeadline"),
            std::string::npos);
}

}  // namespace
}  // namespace dralloc::cli
