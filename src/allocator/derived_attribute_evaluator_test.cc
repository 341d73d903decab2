#include "allocator/derived_attribute_evaluator.h"

#include <gtest/gtest.h>

#include <string>

#include "cel/common/eval_context.h"
#include "cel/dra/dra_environment.h"

namespace dralloc::allocator {
namespace {

// The derived value of `expression` on a device of driver "gpu.example.com"
// with attribute numa=1, as text ("<none>" for no value) or the error.
std::string Derive(const std::string& expression) {
  cel::DraDevice device("gpu.example.com");
  device.AddAttribute("numa", cel::Value::Int(1));
  auto program = cel::DerivedAttributeCache().GetOrCompile(expression);
  if (!program.ok())
    return "compile: " + std::string(program.status().message());
  cel::EvalContext ctx;
  auto result = cel::EvaluateDerivedAttribute(**program, device, ctx);
  if (!result.ok()) return "error: " + std::string(result.status().message());
  auto value = DerivedValueOf(*result);
  if (!value.ok()) return "error: " + std::string(value.status().message());
  return value->has_value() ? (*value)->ToString() : "<none>";
}

TEST(DerivedValueOfTest, ScalarsListsAndWrongTypes) {
  struct Case {
    std::string expression;
    std::string want;
  } cases[] = {
      {"device.attributes['gpu.example.com'].numa", "1"},
      {"device.attributes['gpu.example.com'].numa > 0", "true"},
      {"'numa' + string(device.attributes['gpu.example.com'].numa)",
       "\"numa1\""},
      {"semver('1.2.3')", "\"1.2.3\""},
      {"['b', 'a', 'b']", "[\"a\",\"b\"]"},
      {"[3, 1]", "[1,3]"},
      {"[]", "<none>"},
      {"1.5",
       "error: result of type double is not a string, int, bool or semver, "
       "or a list of one of them"},
      {"[device.attributes['gpu.example.com'].numa, 'a']",
       "error: list elements must all have one type, element 1 is a string"},
      {"device.attributes['gpu.example.com'].missing",
       "error: no such key: missing"},
  };
  for (const Case& c : cases) {
    std::string got = Derive(c.expression);
    if (c.want.starts_with("error: no such key")) {
      EXPECT_TRUE(got.starts_with(c.want)) << c.expression << " -> " << got;
    } else {
      EXPECT_EQ(got, c.want) << c.expression;
    }
  }
}

TEST(DerivedValueOfTest, ValidationRefusesResultTypesThatCanNeverWork) {
  EXPECT_FALSE(
      cel::CheckDerivedAttributeExpression("{'a': 1}").compile_error.ok());
  EXPECT_FALSE(cel::CheckDerivedAttributeExpression("1.5").compile_error.ok());
  EXPECT_FALSE(
      cel::CheckDerivedAttributeExpression("[1.5]").compile_error.ok());
  EXPECT_TRUE(cel::CheckDerivedAttributeExpression(
                  "device.attributes['x.example.com'].numa")
                  .compile_error.ok());
  EXPECT_TRUE(
      cel::CheckDerivedAttributeExpression("['a', 'b']").compile_error.ok());
}

}  // namespace
}  // namespace dralloc::allocator
