#include "load/watch_event_scanner.h"

#include <gtest/gtest.h>

namespace dralloc::load {
namespace {

struct EventCase {
  std::string name;
  std::string line;
  bool readable;
  std::string type;
  std::string resource_version;
};

class ScanWatchEventLineTest : public testing::TestWithParam<EventCase> {};

TEST_P(ScanWatchEventLineTest, ReadsTypeAndObjectResourceVersion) {
  const EventCase& c = GetParam();
  const std::optional<WatchEventLine> event = ScanWatchEventLine(c.line);
  ASSERT_EQ(event.has_value(), c.readable);
  if (!c.readable) return;
  EXPECT_EQ(event->type, c.type);
  EXPECT_EQ(event->resource_version, c.resource_version);
}

INSTANTIATE_TEST_SUITE_P(
    Lines, ScanWatchEventLineTest,
    testing::Values(
        EventCase{
            "CompactAdded",
            R"({"type":"ADDED","object":{"kind":"ResourceClaim","metadata":{"name":"a","resourceVersion":"42"},"spec":{}}})",
            true, "ADDED", "42"},
        EventCase{
            "Bookmark",
            R"({"type":"BOOKMARK","object":{"kind":"ResourceClaim","metadata":{"resourceVersion":"77"}}})",
            true, "BOOKMARK", "77"},
        // Spaces defeat the fast path; the full parse still reads it.
        EventCase{
            "Spaced",
            R"({ "type": "MODIFIED", "object": {"metadata": {"resourceVersion": "5"}}})",
            true, "MODIFIED", "5"},
        // "object" first: the fast path does not apply.
        EventCase{
            "ObjectFirst",
            R"({"object":{"metadata":{"resourceVersion":"8"}},"type":"DELETED"})",
            true, "DELETED", "8"},
        EventCase{
            "ErrorStatus",
            R"({"type":"ERROR","object":{"kind":"Status","code":410,"metadata":{}}})",
            true, "ERROR", ""},
        EventCase{"NoType", R"({"object":{}})", false, "", ""},
        EventCase{"Truncated", R"({"type":"ADDED","object":{"meta)", false, "",
                  ""},
        EventCase{"Garbage", "hello", false, "", ""}),
    [](const testing::TestParamInfo<EventCase>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace dralloc::load
