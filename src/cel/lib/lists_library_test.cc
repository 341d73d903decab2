// Tests of the lists library (Kubernetes library.Lists, cel-go ext.Lists).
#include <gtest/gtest.h>

#include "cel/lib/extension_libraries_test_util.h"

namespace dralloc::cel {
namespace {

using namespace ext_lib_test;  // NOLINT: the shared test helpers

// ---- lists ----

TEST(ExtLibLists, KubernetesLists) {
  Value ints = L({I(1), I(2), I(3)});
  RunCases({
      {"list_int_is_sorted_bool", {ints}, Value::Bool(true)},
      {"list_int_is_sorted_bool", {L({I(3), I(2)})}, Value::Bool(false)},
      {"list_int_is_sorted_bool", {L({})}, Value::Bool(true)},
      {"list_string_is_sorted_bool",
       {Strs({"a", "b", "b"})},
       Value::Bool(true)},
      {"list_string_is_sorted_bool", {Strs({"b", "a"})}, Value::Bool(false)},
      {"list_int_is_sorted_bool", {L({I(1), D(1.5), U(2)})}, Value::Bool(true)},
      {"list_int_sum_int", {ints}, I(6)},
      {"list_int_sum_int", {L({})}, I(0)},
      {"list_uint_sum_uint", {L({})}, U(0)},
      {"list_double_sum_double", {L({})}, D(0)},
      {"list_double_sum_double", {L({D(1.5), D(2.25)})}, D(3.75)},
      {"list_duration_sum_duration", {L({Seconds(1), Seconds(2)})}, Seconds(3)},
      {"list_duration_sum_duration", {L({})}, Seconds(0)},
      {"list_uint_sum_uint", {L({U(1), U(2)})}, U(3)},
      // A dyn list dispatched to the int overload sums its own kind.
      {"list_int_sum_int", {L({D(0.5), D(0.25)})}, D(0.75)},
      {"list_int_sum_int",
       {L({I(std::numeric_limits<int64_t>::max()), I(1)})},
       Err("overflow")},
      {"list_int_sum_int", {L({I(1), D(1.5)})}, Err("no matching overload")},
      {"list_int_min_int", {L({I(3), I(1), I(2)})}, I(1)},
      {"list_int_max_int", {L({I(3), I(1), I(2)})}, I(3)},
      {"list_string_max_string", {Strs({"a", "c", "b"})}, S("c")},
      {"list_int_max_int", {L({I(1), D(2.5), U(2)})}, D(2.5)},
      {"list_int_min_int", {L({})}, Err("min called on empty list")},
      {"list_int_max_int", {L({})}, Err("max called on empty list")},
      {"list_a_index_of_int", {ints, I(2)}, I(1)},
      {"list_a_index_of_int", {ints, D(2.0)}, I(1)},
      {"list_a_index_of_int", {ints, I(4)}, I(-1)},
      {"list_a_index_of_int", {L({}), S("x")}, I(-1)},
      {"list_a_last_index_of_int", {L({I(1), I(2), I(1)}), I(1)}, I(2)},
      {"list_a_last_index_of_int", {L({S("a")}), S("b")}, I(-1)},
  });
}

TEST(ExtLibLists, Includes) {
  std::vector<Value> many;
  for (int i = 0; i < 49; ++i) many.push_back(I(i));
  Value list49 = L(many);
  many.pop_back();
  Value list48 = L(many);
  RunCases({
      {"dra_includes_dyn_dyn",
       {L({I(1), I(2), I(3)}), I(2)},
       Value::Bool(true)},
      {"dra_includes_dyn_dyn",
       {L({I(1), I(2), I(3)}), I(4)},
       Value::Bool(false)},
      {"dra_includes_dyn_dyn", {S("model-a"), S("model-a")}, Value::Bool(true)},
      {"dra_includes_dyn_dyn",
       {S("model-a"), S("model-b")},
       Value::Bool(false)},
      {"dra_includes_dyn_dyn",
       {Value::Bool(true), Value::Bool(true)},
       Value::Bool(true)},
      {"dra_includes_dyn_dyn", {list48, I(100)}, Value::Bool(false)},
      {"dra_includes_dyn_dyn", {list49, I(0)}, Value::Bool(true)},
      {"dra_includes_dyn_dyn",
       {list49, I(100)},
       Err("'includes' function cannot be applied to lists longer than 48 "
           "values")},
  });
}

TEST(ExtLibLists, TraversalCosts) {
  // Kubernetes cost_test.go: the call part of `<5 elements>.sum()` etc.
  Value ints = L({I(1), I(2), I(3), I(4), I(5)});
  EXPECT_EQ(CallWithCost("list_int_sum_int", {ints}).cost, 5u);
  EXPECT_EQ(CallWithCost("list_int_is_sorted_bool", {ints}).cost, 5u);
  EXPECT_EQ(CallWithCost("list_a_index_of_int", {ints, I(3)}).cost, 5u);
  // Strings of 12 bytes cost trunc(1.2) = 1 each.
  Value strs = Strs({"012345678901", "012345678901", "012345678901",
                     "012345678901", "012345678901"});
  EXPECT_EQ(CallWithCost("list_string_max_string", {strs}).cost, 5u);
  EXPECT_EQ(CallWithCost("dra_includes_dyn_dyn", {strs, S("x")}).cost, 5u);
  EXPECT_EQ(
      CallWithCost("dra_includes_dyn_dyn", {S(std::string(50, 'x')), S("123")})
          .cost,
      5u);
  EXPECT_EQ(TraversalCost(M({{S("0123456789"), L({I(1), I(2)})}})), 3u);
  const Overload& includes = ById("dra_includes_dyn_dyn");
  std::vector<SizeEstimate> any = {{0, kUnboundedSize}, {1, 1}};
  EXPECT_EQ(includes.estimate_cost(any).max, 48u);
  const Overload& sum = ById("list_int_sum_int");
  std::vector<SizeEstimate> five = {{5, 5}};
  EXPECT_EQ(sum.estimate_cost(five).min, 5u);
  EXPECT_EQ(sum.estimate_cost(five).max, 5u);
}

TEST(ExtLibLists, ExtLists) {
  Value ints = L({I(1), I(2), I(3), I(4)});
  RunCases({
      {"list_slice", {ints, I(1), I(3)}, L({I(2), I(3)})},
      {"list_slice", {ints, I(0), I(0)}, L({})},
      {"list_slice", {ints, I(0), I(4)}, ints},
      {"list_slice",
       {ints, I(3), I(1)},
       Err("cannot slice(3, 1), start index must be less than or equal to "
           "end index")},
      {"list_slice",
       {ints, I(-1), I(1)},
       Err("cannot slice(-1, 1), negative indexes not supported")},
      {"list_slice",
       {ints, I(1), I(5)},
       Err("cannot slice(1, 5), list is length 4")},
      {"list_flatten",
       {L({L({I(1)}), L({I(2), I(3)}), I(4)})},
       L({I(1), I(2), I(3), I(4)})},
      {"list_flatten", {L({L({I(1), L({I(2)})})})}, L({I(1), L({I(2)})})},
      {"list_flatten_int",
       {L({L({I(1), L({I(2), L({I(3)})})})}), I(2)},
       L({I(1), I(2), L({I(3)})})},
      {"list_flatten_int", {L({L({I(1)})}), I(0)}, L({L({I(1)})})},
      {"list_flatten_int",
       {L({L({I(1)})}), I(-1)},
       Err("level must be non-negative")},
      {"lists_range", {I(4)}, L({I(0), I(1), I(2), I(3)})},
      {"lists_range", {I(0)}, L({})},
      {"lists_range", {I(-3)}, L({})},
      {"list_reverse", {ints}, L({I(4), I(3), I(2), I(1)})},
      {"list_reverse", {L({})}, L({})},
      {"list_distinct",
       {L({I(1), D(1.0), U(2), I(2), S("a"), S("a")})},
       L({I(1), U(2), S("a")})},
      {"list_int_sort", {L({I(3), I(1), I(2)})}, L({I(1), I(2), I(3)})},
      {"list_string_sort", {Strs({"b", "c", "a"})}, Strs({"a", "b", "c"})},
      {"list_double_sort", {L({D(2), D(NAN), D(1)})}, L({D(1), D(2), D(NAN)})},
      {"list_int_sort",
       {L({I(3), D(1.0)})},
       Err("list elements must have the same type")},
      {"list_int_sort",
       {L({L({}), L({})})},
       Err("list elements must be comparable")},
      {"list_int_sortByAssociatedKeys",
       {Strs({"foo", "bar", "baz"}), L({I(3), I(1), I(2)})},
       Strs({"bar", "baz", "foo"})},
      // Stable for equal keys.
      {"list_int_sortByAssociatedKeys",
       {Strs({"a", "b", "c", "d"}), L({I(2), I(1), I(2), I(1)})},
       Strs({"b", "d", "a", "c"})},
      {"list_int_sortByAssociatedKeys",
       {Strs({"a"}), L({I(1), I(2)})},
       Err("expected a list of the same size as the associated keys list, "
           "but got 1 and 2 elements respectively")},
      {"list_first", {ints}, Value::OptionalOf(I(1))},
      {"list_last", {ints}, Value::OptionalOf(I(4))},
      {"list_first", {L({})}, Value::OptionalNone()},
      {"list_last", {L({})}, Value::OptionalNone()},
      {"optional_unwrap",
       {L({Value::OptionalOf(I(1)), Value::OptionalNone(),
           Value::OptionalOf(I(3))})},
       L({I(1), I(3)})},
      {"optional_unwrapOpt", {L({Value::OptionalNone()})}, L({})},
      {"optional_unwrap", {L({I(1)})}, Err("value 1 is not optional")},
  });
}

TEST(ExtLibLists, ExtListCosts) {
  Value ints = L({I(1), I(2), I(3), I(4)});
  // Output size + 1 + 10.
  EXPECT_EQ(CallWithCost("list_slice", {ints, I(1), I(3)}).cost, 13u);
  EXPECT_EQ(CallWithCost("lists_range", {I(4)}).cost, 15u);
  EXPECT_EQ(CallWithCost("list_reverse", {ints}).cost, 15u);
  // depth * input size + 11.
  EXPECT_EQ(CallWithCost("list_flatten_int", {L({L({I(1)})}), I(3)}).cost, 14u);
  // size^2 * 2 (+0.1 for strings) + 11.
  EXPECT_EQ(CallWithCost("list_int_sort", {ints}).cost, 43u);
  EXPECT_EQ(CallWithCost("list_string_sort", {Strs({"b", "a"})}).cost, 19u);
  EXPECT_EQ(CallWithCost("list_distinct", {ints}).cost, 43u);
  EXPECT_EQ(CallWithCost("list_int_sortByAssociatedKeys",
                         {Strs({"a", "b"}), L({I(2), I(1)})})
                .cost,
            19u);
}

TEST(ExtLibLists, RangeRespectsTheCostBudget) {
  const Overload& range = ById("lists_range");
  EvalContext ctx(1000);
  CallContext call{&ctx, nullptr};
  std::vector<Value> n = {I(1'000'000'000'000)};
  Value result = range.impl(call, n);
  ASSERT_TRUE(result.IsError());
}

}  // namespace
}  // namespace dralloc::cel
