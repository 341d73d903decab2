#include "patch/json_patch.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace dralloc::patch {
namespace {

Json J(std::string_view text) { return Json::parse(text); }

struct JsonPatchCase {
  std::string name;
  std::string document;
  std::string patch;
  std::optional<std::string> expected;  // nullopt: expect `error`
  StatusCode error = StatusCode::kOk;
};

class JsonPatchTest : public testing::TestWithParam<JsonPatchCase> {};

TEST_P(JsonPatchTest, Applies) {
  const JsonPatchCase& c = GetParam();
  StatusOr<Json> result = ApplyJsonPatch(J(c.document), J(c.patch));
  if (c.expected) {
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(JsonEqual(*result, J(*c.expected)))
        << result->dump() << " != " << *c.expected;
  } else {
    ASSERT_FALSE(result.ok()) << result->dump();
    EXPECT_EQ(result.status().code(), c.error) << result.status();
  }
}

constexpr StatusCode kInvalid = StatusCode::kInvalidArgument;
constexpr StatusCode kPrecondition = StatusCode::kFailedPrecondition;

// RFC 6902 appendix A (A.13, a duplicate "op" member, cannot be expressed
// once the document is parsed).
INSTANTIATE_TEST_SUITE_P(
    Rfc6902AppendixA, JsonPatchTest,
    testing::Values(
        JsonPatchCase{"A1_AddObjectMember", R"({"foo":"bar"})",
                      R"([{"op":"add","path":"/baz","value":"qux"}])",
                      R"({"baz":"qux","foo":"bar"})"},
        JsonPatchCase{"A2_AddArrayElement", R"({"foo":["bar","baz"]})",
                      R"([{"op":"add","path":"/foo/1","value":"qux"}])",
                      R"({"foo":["bar","qux","baz"]})"},
        JsonPatchCase{"A3_RemoveObjectMember", R"({"baz":"qux","foo":"bar"})",
                      R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})"},
        JsonPatchCase{"A4_RemoveArrayElement", R"({"foo":["bar","qux","baz"]})",
                      R"([{"op":"remove","path":"/foo/1"}])",
                      R"({"foo":["bar","baz"]})"},
        JsonPatchCase{"A5_ReplaceValue", R"({"baz":"qux","foo":"bar"})",
                      R"([{"op":"replace","path":"/baz","value":"boo"}])",
                      R"({"baz":"boo","foo":"bar"})"},
        JsonPatchCase{
            "A6_MoveValue",
            R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
            R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
            R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
        JsonPatchCase{"A7_MoveArrayElement",
                      R"({"foo":["all","grass","cows","eat"]})",
                      R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
                      R"({"foo":["all","cows","eat","grass"]})"},
        JsonPatchCase{"A8_TestSuccess", R"({"baz":"qux","foo":["a",2,"c"]})",
                      R"([{"op":"test","path":"/baz","value":"qux"},
                          {"op":"test","path":"/foo/1","value":2}])",
                      R"({"baz":"qux","foo":["a",2,"c"]})"},
        JsonPatchCase{"A9_TestError", R"({"baz":"qux"})",
                      R"([{"op":"test","path":"/baz","value":"bar"}])",
                      std::nullopt, kPrecondition},
        JsonPatchCase{"A10_AddNestedMember", R"({"foo":"bar"})",
                      R"([{"op":"add","path":"/child",
                           "value":{"grandchild":{}}}])",
                      R"({"foo":"bar","child":{"grandchild":{}}})"},
        JsonPatchCase{"A11_IgnoreUnrecognizedElements", R"({"foo":"bar"})",
                      R"([{"op":"add","path":"/baz","value":"qux",
                           "xyz":123}])",
                      R"({"foo":"bar","baz":"qux"})"},
        JsonPatchCase{"A12_AddToNonexistentTarget", R"({"foo":"bar"})",
                      R"([{"op":"add","path":"/baz/bat","value":"qux"}])",
                      std::nullopt, kPrecondition},
        JsonPatchCase{"A14_EscapeOrdering", R"({"/":9,"~1":10})",
                      R"([{"op":"test","path":"/~01","value":10}])",
                      R"({"/":9,"~1":10})"},
        JsonPatchCase{"A15_StringIsNotNumber", R"({"/":9,"~1":10})",
                      R"([{"op":"test","path":"/~01","value":"10"}])",
                      std::nullopt, kPrecondition},
        JsonPatchCase{"A16_AddArrayValue", R"({"foo":["bar"]})",
                      R"([{"op":"add","path":"/foo/-",
                           "value":["abc","def"]}])",
                      R"({"foo":["bar",["abc","def"]]})"}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Operations, JsonPatchTest,
    testing::Values(
        JsonPatchCase{"CopyMember", R"({"a":{"b":1}})",
                      R"([{"op":"copy","from":"/a","path":"/c"}])",
                      R"({"a":{"b":1},"c":{"b":1}})"},
        JsonPatchCase{"CopyIntoArrayEnd", R"({"a":[1],"b":2})",
                      R"([{"op":"copy","from":"/b","path":"/a/-"}])",
                      R"({"a":[1,2],"b":2})"},
        JsonPatchCase{"SlashEscape", R"({"metadata":{"labels":{}}})",
                      R"([{"op":"add",
                           "path":"/metadata/labels/example.com~1team",
                           "value":"x"}])",
                      R"({"metadata":{"labels":{"example.com/team":"x"}}})"},
        JsonPatchCase{"ReplaceRoot", R"({"a":1})",
                      R"([{"op":"replace","path":"","value":{"b":2}}])",
                      R"({"b":2})"},
        JsonPatchCase{"TestDeepEqualityIgnoresKeyOrder",
                      R"({"a":{"x":1,"y":[1,{"p":1,"q":2}]}})",
                      R"([{"op":"test","path":"/a",
                           "value":{"y":[1,{"q":2,"p":1}],"x":1.0}}])",
                      R"({"a":{"x":1,"y":[1,{"p":1,"q":2}]}})"},
        JsonPatchCase{"TestArrayOrderMatters", R"({"a":[1,2]})",
                      R"([{"op":"test","path":"/a","value":[2,1]}])",
                      std::nullopt, kPrecondition},
        JsonPatchCase{"AllOrNothing", R"({"a":1})",
                      R"([{"op":"replace","path":"/a","value":2},
                          {"op":"test","path":"/a","value":1}])",
                      std::nullopt, kPrecondition},
        JsonPatchCase{"MoveToSamePath", R"({"a":1})",
                      R"([{"op":"move","from":"/a","path":"/a"}])",
                      R"({"a":1})"},
        JsonPatchCase{"AddReplacesExistingMember", R"({"a":1})",
                      R"([{"op":"add","path":"/a","value":2}])", R"({"a":2})"},
        JsonPatchCase{"AddIndexAtEnd", R"({"a":[1]})",
                      R"([{"op":"add","path":"/a/1","value":2}])",
                      R"({"a":[1,2]})"},
        JsonPatchCase{"EmptyPatch", R"({"a":1})", R"([])", R"({"a":1})"}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Errors, JsonPatchTest,
    testing::Values(
        JsonPatchCase{"PatchNotArray", R"({})", R"({"op":"add"})", std::nullopt,
                      kInvalid},
        JsonPatchCase{"OperationNotObject", R"({})", R"([1])", std::nullopt,
                      kInvalid},
        JsonPatchCase{"UnknownOp", R"({})",
                      R"([{"op":"frobnicate","path":"/a"}])", std::nullopt,
                      kInvalid},
        JsonPatchCase{"OpNotString", R"({})", R"([{"op":1,"path":"/a"}])",
                      std::nullopt, kInvalid},
        JsonPatchCase{"MissingPath", R"({})", R"([{"op":"add","value":1}])",
                      std::nullopt, kInvalid},
        JsonPatchCase{"PathNotString", R"({})",
                      R"([{"op":"add","path":5,"value":1}])", std::nullopt,
                      kInvalid},
        JsonPatchCase{"MissingValue", R"({})", R"([{"op":"add","path":"/a"}])",
                      std::nullopt, kInvalid},
        JsonPatchCase{"MissingFrom", R"({"a":1})",
                      R"([{"op":"move","path":"/b"}])", std::nullopt, kInvalid},
        JsonPatchCase{"PointerWithoutSlash", R"({"a":1})",
                      R"([{"op":"remove","path":"a"}])", std::nullopt,
                      kInvalid},
        JsonPatchCase{"BadEscape", R"({"a":1})",
                      R"([{"op":"remove","path":"/~2"}])", std::nullopt,
                      kInvalid},
        JsonPatchCase{"TrailingTilde", R"({"a":1})",
                      R"([{"op":"remove","path":"/a~"}])", std::nullopt,
                      kInvalid},
        JsonPatchCase{"MoveIntoOwnChild", R"({"a":{"b":{}}})",
                      R"([{"op":"move","from":"/a","path":"/a/b/c"}])",
                      std::nullopt, kInvalid},
        JsonPatchCase{"RemoveMissingMember", R"({"a":1})",
                      R"([{"op":"remove","path":"/b"}])", std::nullopt,
                      kPrecondition},
        JsonPatchCase{"ReplaceMissingMember", R"({"a":1})",
                      R"([{"op":"replace","path":"/b","value":1}])",
                      std::nullopt, kPrecondition},
        JsonPatchCase{"RemoveIndexOutOfRange", R"({"a":[1]})",
                      R"([{"op":"remove","path":"/a/1"}])", std::nullopt,
                      kPrecondition},
        JsonPatchCase{"AddIndexOutOfRange", R"({"a":[1]})",
                      R"([{"op":"add","path":"/a/2","value":0}])", std::nullopt,
                      kPrecondition},
        JsonPatchCase{"LeadingZeroIndex", R"({"a":[1,2]})",
                      R"([{"op":"remove","path":"/a/01"}])", std::nullopt,
                      kPrecondition},
        JsonPatchCase{"NegativeIndex", R"({"a":[1,2]})",
                      R"([{"op":"remove","path":"/a/-1"}])", std::nullopt,
                      kPrecondition},
        JsonPatchCase{"DashOnlyForAdd", R"({"a":[1,2]})",
                      R"([{"op":"replace","path":"/a/-","value":3}])",
                      std::nullopt, kPrecondition},
        JsonPatchCase{"AddUnderScalar", R"({"a":1})",
                      R"([{"op":"add","path":"/a/b","value":1}])", std::nullopt,
                      kPrecondition},
        JsonPatchCase{"TestMissingPath", R"({"a":1})",
                      R"([{"op":"test","path":"/b","value":1}])", std::nullopt,
                      kPrecondition},
        JsonPatchCase{"CopyMissingFrom", R"({"a":1})",
                      R"([{"op":"copy","from":"/b","path":"/c"}])",
                      std::nullopt, kPrecondition},
        JsonPatchCase{"RemoveRoot", R"({"a":1})",
                      R"([{"op":"remove","path":""}])", std::nullopt,
                      kPrecondition}),
    [](const auto& info) { return info.param.name; });

