// Tests of the standard library's runtime and estimated costs, its overload
// ids, and whole expressions through Compile().
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "cel/lib/standard_library_test_util.h"

namespace dralloc::cel {
namespace {

using namespace std_lib_test;  // NOLINT: the shared test helpers

// ---- costs ----

TEST(StandardLibraryTest, RuntimeCosts) {
  std::string s63(63, 'a');
  std::string s15(15, 'b');
  // Equality and ordering: ceil(min(size) * 0.1); empty strings cost 0.
  EXPECT_EQ(RuntimeCost("_==_", {S(s63), S(s15)}), 2u);
  EXPECT_EQ(RuntimeCost("_==_", {S(s63), S("")}), 0u);
  EXPECT_EQ(RuntimeCost("_!=_", {I(1), I(2)}), 1u);
  EXPECT_EQ(RuntimeCost("_==_", {List({I(1), I(2)}), List({})}), 0u);
  EXPECT_EQ(RuntimeCost("_<_", {S(s63), S(s63)}), 7u);
  EXPECT_EQ(RuntimeCost("_<_", {I(1), I(2)}), 1u);
  EXPECT_EQ(RuntimeCost("_>=_", {B(s15), B(s63)}), 2u);
  // Code points, not bytes.
  EXPECT_EQ(RuntimeCost("_==_", {S("ÿÿÿÿÿÿÿÿÿÿÿ"), S("ÿÿÿÿÿÿÿÿÿÿÿ")}), 2u);
  // Concatenation.
  EXPECT_EQ(RuntimeCost("_+_", {S(s63), S(s15)}), 8u);
  EXPECT_EQ(RuntimeCost("_+_", {B(""), B("")}), 0u);
  EXPECT_EQ(RuntimeCost("_+_", {List({I(1)}), List({I(2)})}), 1u);
  EXPECT_EQ(RuntimeCost("_+_", {I(1), I(2)}), 1u);
  // String functions.
  EXPECT_EQ(RuntimeCost("startsWith", {S(s63), S("a")}, true), 7u);
  EXPECT_EQ(RuntimeCost("endsWith", {S(""), S("a")}, true), 0u);
  EXPECT_EQ(RuntimeCost("contains", {S(s63), S(s15)}, true), 14u);
  EXPECT_EQ(RuntimeCost("matches", {S(s63), S("^[a-z]+$")}, true), 14u);
  EXPECT_EQ(RuntimeCost("matches", {S(""), S("a")}, true), 1u);
  EXPECT_EQ(RuntimeCost("matches", {S(s63), S("^[a-z]+$")}), 1u);
  // Containers.
  EXPECT_EQ(RuntimeCost("@in", {I(3), List({I(1), I(2), I(3), I(4)})}), 4u);
  EXPECT_EQ(RuntimeCost("@in", {I(3), List({})}), 0u);
  EXPECT_EQ(RuntimeCost("@in", {S("k"), Map({{S("k"), I(1)}})}), 1u);
  EXPECT_EQ(RuntimeCost("_[_]", {List({I(1)}), I(0)}), 1u);
  EXPECT_EQ(RuntimeCost("size", {S(s63)}), 1u);
  // Conversions.
  EXPECT_EQ(RuntimeCost("bytes", {S(s63)}), 7u);
  EXPECT_EQ(RuntimeCost("string", {B(s15)}), 2u);
  EXPECT_EQ(RuntimeCost("string", {I(15)}), 1u);
  EXPECT_EQ(RuntimeCost("int", {S("15")}), 1u);
}

CostEstimate Estimate(std::string_view function, bool member,
                      std::string_view id, std::vector<SizeEstimate> sizes) {
  const Overload* o = ById(function, member, id);
  EXPECT_NE(o, nullptr) << id;
  if (o == nullptr || o->estimate_cost == nullptr) return {1, 1};
  return o->estimate_cost(sizes);
}

TEST(StandardLibraryTest, EstimatedCosts) {
  auto expect = [](CostEstimate got, uint64_t min, uint64_t max,
                   std::string_view what) {
    EXPECT_EQ(got.min, min) << what;
    EXPECT_EQ(got.max, max) << what;
  };
  const SizeEstimate scalar{1, 1};
  const SizeEstimate str63{0, 63};
  const SizeEstimate lit15{15, 15};
  const SizeEstimate unknown{};
  // cel.md §4.4: device.driver == "dra.example.com" → 2 for the `==`.
  expect(Estimate("_==_", false, "equals", {str63, lit15}), 1, 2, "== 63/15");
  expect(Estimate("_==_", false, "equals", {str63, {0, 0}}), 0, 0, "== ''");
  expect(Estimate("_==_", false, "equals", {scalar, scalar}), 1, 1, "== 1");
  expect(Estimate("_<_", false, "less_string", {str63, str63}), 1, 7, "<");
  expect(Estimate("_<_", false, "less_int64", {scalar, scalar}), 1, 1, "<i");
  expect(Estimate("_+_", false, "add_string", {str63, lit15}), 2, 8, "+");
  expect(Estimate("_+_", false, "add_list", {unknown, unknown}), 1, 1,
         "list +");
  // startsWith/endsWith: the argument's size (cel-go estimator).
  expect(Estimate("startsWith", true, "starts_with_string", {str63, lit15}), 2,
         2, "startsWith");
  expect(Estimate("contains", true, "contains_string", {str63, lit15}), 0, 14,
         "contains");
  expect(Estimate("matches", true, "matches_string", {str63, {8, 8}}), 2, 14,
         "matches");
  expect(Estimate("matches", false, "matches", {str63, {8, 8}}), 1, 1,
         "global matches");
  expect(Estimate("@in", false, "in_list", {scalar, {0, 64}}), 0, 64, "in");
  expect(Estimate("@in", false, "in_map", {scalar, {0, 64}}), 1, 1, "in map");
  expect(Estimate("bytes", false, "string_to_bytes", {str63}), 0, 7, "bytes");
  // Unknown sizes stay huge rather than wrapping around.
  CostEstimate huge = Estimate("_==_", false, "equals", {unknown, unknown});
  EXPECT_GT(huge.max, uint64_t{1} << 60);

  const Overload* add = ById("_+_", false, "add_string");
  ASSERT_NE(add->estimate_size, nullptr);
  std::vector<SizeEstimate> sizes = {str63, lit15};
  SizeEstimate sum = add->estimate_size(sizes);
  EXPECT_EQ(sum.min, 15u);
  EXPECT_EQ(sum.max, 78u);
  sizes = {unknown, lit15};
  EXPECT_EQ(add->estimate_size(sizes).max, kUnboundedSize);
  const Overload* to_bytes = ById("bytes", false, "string_to_bytes");
  sizes = {str63};
  EXPECT_EQ(to_bytes->estimate_size(sizes).max, 252u);
}

TEST(StandardLibraryTest, OverloadIdsAreUnique) {
  std::set<std::string> ids;
  for (std::string_view fn : {"_+_",          "_-_",
                              "_*_",          "_/_",
                              "_%_",          "-_",
                              "!_",           "_==_",
                              "_!=_",         "_<_",
                              "_<=_",         "_>_",
                              "_>=_",         "_[_]",
                              "@in",          "size",
                              "contains",     "startsWith",
                              "endsWith",     "matches",
                              "int",          "uint",
                              "double",       "string",
                              "bytes",        "bool",
                              "dyn",          "type",
                              "timestamp",    "duration",
                              "getFullYear",  "getMonth",
                              "getDate",      "getDayOfMonth",
                              "getDayOfWeek", "getDayOfYear",
                              "getHours",     "getMinutes",
                              "getSeconds",   "getMilliseconds"}) {
    for (bool member : {false, true}) {
      for (const Overload* o : Registry().Find(fn, member)) {
        EXPECT_TRUE(ids.insert(o->id).second) << o->id;
      }
    }
  }
  EXPECT_GT(ids.size(), 150u);
}

TEST(StandardLibraryExprTest, Arithmetic) {
  RunExprCases({
      {"40 + 2", I(42)},
      {"-42 % -5", I(-2)},
      {"43 % -5", I(3)},
      {"5 * (15 + 25) == 5 * 15 + 5 * 25", Bool(true)},
      {"9223372036854775807 + 1", {}, "integer overflow"},
      {"-(-9223372036854775808)", {}, "integer overflow"},
      {"(-9223372036854775808) * -1", {}, "integer overflow"},
      {"(-9223372036854775808) / -1", {}, "integer overflow"},
      {"5000000000 * 5000000000", {}, "integer overflow"},
      {"18446744073709551615u + 1u", {}, "overflow"},
      {"0u - 1u", {}, "overflow"},
      {"15 / 0", {}, "division by zero"},
      {"34 % 0", {}, "modulus by zero"},
      {"15.75 / 0.0", D(INFINITY)},
      {"'he' + 'llo'", S("hello")},
      {"b'abc' + b'def'", B("abcdef")},
      {"[0, 1, 2] + [3, 4, 5] == [0, 1, 2, 3, 4, 5]", Bool(true)},
      {"!true", Bool(false)},
  });
}

TEST(StandardLibraryExprTest, ComparisonsAndEquality) {
  RunExprCases({
      {"dyn(1) == 1u", Bool(true)},
      {"dyn(1) == 1.0", Bool(true)},
      {"[1.0, 2.0, 3] == [1u, 2, 3u]", Bool(true)},
      {"{1: 1.0, 2u: 3u} == {1u: 1, 2: 3.0}", Bool(true)},
      {"dyn(false) == null", Bool(false)},
      {"null == null", Bool(true)},
      {"dyn(1) < 9223372036854775808u", Bool(true)},
      {"dyn(-1) < 0u", Bool(true)},
      {"dyn(9223372036854775807) < 9223372036854775808.0", Bool(false)},
      {"dyn(9223372036854775807) < 9223372036854777857.0", Bool(true)},
      {"1 < 1.5", Bool(true)},
      {"2u >= 1", Bool(true)},
      {"'a' < 'b'", Bool(true)},
      {"b'a' < b'b'", Bool(true)},
      {"false < true", Bool(true)},
      {"type(1) == int", Bool(true)},
  });
}

// cel-spec conversions/type/eq_diff and meta: cel-go's checker lets any
// type(T) meet any type(U) (checker/types.go: a TypeKind is assignable to any
// TypeKind), so these type-check and compare at runtime.
TEST(StandardLibraryExprTest, TypeValuesOfDifferentTypesCompare) {
  RunExprCases({
      {"type(7) == type(7u)", Bool(false)},
      {"type(type(7)) == type(type(7u))", Bool(true)},
      {"type(0.0) != type(0)", Bool(true)},
  });
}

TEST(StandardLibraryExprTest, Containers) {
  RunExprCases({
      {"[7, 8, 9][0]", I(7)},
      {"[7, 8, 9][dyn(0u)]", I(7)},
      {"[7, 8, 9][dyn(0.0)]", I(7)},
      {"[7, 8, 9][dyn(0.1)]", {}, "unsupported index value"},
      {"[1, 2, 3][3]", {}, "out of range"},
      {"{1u: 1.0, 2: 2.0, 3u: 3.0}[3.0]", D(3.0)},
      {"{1u: 1.0, 2: 2.0, 3u: 3.0}[1]", D(1.0)},
      {"{1u: 1.0, 2: 2.0, 3u: 3.0}[3.1]", {}, "no such key"},
      {"{'a': 1}['noSuchAttr']", {}, "no such key: noSuchAttr"},
      {"dyn(3.0) in [5, 4, 3, 2, 1]", Bool(true)},
      {"3.0 in {1: 1, 2: 2, 3u: 3} && 2u in {1u: 1, 2: 2}", Bool(true)},
      {"'spider' in {'ant': 6}", Bool(false)},
      {"size('πέντε')", I(5)},
      {"'four'.size()", I(4)},
      {"size([1, 2, 3])", I(3)},
      {"size({})", I(0)},
  });
}

TEST(StandardLibraryExprTest, StringsAndConversions) {
  RunExprCases({
      {"'foobar'.startsWith('foo')", Bool(true)},
      {"'forté'.endsWith('té')", Bool(true)},
      {"'Straße'.contains('aß')", Bool(true)},
      {"'hubba'.matches('ubb')", Bool(true)},
      {"matches('grey', 'gr(a|e)y')", Bool(true)},
      {"'abc'.matches(dyn('('))", {}, "error parsing regexp"},
      {"'abc'.matches('(')", {}, "invalid matches argument"},
      {"int(-123.456)", I(-123)},
      {"int(9223372036854775807.0)", {}, "overflow"},
      {"int('987')", I(987)},
      {"uint(-1)", {}, "overflow"},
      {"double(9223372036854775807)", D(9223372036854775808.0)},
      {"string(-4.5e-3)", S("-0.0045")},
      {"string(123.456)", S("123.456")},
      {"string(1.0)", S("1")},
      {"string(b'\\000\\xff')", {}, "invalid UTF-8"},
      {"bool('TrUe')", {}, "type conversion error"},
      {"bool('True')", Bool(true)},
      {"type(dyn([1, 'one'])) == list", Bool(true)},
  });
}

}  // namespace
}  // namespace dralloc::cel
