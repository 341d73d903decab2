// Tests of macro expansion (has, all, exists, exists_one, map, filter, the
// two-variable and extension macros) through Parse().
#include <gtest/gtest.h>

#include "cel/syntax/parser_test_util.h"

namespace dralloc::cel {
namespace {

using namespace parser_test;  // NOLINT: the shared test helpers

TEST(ParserTest, Macros) {
  RunCases({
      {"has(a.b)", "a.b~test-only"},
      {"has(a.b.c)", "a.b.c~test-only"},
      {"has(a[0].b)", "_[_](a, 0).b~test-only"},
      {"has(a.b) && has(c.d)", "_&&_(a.b~test-only, c.d~test-only)"},
      {"x.has(a.b)", "x.has(a.b)"},
      {"has(a.b, c)", "has(a.b, c)"},
      {"[1].all(x, x > 0)",
       "__comprehension__(x, [1], @result, true, "
       "@not_strictly_false(@result), _&&_(@result, _>_(x, 0)), @result)"},
      {"m.all(k, v, k < v)",
       "__comprehension__(k, v, m, @result, true, "
       "@not_strictly_false(@result), _&&_(@result, _<_(k, v)), @result)"},
      {"l.exists(x, x == 1)",
       "__comprehension__(x, l, @result, false, "
       "@not_strictly_false(!_(@result)), _||_(@result, _==_(x, 1)), "
       "@result)"},
      {"l.exists(i, v, i == v)",
       "__comprehension__(i, v, l, @result, false, "
       "@not_strictly_false(!_(@result)), _||_(@result, _==_(i, v)), "
       "@result)"},
      {"l.exists_one(x, x)",
       "__comprehension__(x, l, @result, 0, true, "
       "_?_:_(x, _+_(@result, 1), @result), _==_(@result, 1))"},
      {"l.existsOne(x, x)",
       "__comprehension__(x, l, @result, 0, true, "
       "_?_:_(x, _+_(@result, 1), @result), _==_(@result, 1))"},
      {"l.existsOne(i, v, v)",
       "__comprehension__(i, v, l, @result, 0, true, "
       "_?_:_(v, _+_(@result, 1), @result), _==_(@result, 1))"},
      {"l.exists_one(i, v, v)",
       "__comprehension__(i, v, l, @result, 0, true, "
       "_?_:_(v, _+_(@result, 1), @result), _==_(@result, 1))"},
      {"l.map(x, x * 2)",
       "__comprehension__(x, l, @result, [], true, "
       "_+_(@result, [_*_(x, 2)]), @result)"},
      {"l.map(x, x > 0, x * 2)",
       "__comprehension__(x, l, @result, [], true, "
       "_?_:_(_>_(x, 0), _+_(@result, [_*_(x, 2)]), @result), @result)"},
      {"l.filter(x, x > 0)",
       "__comprehension__(x, l, @result, [], true, "
       "_?_:_(_>_(x, 0), _+_(@result, [x]), @result), @result)"},
      {"l.transformList(i, v, i + v)",
       "__comprehension__(i, v, l, @result, [], true, "
       "_+_(@result, [_+_(i, v)]), @result)"},
      {"l.transformList(i, v, i > 0, v)",
       "__comprehension__(i, v, l, @result, [], true, "
       "_?_:_(_>_(i, 0), _+_(@result, [v]), @result), @result)"},
      {"m.transformMap(k, v, v + 1)",
       "__comprehension__(k, v, m, @result, {}, true, "
       "cel.@mapInsert(@result, k, _+_(v, 1)), @result)"},
      {"m.transformMap(k, v, v > 0, v + 1)",
       "__comprehension__(k, v, m, @result, {}, true, "
       "_?_:_(_>_(v, 0), cel.@mapInsert(@result, k, _+_(v, 1)), @result), "
       "@result)"},
      {"m.transformMapEntry(k, v, {v: k})",
       "__comprehension__(k, v, m, @result, {}, true, "
       "cel.@mapInsert(@result, {v: k}), @result)"},
      {"m.transformMapEntry(k, v, v != k, {v: k})",
       "__comprehension__(k, v, m, @result, {}, true, "
       "_?_:_(_!=_(v, k), cel.@mapInsert(@result, {v: k}), @result), "
       "@result)"},
      {"cel.bind(x, 1, x + x)",
       "__comprehension__(#unused, [], x, 1, false, x, _+_(x, x))"},
      {"cel.bind(a, 1, cel.bind(b, a, a + b))",
       "__comprehension__(#unused, [], a, 1, false, a, "
       "__comprehension__(#unused, [], b, a, false, b, _+_(a, b)))"},
      {"x.bind(a, 1, a)", "x.bind(a, 1, a)"},
      {".cel.bind(a, 1, a)", ".cel.bind(a, 1, a)"},
      {"cel.bind(a, 1)", "cel.bind(a, 1)"},
      {"o.optMap(v, v + 1)",
       "_?_:_(o.hasValue(), optional.of(__comprehension__(#unused, [], v, "
       "o.value(), false, v, _+_(v, 1))), optional.none())"},
      {"a.b.optMap(v, v)",
       "_?_:_(a.b.hasValue(), optional.of(__comprehension__(#unused, [], v, "
       "a.b.value(), false, v, v)), optional.none())"},
      {"o.optFlatMap(v, optional.of(v))",
       "_?_:_(o.hasValue(), __comprehension__(#unused, [], v, o.value(), "
       "false, v, optional.of(v)), optional.none())"},
      {"l.sortBy(x, -x)",
       "__comprehension__(#unused, [], @__sortBy_input__, l, false, "
       "@__sortBy_input__, @__sortBy_input__.@sortByAssociatedKeys("
       "__comprehension__(x, @__sortBy_input__, @result, [], true, "
       "_+_(@result, [-_(x)]), @result)))"},
      // Not macros: wrong arity or global style.
      {"all(x, y)", "all(x, y)"},
      {"l.all(x)", "l.all(x)"},
      {"l.filter(i, v, p)", "l.filter(i, v, p)"},
      {"l.map(a, b, c, d)", "l.map(a, b, c, d)"},
      {"l.transformList(i, v)", "l.transformList(i, v)"},
      {"o.optMap(v)", "o.optMap(v)"},
      {"sets.contains(a, b)", "sets.contains(a, b)"},
      // Nested macros.
      {"l.all(x, x.exists(y, y))",
       "__comprehension__(x, l, @result, true, "
       "@not_strictly_false(@result), _&&_(@result, "
       "__comprehension__(y, x, @result, false, "
       "@not_strictly_false(!_(@result)), _||_(@result, y), @result)), "
       "@result)"},
  });
  ParseOptions no_macros;
  no_macros.enable_macros = false;
  RunCases(
      {
          {"has(a.b)", "has(a.b)"},
          {"has(a)", "has(a)"},
          {"l.all(x, x)", "l.all(x, x)"},
          {"cel.bind(x, 1, x)", "cel.bind(x, 1, x)"},
          {"l.map(x.y, 1)", "l.map(x.y, 1)"},
      },
      no_macros);
}

TEST(ParserTest, MacroErrors) {
  RunErrorCases({
      {"has(a)", "invalid argument to has() macro"},
      {"has(1)", "invalid argument to has() macro"},
      {"has(a[0])", "invalid argument to has() macro"},
      {"has(a.?b)", "invalid argument to has() macro"},
      {"has(has(a.b))", "invalid argument to has() macro"},
      {"l.all(x.y, true)", "argument must be a simple name"},
      {"l.all(1, true)", "argument must be a simple name"},
      {"l.all(.x, true)", "argument must be a simple name"},
      {"l.exists(i, v.w, true)", "argument must be a simple name"},
      {"l.exists_one(f(), true)", "argument must be a simple name"},
      {"l.map(x[0], x)", "argument must be a simple name"},
      {"l.filter('x', x)", "argument must be a simple name"},
      {"l.transformList(i, 2, i)", "argument must be a simple name"},
      {"m.transformMap(k, k, k)", "duplicate variable name: k"},
      {"l.all(i, i, true)", "duplicate variable name: i"},
      {"o.optMap(a.b, a)", "argument must be a simple name"},
      {"l.sortBy(x + 1, x)", "argument must be a simple name"},
      {"cel.bind(a.b, 1, a)",
       "cel.bind() variable names must be simple identifiers"},
  });
  StatusOr<ParsedExpr> parsed = Parse("has(a)");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "ERROR: <input>:1:5: invalid argument to has() macro\n"
            " | has(a)\n"
            " | ....^");
  parsed = Parse("[1].map(x, x).all(\n  y.z, y)");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "ERROR: <input>:2:4: argument must be a simple name\n"
            " |   y.z, y)\n"
            " | ...^");
}

}  // namespace
}  // namespace dralloc::cel