TEST(JsonPatchMessagesTest, ReadLikeUpstream) {
  auto test_failed = ApplyJsonPatch(
      J(R"({"a":1})"), J(R"([{"op":"test","path":"/a","value":2}])"));
  EXPECT_EQ(test_failed.status().message(),
            "testing value /a failed: test failed");
  auto missing = ApplyJsonPatch(J(R"({"a":1})"),
                                J(R"([{"op":"add","path":"/x/y","value":2}])"));
  EXPECT_EQ(missing.status().message(),
            "add operation does not apply: doc is missing path: \"/x/y\"");
  auto replace = ApplyJsonPatch(
      J(R"({"a":1})"), J(R"([{"op":"replace","path":"/b","value":2}])"));
  EXPECT_EQ(replace.status().message(),
            "replace operation does not apply: doc is missing key: /b");
}

TEST(JsonPatchLimitsTest, DeeplyNestedPatchIsRefused) {
  Json value = 1;
  for (int i = 0; i < 500; ++i) value = Json::array({std::move(value)});
  Json patch = Json::array(
      {{{"op", "add"}, {"path", "/a"}, {"value", std::move(value)}}});
  auto result = ApplyJsonPatch(J("{}"), patch);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), kInvalid);
}

TEST(JsonPatchLimitsTest, CopiesCannotNestTooDeeply) {
  // A 60-level chain copied below its own deepest member would be 120 deep.
  Json original = Json::object();
  std::string deepest;
  for (int i = 0; i < 60; ++i) {
    original = Json{{"a", std::move(original)}};
    deepest += "/a";
  }
  Json patch =
      Json::array({{{"op", "copy"}, {"from", "/a"}, {"path", deepest + "/b"}}});
  auto result = ApplyJsonPatch(original, patch);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), kInvalid);
  EXPECT_NE(result.status().message().find("levels deep"), std::string::npos)
      << result.status();
}

TEST(JsonPatchLimitsTest, RepeatedCopiesCannotGrowWithoutBound) {
  // Each copy doubles the size of the document.
  Json patch = Json::array();
  for (int i = 0; i < 40; ++i) {
    patch.push_back({{"op", "copy"}, {"from", "/a"}, {"path", "/a/-"}});
  }
  auto result = ApplyJsonPatch(J(R"({"a":[1]})"), patch);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), kInvalid);
}

TEST(JsonPatchTest, OriginalIsNotModified) {
  const Json original = J(R"({"a":[1,2]})");
  auto result =
      ApplyJsonPatch(original, J(R"([{"op":"remove","path":"/a/0"}])"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(original, J(R"({"a":[1,2]})"));
  EXPECT_EQ(*result, J(R"({"a":[2]})"));
}

}  // namespace
}  // namespace dralloc::patch
