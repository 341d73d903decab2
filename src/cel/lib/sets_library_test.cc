// Tests of the sets library (cel-go ext.Sets).
#include <gtest/gtest.h>

#include "cel/lib/extension_libraries_test_util.h"

namespace dralloc::cel {
namespace {

using namespace ext_lib_test;  // NOLINT: the shared test helpers

// ---- sets ----

TEST(ExtLibSets, Functions) {
  RunCases({
      {"list_sets_contains_list", {L({}), L({})}, Value::Bool(true)},
      {"list_sets_contains_list", {L({I(1)}), L({})}, Value::Bool(true)},
      {"list_sets_contains_list",
       {L({I(1)}), L({I(1), I(1)})},
       Value::Bool(true)},
      {"list_sets_contains_list",
       {L({I(1), I(2), I(3), I(4)}), L({I(2), I(3)})},
       Value::Bool(true)},
      {"list_sets_contains_list",
       {L({I(1)}), L({D(1.0), I(1)})},
       Value::Bool(true)},
      {"list_sets_contains_list",
       {L({L({I(1)}), L({I(2), I(3)})}), L({L({I(2), D(3.0)})})},
       Value::Bool(true)},
      {"list_sets_contains_list",
       {L({I(1)}), L({I(1), I(2)})},
       Value::Bool(false)},
      {"list_sets_contains_list",
       {L({I(1)}), L({S("1"), I(1)})},
       Value::Bool(false)},
      {"list_sets_equivalent_list", {L({}), L({})}, Value::Bool(true)},
      {"list_sets_equivalent_list",
       {L({I(1), I(2), I(3)}), L({U(3), D(2.0), I(1)})},
       Value::Bool(true)},
      {"list_sets_equivalent_list",
       {L({I(2), I(1)}), L({I(1)})},
       Value::Bool(false)},
      {"list_sets_equivalent_list",
       {L({I(1), I(2)}), L({U(1), I(2), D(2.3)})},
       Value::Bool(false)},
      {"list_sets_intersects_list",
       {L({I(1)}), L({D(1.0), I(2)})},
       Value::Bool(true)},
      {"list_sets_intersects_list", {L({}), L({})}, Value::Bool(false)},
      {"list_sets_intersects_list",
       {L({I(1)}), L({D(1.1), U(2)})},
       Value::Bool(false)},
  });
}

TEST(ExtLibSets, Costs) {
  // Kubernetes cost_test.go minus the list literals (10 each).
  EXPECT_EQ(CallWithCost("list_sets_contains_list",
                         {L({I(1), I(2), I(3), I(4)}), L({I(2), I(3)})})
                .cost,
            9u);
  EXPECT_EQ(CallWithCost("list_sets_equivalent_list",
                         {L({I(1), I(2), I(3)}), L({U(3), D(2.0), I(1)})})
                .cost,
            19u);
  EXPECT_EQ(CallWithCost("list_sets_intersects_list", {L({}), L({})}).cost, 1u);
  std::vector<SizeEstimate> sizes = {{2, 2}, {3, 3}};
  EXPECT_EQ(ById("list_sets_equivalent_list").estimate_cost(sizes).max, 13u);
}

}  // namespace
}  // namespace dralloc::cel
