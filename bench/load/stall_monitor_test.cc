#include "load/stall_monitor.h"

#include <gtest/gtest.h>

namespace dralloc::load {
namespace {

TEST(StallMonitorTest, SummaryNamesTheLongestStall) {
  const StallSummary summary =
      SummarizeStalls({{1000, 6.0}, {4030, 15.2}, {7000, 9.8}});
  EXPECT_EQ(summary.count, 3);
  EXPECT_DOUBLE_EQ(summary.longest_ms, 15.2);
  EXPECT_DOUBLE_EQ(summary.longest_start_ms, 4030);
  EXPECT_DOUBLE_EQ(summary.total_ms, 31.0);
  EXPECT_EQ(FormatStallSummary(summary, std::chrono::milliseconds(5)),
            "3 stalls over 5 ms, longest 15.2 ms at 4.03 s, 31.0 ms in all");
}

TEST(StallMonitorTest, JsonCarriesTheSummary) {
  const nlohmann::json json =
      StallsJson({{500, 12.5}}, std::chrono::milliseconds(5));
  EXPECT_EQ(json["threshold_ms"], 5);
  EXPECT_EQ(json["count"], 1);
  EXPECT_DOUBLE_EQ(json["longest_ms"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(json["longest_start_ms"].get<double>(), 500);
}

TEST(StallMonitorTest, NoStallsSaysSo) {
  EXPECT_EQ(
      FormatStallSummary(SummarizeStalls({}), std::chrono::milliseconds(5)),
      "no stalls over 5 ms");
}

TEST(StallMonitorTest, StopWithoutStartAndTwiceIsHarmless) {
  StallMonitor monitor;
  EXPECT_TRUE(monitor.Stop().empty());
  monitor.Start(std::chrono::steady_clock::now());
  monitor.Stop();
  EXPECT_TRUE(monitor.Stop().size() < 1000);
}

}  // namespace
}  // namespace dralloc::load
