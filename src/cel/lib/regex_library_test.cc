// Tests of the regex library (Kubernetes library.Regex: find, findAll).
#include <gtest/gtest.h>

#include "cel/lib/extension_libraries_test_util.h"

namespace dralloc::cel {
namespace {

using namespace ext_lib_test;  // NOLINT: the shared test helpers

// ---- regex ----

TEST(ExtLibRegex, FindAndFindAll) {
  RunCases({
      {"string_find_string", {S("abc 123"), S("[0-9]+")}, S("123")},
      {"string_find_string", {S("abc 123"), S("xyz")}, S("")},
      {"string_find_string", {S("abc 123"), S("^[a-z]")}, S("a")},
      {"string_find_all_string",
       {S("123 abc 456"), S("[0-9]+")},
       Strs({"123", "456"})},
      {"string_find_all_string", {S("abc"), S("[0-9]+")}, Strs({})},
      {"string_find_all_string_int",
       {S("123 abc 456 789"), S("[0-9]+"), I(2)},
       Strs({"123", "456"})},
      {"string_find_all_string_int",
       {S("123 abc 456 789"), S("[0-9]+"), I(0)},
       Strs({})},
      {"string_find_all_string_int",
       {S("123 abc 456 789"), S("[0-9]+"), I(-1)},
       Strs({"123", "456", "789"})},
      // Go's treatment of empty matches.
      {"string_find_all_string", {S("abc"), S("")}, Strs({"", "", "", ""})},
      {"string_find_all_string",
       {S("xaxbb"), S("b*")},
       Strs({"", "", "", "bb"})},
      {"string_find_all_string", {S("©α"), S("")}, Strs({"", "", ""})},
      {"string_find_all_string", {S("aaa"), S("^a")}, Strs({"a"})},
      {"string_find_string", {S("abc"), S("(")}, Err("invalid")},
  });
}

TEST(ExtLibRegex, PrepareRejectsInvalidConstantPatterns) {
  const Overload& find = ById("string_find_string");
  ASSERT_NE(find.prepare, nullptr);
  Value bad = S("a(");
  std::vector<const Value*> constants = {nullptr, &bad};
  EXPECT_FALSE(find.prepare(constants).ok());
  Value good = S("a+");
  constants[1] = &good;
  auto state = find.prepare(constants);
  ASSERT_TRUE(state.ok());
  EXPECT_NE(*state, nullptr);
  // Not constant: nothing prepared; compiled per call, errors at runtime.
  constants[1] = nullptr;
  state = find.prepare(constants);
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(*state, nullptr);
  EvalContext ctx;
  CallContext call{&ctx, nullptr};
  std::vector<Value> args = {S("abc"), S("(")};
  Value result = find.impl(call, args);
  ASSERT_TRUE(result.IsError());
  EXPECT_NE(result.error_message().find("Illegal regex"), std::string::npos);
}

TEST(ExtLibRegex, Costs) {
  // ceil((1 + 15) * 0.1) * ceil(3 * 0.25) = 2.
  EXPECT_EQ(
      CallWithCost("string_find_string", {S("abc 123 def 123"), S("123")}).cost,
      2u);
  EXPECT_EQ(CallWithCost("string_find_all_string_int",
                         {S("abc 123 def 123"), S("123"), I(1)})
                .cost,
            2u);
  std::vector<SizeEstimate> sizes = {{15, 15}, {3, 3}};
  CostEstimate est = ById("string_find_all_string").estimate_cost(sizes);
  EXPECT_EQ(est.min, 2u);
  EXPECT_EQ(est.max, 2u);
}

}  // namespace
}  // namespace dralloc::cel
