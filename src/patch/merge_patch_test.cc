#include "patch/merge_patch.h"

#include <gtest/gtest.h>

#include <string>

namespace dralloc::patch {
namespace {

Json J(std::string_view text) { return Json::parse(text); }

struct MergePatchCase {
  std::string original;
  std::string patch;
  std::string expected;  // "" means kInvalidArgument
};

class MergePatchTest : public testing::TestWithParam<MergePatchCase> {};

TEST_P(MergePatchTest, Applies) {
  const MergePatchCase& c = GetParam();
  StatusOr<Json> result = ApplyMergePatch(J(c.original), J(c.patch));
  if (c.expected.empty()) {
    ASSERT_FALSE(result.ok()) << result->dump();
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
    return;
  }
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, J(c.expected)) << result->dump();
}

// RFC 7386 appendix A. The rows whose patch is not an object replace the
// whole document in the RFC; Kubernetes rejects them.
INSTANTIATE_TEST_SUITE_P(
    Rfc7386AppendixA, MergePatchTest,
    testing::Values(
        MergePatchCase{R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
        MergePatchCase{R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
        MergePatchCase{R"({"a":"b"})", R"({"a":null})", R"({})"},
        MergePatchCase{R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
        MergePatchCase{R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
        MergePatchCase{R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
        MergePatchCase{R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})",
                       R"({"a":{"b":"d"}})"},
        MergePatchCase{R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
        MergePatchCase{R"(["a","b"])", R"(["c","d"])", ""},
        MergePatchCase{R"({"a":"b"})", R"(["c"])", ""},
        MergePatchCase{R"({"a":"foo"})", R"(null)", ""},
        MergePatchCase{R"({"a":"foo"})", R"("bar")", ""},
        MergePatchCase{R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
        MergePatchCase{R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
        MergePatchCase{R"({})", R"({"a":{"bb":{"ccc":null}}})",
                       R"({"a":{"bb":{}}})"}));

TEST(MergePatchOrderTest, KeepsOriginalOrderAndAppendsNewKeys) {
  auto result = ApplyMergePatch(J(R"({"z":1,"a":2,"m":{"y":1,"b":2}})"),
                                J(R"({"n":3,"z":4,"m":{"c":3,"y":null}})"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->dump(), R"({"z":4,"a":2,"m":{"b":2,"c":3},"n":3})");
}

TEST(MergePatchLimitsTest, DeepNestingIsRefused) {
  Json patch = Json::object();
  for (int i = 0; i < 1000; ++i) patch = Json{{"a", std::move(patch)}};
  auto result = ApplyMergePatch(J("{}"), patch);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
}

TEST(MergePatchTest, NonObjectOriginalBecomesObject) {
  auto result = ApplyMergePatch(J("null"), J(R"({"a":1})"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, J(R"({"a":1})"));
}

}  // namespace
}  // namespace dralloc::patch
