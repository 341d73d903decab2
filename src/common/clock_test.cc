#include "common/clock.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace dralloc {
namespace {

TEST(ClockTest, NowIsRfc3339InUtcWithSecondResolution) {
  EXPECT_TRUE(std::regex_match(
      NowRfc3339(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
}

TEST(ClockTest, UidsAreVersion4AndDistinct) {
  const std::regex uuid4(
      "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const std::string uid = NewUid();
    EXPECT_TRUE(std::regex_match(uid, uuid4)) << uid;
    seen.insert(uid);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(ClockTest, ParsesRfc3339Utc) {
  const std::optional<SystemTime> base = ParseUtcTime("2026-09-23T12:00:00Z");
  ASSERT_TRUE(base.has_value());
  ASSERT_TRUE(ParseUtcTime("2026-09-23T12:00:30Z").has_value());
  EXPECT_EQ(*ParseUtcTime("2026-09-23T12:00:30Z") - *base,
            std::chrono::seconds(30));
  EXPECT_EQ(*ParseUtcTime("2026-09-23T12:00:30.250Z") - *base,
            std::chrono::seconds(30));
  EXPECT_FALSE(ParseUtcTime("2026-09-23 12:00:30").has_value());
  EXPECT_FALSE(ParseUtcTime("2026-09-23T12:00:30+02:00").has_value());
  EXPECT_EQ(FormatUtcTime(*ParseUtcTime("2026-09-23T12:00:30.250Z")),
            "2026-09-23T12:00:30Z");
}

}  // namespace
}  // namespace dralloc
