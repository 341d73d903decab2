// Tests of the extension libraries: strings, lists, sets, optionals, regex
// and encoders. Direct calls of the registered overloads (by overload id) and
// whole expressions through Compile(). Expected values come from the
// cel-spec conformance section string_ext, cel-go's and Kubernetes' library
// documentation and Kubernetes' cost_test.go.
//
// Whole expressions through Compile(); per-library direct calls are in
// <library>_test.cc beside each library.
#include <gtest/gtest.h>

#include "cel/lib/extension_libraries_test_util.h"

namespace dralloc::cel {
namespace {

using namespace ext_lib_test;  // NOLINT: the shared test helpers

// cel-spec conformance, section string_ext (the two cases cel-go skips,
// indexOf/lastIndexOf with an offset past the end, expect -1 as cel-go).
TEST(ExtLibExpr, StringExt) {
  RunExprCases({
      {"'tacocat'.charAt(3)", "'o'"},
      {"'tacocat'.charAt(7)", "''"},
      {"'©αT'.charAt(0) == '©' && '©αT'.charAt(1) == 'α' && "
       "'©αT'.charAt(2) == 'T'"},
      {"'tacocat'.indexOf('')", "0"},
      {"'tacocat'.indexOf('ac')", "1"},
      {"'tacocat'.indexOf('none') == -1"},
      {"'tacocat'.indexOf('', 3) == 3"},
      {"'tacocat'.indexOf('a', 3) == 5"},
      {"'ta©o©αT'.indexOf('©', 3) == 4"},
      {"'ta©o©αT'.indexOf('©αT', 3) == 4"},
      {"'ta©o©αT'.indexOf('©α', 5) == -1"},
      {"'hello wello'.indexOf('ello', 6) == 7"},
      {"''.lastIndexOf('@@') == -1"},
      {"'tacocat'.lastIndexOf('') == 7"},
      {"'tacocat'.lastIndexOf('a', 3) == 1"},
      {"'ta©o©αT'.lastIndexOf('©', 3) == 2"},
      {"'ta©o©αT'.lastIndexOf('©α', 4) == 4"},
      {"'bananananana'.lastIndexOf('nana', 7) == 6"},
      {"'TacoCÆt Xii'.lowerAscii() == 'tacocÆt xii'"},
      {"'tacoCαt'.upperAscii() == 'TACOCαT'"},
      {"'{0} days {0} hours'.replace('{0}', '2', 1).replace('{0}', '23') == "
       "'2 days 23 hours'"},
      {"'1 ©αT taco'.replace('αT', 'o©α') == '1 ©o©α taco'"},
      {"'hello world'.split(' ') == ['hello', 'world']"},
      {"'hello world events!'.split(' ', 0) == []"},
      {"'hello world events!'.split(' ', 1) == ['hello world events!']"},
      {"'o©o©o©o'.split('©', -1) == ['o', 'o', 'o', 'o']"},
      {"'tacocat'.substring(4) == 'cat'"},
      {"'tacocat'.substring(7) == ''"},
      {"'ta©o©αT'.substring(2, 6) == '©o©α'"},
      {"' \\f\\n\\r\\t\\vtext  '.trim() == 'text'"},
      {"'\\u0085\\u00a0\\u1680text'.trim() == 'text'"},
      {"'\\u180etext\\u200b'.trim() == '\\u180etext\\u200b'"},
      {"['x', 'y'].join() == 'xy'"},
      {"['x', 'y'].join('-') == 'x-y'"},
      {"[].join() == ''"},
      {"strings.quote(\"first\\nsecond\") == \"\\\"first\\\\nsecond\\\"\""},
      {"strings.quote('verbatim') == '\"verbatim\"'"},
      {"strings.quote('')", "'\"\"'"},
      {"'tacocat'.indexOf('a', 30) == -1"},
      {"'tacocat'.lastIndexOf('a', 30) == -1"},
      {"'tacocat'.charAt(30) == ''", "error:index out of range: 30"},
      {"'tacocat'.lastIndexOf('a', -1) == -1", "error:index out of range: -1"},
      {"'tacocat'.substring(40) == 'cat'", "error:index out of range: 40"},
      {"'tacocat'.substring(4, 3) == ''",
       "error:invalid substring range. start: 4, end: 3"},
      {"42.charAt(2) == ''", "error:", false},
      {"'hello'.charAt(true) == ''", "error:", false},
      {"'42'.indexOf('4', '0') == 0", "error:", false},
      {"'42'.replace('2', 1) == '41'", "error:", false},
      {"'42'.split(2, 1) == ['4']", "error:", false},
      {"'tacocat'.substring(0, false) == ''", "error:", false},
  });
}

TEST(ExtLibExpr, Format) {
  RunExprCases({
      {"'%d %d %d, %s %s %s'.format([1, 2, 3, 'A', 'B', 'C'])",
       "'1 2 3, A B C'"},
      {"'%%%s%%'.format(['text'])", "'%text%'"},
      {"'%.3f'.format([1.2345])", "'1.234'"},
      {"'unsigned 64 in binary: %b'.format([uint(64)])",
       "'unsigned 64 in binary: 1000000'"},
      {"'%x'.format([b'byte string'])", "'6279746520737472696e67'"},
      {"'%e'.format([double(\"-Infinity\")])", "'-Infinity'"},
      {"'%s'.format([type('test string')])", "'string'"},
      {"'%s'.format([timestamp('2023-02-03T23:31:20+00:00')])",
       "'2023-02-03T23:31:20Z'"},
      {"'%s'.format([duration('1h45m47s')])", "'6347s'"},
      {"'%s'.format([['abc', 3.14, null, [9, 8, 7, 6], "
       "timestamp('2023-02-03T23:31:20Z')]])",
       "'[abc, 3.14, null, [9, 8, 7, 6], 2023-02-03T23:31:20Z]'"},
      {"'%s'.format([{'key1': b'xyz', 'key5': null, 'key2': duration('2h'), "
       "'key4': true, 'key3': 2.71828}])",
       "'{key1: xyz, key2: 7200s, key3: 2.71828, key4: true, key5: null}'"},
      {"'%s'.format([{1: 'value1', uint(2): 'value2', true: double('NaN')}])",
       "'{1: value1, 2: value2, true: NaN}'"},
      {"'%s, %s'.format([dyn(32), dyn(56.8)])", "'32, 56.8'"},
      {"'%.0f'.format([2.5])", "'2'"},
      {"'%a'.format([1])", "error:unrecognized formatting clause", false},
      {"'%d %d %d'.format([0, 1])", "error:index 2 out of range", false},
      {"'%d'.format([duration('30m2s')])", "error:decimal clause", false},
      {"'null: %x'.format([null])", "error:hex", false},
  });
}

TEST(ExtLibExpr, ListsSetsRegexEncoders) {
  RunExprCases({
      {"[1, 2, 3].isSorted()"},
      {"![3, 1].isSorted()"},
      {"[1, 2, 3].sum() == 6"},
      {"[1.5, 2.5].sum() == 4.0"},
      {"[duration('1s'), duration('2s')].sum() == duration('3s')"},
      {"[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3"},
      {"['b', 'a'].min() == 'a'"},
      {"[].min()", "error:min called on empty list", false},
      {"[1, 2, 3, 2].indexOf(2) == 1 && [1, 2, 3, 2].lastIndexOf(2) == 3"},
      {"[1, 2].indexOf(5) == -1"},
      {"[1, 2, 3].includes(2) && !'model-a'.includes('model-b')"},
      {"lists.range(4) == [0, 1, 2, 3]"},
      {"[1, 2, 3, 4].slice(1, 3) == [2, 3]"},
      {"[[1], [2, 3]].flatten() == [1, 2, 3]"},
      {"[1, [2, [3, [4]]]].flatten(2) == [1, 2, 3, [4]]"},
      {"[1, 1, 2, 3, 3].distinct() == [1, 2, 3]"},
      {"[1, 2, 3].reverse() == [3, 2, 1]"},
      {"['c', 'a', 'b'].sort() == ['a', 'b', 'c']"},
      {"[1, 2, 3].first() == optional.of(1)"},
      {"[].last() == optional.none()"},
      {"optional.unwrap([optional.of(1), optional.none()]) == [1]"},
      {"[optional.of(1), optional.none()].unwrapOpt() == [1]"},
      {"sets.contains([1, 2, 3, 4], [2, 3])"},
      {"sets.equivalent([1, 2, 3], [3u, 2.0, 1])"},
      {"sets.intersects([1], [1.0, 2])"},
      {"!sets.intersects([1], [1.1, 2u])"},
      {"'abc 123 def 456'.find('[0-9]+') == '123'"},
      {"'abc'.find('[0-9]+') == ''"},
      {"'abc 123 def 456'.findAll('[0-9]+') == ['123', '456']"},
      {"'abc 123 def 456'.findAll('[0-9]+', 1) == ['123']"},
      {"base64.encode(b'hello') == 'aGVsbG8='"},
      {"base64.decode('aGVsbG8') == b'hello'"},
      {"base64.decode(base64.encode(b'Hello World!'))", "b'Hello World!'"},
  });
}

TEST(ExtLibExpr, SortByMacro) {
  RunExprCases({
      {"[3, 1, 2].sortBy(x, -x) == [3, 2, 1]"},
      {"['bb', 'a', 'ccc'].sortBy(s, s.size()) == ['a', 'bb', 'ccc']"},
  });
}

TEST(ExtLibExpr, Optionals) {
  RunExprCases({
      {"optional.of(null).hasValue()"},
      {"!optional.ofNonZeroValue(null).hasValue()"},
      {"optional.none().or(optional.none()).orValue(42) == 42"},
      {"!optional.none().optMap(y, y + 1).hasValue()"},
      {"!{}.?key.optFlatMap(k, k.?subkey).hasValue()"},
      {"{'null_key': dyn(null)}.?null_key.hasValue()"},
      {"!{true: dyn(0)}[?false].absent.hasValue()"},
      {"{'key': {'subkey': 'subvalue'}}.?key.optFlatMap(k, k.?subkey).value()",
       "'subvalue'"},
      {"optional.of(42).optMap(y, y + 1).value() == 43"},
      {"optional.ofNonZeroValue(42).or(optional.of(20)).value() == 42"},
      {"{'c': {'dashed-index': 'goodbye'}}.c[?'dashed-index']"
       ".orValue('default value')",
       "'goodbye'"},
      {"{'c': {}}.c[?'missing-index'].orValue('default value')",
       "'default value'"},
      {"optional.of({'c': {}}).c.missing.or(optional.of(['list-value'])[0])"
       ".orValue('default value')",
       "'list-value'"},
      {"optional.of({'c': {}}).c['missing'].orValue('default value')",
       "'default value'"},
      {"[?{}.?c, ?optional.of(42), ?optional.none()] == [42]"},
      {"!optional.of([])[?0].hasValue()"},
      {"['foo'][?0].value() == 'foo'"},
      {"{1u: 1.0, 2: 2.0, 3u: 3.0}[?3.0].value() == 3.0"},
      {"optional.none().value()", "error:optional.none() dereference"},
      {"optional.of(1).orValue(1 / 0) == 1"},
  });
}

// Kubernetes cost_test.go: estimated and runtime costs of whole expressions.
TEST(ExtLibExpr, KubernetesCosts) {
  struct CostCase {
    std::string expr;
    uint64_t estimate_min, estimate_max, runtime;
  };
  const CostCase cases[] = {
      {"[1, 2, 3, 4, 5].sum()", 15, 15, 15},
      {"[1.0, 2.0, 3.0, 4.0, 5.0].max()", 15, 15, 15},
      {"[1, 2, 3, 4, 5].indexOf(3)", 15, 15, 15},
      {"'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3, 3, 3},
      {"strings.quote('ABCDEFGHIJ abcdefghij')", 3, 3, 3},
      {"'abc 123 def 123'.replace('123', '456')", 3, 3, 3},
      {"'abc 123 def 123'.split(' ')", 3, 3, 3},
      {"'abc 123 def 123'.substring(5, 8)", 2, 2, 2},
      {"'  abc 123 def 123  '.trim()", 2, 2, 2},
      {"'abc 123 def 123'.find('123')", 2, 2, 2},
      {"'abc 123 def 123'.findAll('123', 1)", 2, 2, 2},
      {"'01234567890123456789012345678901234567890123456789'.indexOf('123')", 5,
       5, 5},
      {"sets.contains([1, 2, 3, 4], [2, 3])", 29, 29, 29},
      {"sets.equivalent([1, 2, 3], [3u, 2.0, 1])", 39, 39, 39},
      {"sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])", 65, 65, 65},
  };
  for (const CostCase& c : cases) {
    Evaluated got = Evaluate(c.expr);
    ASSERT_TRUE(got.compile.ok()) << c.expr << ": " << got.compile;
    EXPECT_FALSE(got.value.IsError())
        << c.expr << ": " << got.value.DebugString();
    EXPECT_EQ(got.cost, c.runtime) << c.expr;
    EXPECT_EQ(got.estimate.min, c.estimate_min) << c.expr;
    EXPECT_EQ(got.estimate.max, c.estimate_max) << c.expr;
  }
  // join's runtime cost: the literal (10) plus ceil(22 * 0.2).
  Evaluated join = Evaluate(
      "['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')");
  EXPECT_EQ(join.cost, 15u);
}

TEST(ExtLibExpr, InvalidConstantRegexIsACompileError) {
  Evaluated got = Evaluate("'abc'.find('(')");
  EXPECT_FALSE(got.compile.ok());
  got = Evaluate("'abc'.findAll('[', 1)");
  EXPECT_FALSE(got.compile.ok());
}

}  // namespace
}  // namespace dralloc::cel
