#include "load/latency_summary.h"

#include <gtest/gtest.h>

namespace dralloc::load {
namespace {

TEST(LatencySummaryTest, EmptyInputIsAllZero) {
  const LatencySummary summary = SummarizeLatencies({});
  EXPECT_EQ(summary.count, 0u);
  EXPECT_EQ(summary.p50_ms, 0);
  EXPECT_EQ(summary.max_ms, 0);
}

TEST(LatencySummaryTest, NearestRankOverOneToHundred) {
  std::vector<std::int64_t> latencies;
  // 100..1 ms in microseconds, unsorted on purpose.
  for (int ms = 100; ms >= 1; --ms) latencies.push_back(ms * 1000);
  const LatencySummary summary = SummarizeLatencies(latencies);
  EXPECT_EQ(summary.count, 100u);
  EXPECT_DOUBLE_EQ(summary.p50_ms, 50);
  EXPECT_DOUBLE_EQ(summary.p90_ms, 90);
  EXPECT_DOUBLE_EQ(summary.p99_ms, 99);
  EXPECT_DOUBLE_EQ(summary.max_ms, 100);
  EXPECT_DOUBLE_EQ(summary.mean_ms, 50.5);
}

struct PercentileCase {
  std::vector<std::int64_t> sorted;
  double percent;
  std::int64_t expected;
};

class NearestRankTest : public testing::TestWithParam<PercentileCase> {};

TEST_P(NearestRankTest, PicksTheSmallestSampleCoveringThePercent) {
  const PercentileCase& c = GetParam();
  EXPECT_EQ(NearestRankPercentile(c.sorted, c.percent), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, NearestRankTest,
    testing::Values(PercentileCase{{7}, 50, 7}, PercentileCase{{7}, 99, 7},
                    PercentileCase{{1, 2}, 50, 1},
                    PercentileCase{{1, 2}, 51, 2},
                    PercentileCase{{1, 2, 3, 4, 5}, 0, 1},
                    PercentileCase{{1, 2, 3, 4, 5}, 100, 5},
                    PercentileCase{{1, 2, 3, 4, 5}, 99, 5},
                    PercentileCase{{1, 2, 3, 4, 5}, 40, 2}));

}  // namespace
}  // namespace dralloc::load
