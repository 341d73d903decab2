#include "apiserver/selectors.h"

#include <gtest/gtest.h>

namespace dralloc::apiserver {
namespace {

struct LabelCase {
  std::string selector;
  std::map<std::string, std::string> labels;
  bool matches;
};

TEST(LabelSelectorTest, MatchesLikeKubernetes) {
  const std::vector<LabelCase> cases = {
      {"", {}, true},
      {"app=demo", {{"app", "demo"}}, true},
      {"app==demo", {{"app", "demo"}}, true},
      {"app=demo", {{"app", "other"}}, false},
      {"app!=demo", {}, true},
      {"app!=demo", {{"app", "demo"}}, false},
      {"app=demo,tier!=x", {{"app", "demo"}, {"tier", "y"}}, true},
      {"app=demo,tier!=x", {{"app", "demo"}, {"tier", "x"}}, false},
      {"env in (a, b)", {{"env", "b"}}, true},
      {"env in (a,b)", {{"env", "c"}}, false},
      {"env notin (a,b)", {}, true},
      {"env notin (a,b)", {{"env", "a"}}, false},
      {"gpu", {{"gpu", ""}}, true},
      {"gpu", {}, false},
      {"!gpu", {}, true},
      {"!gpu", {{"gpu", "1"}}, false},
      {"example.com/team=ml", {{"example.com/team", "ml"}}, true},
  };
  for (const LabelCase& c : cases) {
    auto selector = LabelSelector::Parse(c.selector);
    ASSERT_TRUE(selector.ok()) << c.selector << ": " << selector.status();
    EXPECT_EQ(selector->Matches(c.labels), c.matches) << c.selector;
  }
}

TEST(LabelSelectorTest, RejectsMalformedTerms) {
  for (const char* bad : {"a=b,,c", "env in a,b", "a=(b", "=x", "a b=c"}) {
    EXPECT_FALSE(LabelSelector::Parse(bad).ok()) << bad;
  }
}

TEST(FieldSelectorTest, MatchesSupportedFields) {
  const std::vector<std::string_view> supported = {"spec.nodeName",
                                                   "status.phase"};
  auto selector = FieldSelector::Parse(
      "spec.nodeName=n1,status.phase!=Succeeded,metadata.name==p", supported);
  ASSERT_TRUE(selector.ok()) << selector.status();
  std::map<std::string, std::string> values = {{"spec.nodeName", "n1"},
                                               {"status.phase", "Running"},
                                               {"metadata.name", "p"}};
  auto lookup = [&](std::string_view f) { return values[std::string(f)]; };
  EXPECT_TRUE(selector->Matches(lookup));
  values["status.phase"] = "Succeeded";
  EXPECT_FALSE(selector->Matches(lookup));
  EXPECT_EQ(selector->RequiredValue("spec.nodeName"), "n1");
  EXPECT_FALSE(selector->RequiredValue("status.phase").has_value());
}

TEST(FieldSelectorTest, EmptyValueAndEscapes) {
  auto selector = FieldSelector::Parse(
      "involvedObject.namespace=,reason=a\\,b",
      std::vector<std::string_view>{"involvedObject.namespace", "reason"});
  ASSERT_TRUE(selector.ok()) << selector.status();
  std::map<std::string, std::string> values = {{"reason", "a,b"}};
  EXPECT_TRUE(selector->Matches(
      [&](std::string_view f) { return values[std::string(f)]; }));
}

TEST(FieldSelectorTest, UnsupportedFieldIsAnError) {
  auto selector = FieldSelector::Parse("spec.foo=x", {});
  ASSERT_FALSE(selector.ok());
  EXPECT_EQ(selector.status().message(), "field label not supported: spec.foo");
  EXPECT_FALSE(FieldSelector::Parse("metadata.name", {}).ok());
}

}  // namespace
}  // namespace dralloc::apiserver
