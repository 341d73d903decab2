#include "scheduler/label_selector_matcher.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dralloc::scheduler {
namespace {

using Requirement = api::LabelSelectorRequirement;

struct MatchCase {
  std::string name;
  api::LabelSelector selector;
  Labels labels;
  bool matches;
};

const Labels kWeb = {{"app", "web"}, {"tier", "front"}};

std::vector<MatchCase> MatchCases() {
  return {
      {"empty_selects_all", {}, kWeb, true},
      {"match_labels", {.match_labels = {{"app", "web"}}}, kWeb, true},
      {"match_labels_other_value",
       {.match_labels = {{"app", "db"}}},
       kWeb,
       false},
      {"match_labels_missing_key",
       {.match_labels = {{"zone", "a"}}},
       kWeb,
       false},
      {"in", {.match_expressions = {{"app", "In", {"db", "web"}}}}, kWeb, true},
      {"in_absent_key",
       {.match_expressions = {{"x", "In", {"web"}}}},
       kWeb,
       false},
      {"not_in",
       {.match_expressions = {{"app", "NotIn", {"web"}}}},
       kWeb,
       false},
      {"not_in_absent_key",
       {.match_expressions = {{"x", "NotIn", {"a"}}}},
       kWeb,
       true},
      {"exists", {.match_expressions = {{"tier", "Exists", {}}}}, kWeb, true},
      {"exists_absent",
       {.match_expressions = {{"x", "Exists", {}}}},
       kWeb,
       false},
      {"does_not_exist",
       {.match_expressions = {{"x", "DoesNotExist", {}}}},
       kWeb,
       true},
      {"does_not_exist_present",
       {.match_expressions = {{"app", "DoesNotExist", {}}}},
       kWeb,
       false},
      {"unknown_operator",
       {.match_expressions = {{"app", "Gt", {"1"}}}},
       kWeb,
       false},
      {"all_anded",
       {.match_labels = {{"app", "web"}},
        .match_expressions = {{"tier", "In", {"back"}}}},
       kWeb,
       false},
  };
}

class LabelSelectorMatchTest : public testing::TestWithParam<MatchCase> {};

TEST_P(LabelSelectorMatchTest, Matches) {
  EXPECT_EQ(LabelSelectorMatches(GetParam().selector, GetParam().labels),
            GetParam().matches);
}

INSTANTIATE_TEST_SUITE_P(Cases, LabelSelectorMatchTest,
                         testing::ValuesIn(MatchCases()),
                         [](const testing::TestParamInfo<MatchCase>& info) {
                           return info.param.name;
                         });

TEST(LabelSelectorMatcherTest, UnsetSelectorMatchesNothing) {
  EXPECT_FALSE(LabelSelectorMatches(std::optional<api::LabelSelector>(), kWeb));
  EXPECT_TRUE(LabelSelectorMatches(
      std::optional<api::LabelSelector>(api::LabelSelector{}), kWeb));
}

TEST(LabelSelectorMatcherTest, MatchLabelKeysAddThePodsValues) {
  const std::vector<std::string> keys = {"hash", "absent"};
  const Labels pod = {{"app", "web"}, {"hash", "v2"}};
  auto merged = MergeMatchLabelKeys(
      api::LabelSelector{.match_labels = {{"app", "web"}}}, keys, pod);
  ASSERT_TRUE(merged.has_value());
  EXPECT_TRUE(LabelSelectorMatches(merged, pod));
  EXPECT_FALSE(LabelSelectorMatches(merged, {{"app", "web"}, {"hash", "v1"}}));
  EXPECT_FALSE(LabelSelectorMatches(merged, {{"app", "web"}}));
}

TEST(LabelSelectorMatcherTest, MatchLabelKeysAbsentFromPodLeaveSelector) {
  const std::vector<std::string> keys = {"hash"};
  EXPECT_FALSE(MergeMatchLabelKeys(std::nullopt, keys, kWeb).has_value());
}

TEST(LabelSelectorMatcherTest, MatchLabelKeysOnUnsetSelectorSelectByKeys) {
  const std::vector<std::string> keys = {"app"};
  auto merged = MergeMatchLabelKeys(std::nullopt, keys, kWeb);
  EXPECT_TRUE(LabelSelectorMatches(merged, {{"app", "web"}}));
  EXPECT_FALSE(LabelSelectorMatches(merged, {{"app", "db"}}));
}

}  // namespace
}  // namespace dralloc::scheduler
