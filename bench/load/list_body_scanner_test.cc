#include "load/list_body_scanner.h"

#include <gtest/gtest.h>

namespace dralloc::load {
namespace {

struct ListCase {
  std::string name;
  std::string body;
  bool valid;
  std::int64_t items;
  std::string resource_version;
  std::string continue_token;
};

class ScanListBodyTest : public testing::TestWithParam<ListCase> {};

TEST_P(ScanListBodyTest, ReadsItemsAndTopLevelMetadata) {
  const ListCase& c = GetParam();
  StatusOr<ListBodySummary> summary = ScanListBody(c.body);
  ASSERT_EQ(summary.ok(), c.valid) << summary.status();
  if (!c.valid) return;
  EXPECT_EQ(summary->item_count, c.items);
  EXPECT_EQ(summary->resource_version, c.resource_version);
  EXPECT_EQ(summary->continue_token, c.continue_token);
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, ScanListBodyTest,
    testing::Values(
        ListCase{
            "Empty",
            R"({"kind":"ResourceSliceList","metadata":{"resourceVersion":"7"},"items":[]})",
            true, 0, "7", ""},
        ListCase{
            "TwoItemsWithContinue",
            R"({"metadata":{"resourceVersion":"12","continue":"abc="},"items":[{"metadata":{"name":"a","resourceVersion":"3"}},{"metadata":{"name":"b","resourceVersion":"4","continue":"no"}}]})",
            true, 2, "12", "abc="},
        // Nested arrays of objects inside an item are not items.
        ListCase{
            "NestedObjectsNotCounted",
            R"({"items":[{"spec":{"devices":[{"name":"d0"},{"name":"d1"}]}}],"metadata":{"resourceVersion":"9"}})",
            true, 1, "9", ""},
        // Only the top-level "items" counts, and only top-level metadata.
        ListCase{
            "DeeperItemsIgnored",
            R"({"other":{"items":[{},{}],"metadata":{"resourceVersion":"1"}},"items":[{}]})",
            true, 1, "", ""},
        ListCase{"NotJson", "{\"items\":[", false, 0, "", ""},
        ListCase{"NotAnObject", "[1,2]", false, 0, "", ""}),
    [](const testing::TestParamInfo<ListCase>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace dralloc::load
