// Tests of the strings extension library (cel-go ext.Strings): direct calls
// of the registered overloads by id.
#include <gtest/gtest.h>

#include "cel/lib/extension_libraries_test_util.h"

namespace dralloc::cel {
namespace {

using namespace ext_lib_test;  // NOLINT: the shared test helpers

// ---- strings ----

TEST(ExtLibStrings, CharAt) {
  RunCases({
      {"string_char_at_int", {S("tacocat"), I(3)}, S("o")},
      {"string_char_at_int", {S("tacocat"), I(7)}, S("")},
      {"string_char_at_int", {S("©αT"), I(0)}, S("©")},
      {"string_char_at_int", {S("©αT"), I(1)}, S("α")},
      {"string_char_at_int", {S("©αT"), I(2)}, S("T")},
      {"string_char_at_int",
       {S("tacocat"), I(30)},
       Err("index out of range: 30")},
      {"string_char_at_int",
       {S("tacocat"), I(-1)},
       Err("index out of range: -1")},
  });
}

TEST(ExtLibStrings, IndexOf) {
  RunCases({
      {"string_index_of_string", {S("tacocat"), S("")}, I(0)},
      {"string_index_of_string", {S("tacocat"), S("ac")}, I(1)},
      {"string_index_of_string", {S("tacocat"), S("none")}, I(-1)},
      {"string_index_of_string_int", {S("tacocat"), S(""), I(3)}, I(3)},
      {"string_index_of_string_int", {S("tacocat"), S("a"), I(3)}, I(5)},
      {"string_index_of_string_int", {S("tacocat"), S("at"), I(3)}, I(5)},
      {"string_index_of_string", {S("ta©o©αT"), S("©")}, I(2)},
      {"string_index_of_string_int", {S("ta©o©αT"), S("©"), I(3)}, I(4)},
      {"string_index_of_string_int", {S("ta©o©αT"), S("©αT"), I(3)}, I(4)},
      {"string_index_of_string_int", {S("ta©o©αT"), S("©α"), I(5)}, I(-1)},
      {"string_index_of_string", {S("ijk"), S("k")}, I(2)},
      {"string_index_of_string", {S("hello wello"), S("hello wello")}, I(0)},
      {"string_index_of_string_int", {S("hello wello"), S("ello"), I(6)}, I(7)},
      {"string_index_of_string", {S("hello wello"), S("elbo room!!")}, I(-1)},
      // Offsets past the end find nothing (cel-go since v0.22); the empty
      // string clamps to the end.
      {"string_index_of_string_int", {S("tacocat"), S("a"), I(30)}, I(-1)},
      {"string_index_of_string_int", {S("tacocat"), S(""), I(30)}, I(7)},
      {"string_index_of_string_int",
       {S("tacocat"), S("a"), I(-1)},
       Err("index out of range: -1")},
      {"string_index_of_string_int",
       {S("tacocat"), S(""), I(-1)},
       Err("index out of range: -1")},
  });
}

TEST(ExtLibStrings, LastIndexOf) {
  RunCases({
      {"string_last_index_of_string", {S(""), S("@@")}, I(-1)},
      {"string_last_index_of_string", {S("tacocat"), S("")}, I(7)},
      {"string_last_index_of_string", {S("tacocat"), S("at")}, I(5)},
      {"string_last_index_of_string", {S("tacocat"), S("none")}, I(-1)},
      {"string_last_index_of_string_int", {S("tacocat"), S(""), I(3)}, I(3)},
      {"string_last_index_of_string_int", {S("tacocat"), S("a"), I(3)}, I(1)},
      {"string_last_index_of_string", {S("ta©o©αT"), S("©")}, I(4)},
      {"string_last_index_of_string_int", {S("ta©o©αT"), S("©"), I(3)}, I(2)},
      {"string_last_index_of_string_int", {S("ta©o©αT"), S("©α"), I(4)}, I(4)},
      {"string_last_index_of_string_int",
       {S("hello wello"), S("ello"), I(6)},
       I(1)},
      {"string_last_index_of_string", {S("hello wello"), S("low")}, I(-1)},
      {"string_last_index_of_string",
       {S("hello wello"), S("hello wello")},
       I(0)},
      {"string_last_index_of_string_int",
       {S("bananananana"), S("nana"), I(7)},
       I(6)},
      {"string_last_index_of_string_int",
       {S("tacocat"), S("a"), I(-1)},
       Err("index out of range: -1")},
      {"string_last_index_of_string_int", {S("tacocat"), S("a"), I(30)}, I(-1)},
  });
}

TEST(ExtLibStrings, AsciiCasingTrimSubstring) {
  RunCases({
      {"string_lower_ascii", {S("TacoCat")}, S("tacocat")},
      {"string_lower_ascii", {S("TacoCÆt Xii")}, S("tacocÆt xii")},
      {"string_upper_ascii", {S("tacoCαt")}, S("TACOCαT")},
      {"string_upper_ascii", {S("TacoCÆt Xii")}, S("TACOCÆT XII")},
      {"string_trim", {S(" \f\n\r\t\vtext  ")}, S("text")},
      {"string_trim", {S("\u0085\u00a0\u1680text")}, S("text")},
      {"string_trim",
       {S("text\u2000\u2001\u2002\u2003\u2004\u2004\u2006\u2007\u2008\u2009")},
       S("text")},
      {"string_trim",
       {S("\u200atext\u2028\u2029\u202F\u205F\u3000")},
       S("text")},
      {"string_trim",
       {S("\u180etext\u200b\u200c\u200d\u2060\ufeff")},
       S("\u180etext\u200b\u200c\u200d\u2060\ufeff")},
      {"string_trim", {S("   ")}, S("")},
      {"string_substring_int", {S("tacocat"), I(4)}, S("cat")},
      {"string_substring_int", {S("tacocat"), I(7)}, S("")},
      {"string_substring_int_int", {S("tacocat"), I(0), I(4)}, S("taco")},
      {"string_substring_int_int", {S("tacocat"), I(4), I(4)}, S("")},
      {"string_substring_int_int", {S("ta©o©αT"), I(2), I(6)}, S("©o©α")},
      {"string_substring_int_int", {S("ta©o©αT"), I(7), I(7)}, S("")},
      {"string_substring_int",
       {S("tacocat"), I(40)},
       Err("index out of range: 40")},
      {"string_substring_int",
       {S("tacocat"), I(-1)},
       Err("index out of range: -1")},
      {"string_substring_int_int",
       {S("tacocat"), I(1), I(50)},
       Err("index out of range: 50")},
      {"string_substring_int_int",
       {S("tacocat"), I(49), I(50)},
       Err("index out of range: 49")},
      {"string_substring_int_int",
       {S("tacocat"), I(4), I(3)},
       Err("invalid substring range. start: 4, end: 3")},
  });
}

TEST(ExtLibStrings, ReplaceSplitJoin) {
  RunCases({
      {"string_replace_string_string",
       {S("12 days 12 hours"), S("{0}"), S("2")},
       S("12 days 12 hours")},
      {"string_replace_string_string",
       {S("{0} days {0} hours"), S("{0}"), S("2")},
       S("2 days 2 hours")},
      {"string_replace_string_string_int",
       {S("{0} days {0} hours"), S("{0}"), S("2"), I(1)},
       S("2 days {0} hours")},
      {"string_replace_string_string",
       {S("1 ©αT taco"), S("αT"), S("o©α")},
       S("1 ©o©α taco")},
      {"string_replace_string_string", {S("ab"), S(""), S("-")}, S("-a-b-")},
      {"string_replace_string_string_int",
       {S("ab"), S(""), S("-"), I(2)},
       S("-a-b")},
      {"string_replace_string_string_int",
       {S("aaa"), S("a"), S("b"), I(0)},
       S("aaa")},
      {"string_replace_string_string_int",
       {S("aaa"), S("a"), S("b"), I(-1)},
       S("bbb")},
      {"string_split_string",
       {S("hello world"), S(" ")},
       Strs({"hello", "world"})},
      {"string_split_string_int",
       {S("hello world events!"), S(" "), I(0)},
       Strs({})},
      {"string_split_string_int",
       {S("hello world events!"), S(" "), I(1)},
       Strs({"hello world events!"})},
      {"string_split_string_int",
       {S("hello world events!"), S(" "), I(2)},
       Strs({"hello", "world events!"})},
      {"string_split_string_int",
       {S("o©o©o©o"), S("©"), I(-1)},
       Strs({"o", "o", "o", "o"})},
      {"string_split_string", {S("a©b"), S("")}, Strs({"a", "©", "b"})},
      {"string_split_string_int", {S("a©b"), S(""), I(2)}, Strs({"a", "©b"})},
      {"string_split_string", {S(""), S(",")}, Strs({""})},
      {"string_split_string", {S(""), S("")}, Strs({})},
      {"list_join", {Strs({"x", "y"})}, S("xy")},
      {"list_join_string", {Strs({"x", "y"}), S("-")}, S("x-y")},
      {"list_join", {Strs({})}, S("")},
      {"list_join_string", {Strs({}), S("-")}, S("")},
      {"list_join_string",
       {L({S("x"), I(1)}), S("-")},
       Err("join: invalid input: 1")},
  });
}

TEST(ExtLibStrings, Quote) {
  RunCases({
      {"strings_quote", {S("first\nsecond")}, S("\"first\\nsecond\"")},
      {"strings_quote", {S("bell\a")}, S("\"bell\\a\"")},
      {"strings_quote", {S("\bbackspace")}, S("\"\\bbackspace\"")},
      {"strings_quote", {S("\fform feed")}, S("\"\\fform feed\"")},
      {"strings_quote",
       {S("carriage \r return")},
       S("\"carriage \\r return\"")},
      {"strings_quote", {S("horizontal tab\t")}, S("\"horizontal tab\\t\"")},
      {"strings_quote", {S("vertical \v tab")}, S("\"vertical \\v tab\"")},
      {"strings_quote",
       {S("double \\\\ slash")},
       S("\"double \\\\\\\\ slash\"")},
      {"strings_quote",
       {S("mid string \" quote")},
       S("\"mid string \\\" quote\"")},
      {"strings_quote", {S("printable unicode😀")}, S("\"printable unicode😀\"")},
      {"strings_quote", {S("завтра")}, S("\"завтра\"")},
      {"strings_quote", {S("")}, S("\"\"")},
      {"strings_quote", {S("bad \xff byte")}, S("\"bad \uFFFD byte\"")},
  });
}

TEST(ExtLibStrings, Format) {
  Value ts = Value::Timestamp(1675467080, 0);  // 2023-02-03T23:31:20Z
  RunCases({
      {"string_format", {S("no substitution"), L({})}, S("no substitution")},
      {"string_format",
       {S("str is %s and some more"), L({S("filler")})},
       S("str is filler and some more")},
      {"string_format", {S("%% and also %%"), L({})}, S("% and also %")},
      {"string_format", {S("%%%s%%"), L({S("text")})}, S("%text%")},
      {"string_format",
       {S("%d %d %d, %s %s %s"), L({I(1), I(2), I(3), S("A"), S("B"), S("C")})},
       S("1 2 3, A B C")},
      {"string_format", {S("%.3f"), L({D(1.2345)})}, S("1.234")},
      {"string_format",
       {S("this is 5 in binary: %b"), L({I(5)})},
       S("this is 5 in binary: 101")},
      {"string_format", {S("%b"), L({U(64)})}, S("1000000")},
      {"string_format", {S("%b"), L({Value::Bool(true)})}, S("1")},
      {"string_format", {S("%o"), L({I(11)})}, S("13")},
      {"string_format", {S("%o"), L({U(65535)})}, S("177777")},
      {"string_format",
       {S("%x is 20 in hexadecimal"), L({I(30)})},
       S("1e is 20 in hexadecimal")},
      {"string_format", {S("%X"), L({I(30)})}, S("1E")},
      {"string_format", {S("%X"), L({U(6000)})}, S("1770")},
      {"string_format", {S("%x"), L({I(-30)})}, S("-1e")},
      {"string_format", {S("%b"), L({I(-5)})}, S("-101")},
      {"string_format",
       {S("%x"), L({S("Hello world!")})},
       S("48656c6c6f20776f726c6421")},
      {"string_format",
       {S("%X"), L({B("byte string")})},
       S("6279746520737472696E67")},
      {"string_format", {S("%.6e"), L({D(1052.032911275)})}, S("1.052033e+03")},
      {"string_format", {S("%f"), L({D(2.71828)})}, S("2.718280")},
      {"string_format", {S("%e"), L({D(2.71828)})}, S("2.718280e+00")},
      {"string_format", {S("%e"), L({D(NAN)})}, S("NaN")},
      {"string_format", {S("%e"), L({D(INFINITY)})}, S("Infinity")},
      {"string_format", {S("%d"), L({D(-INFINITY)})}, S("-Infinity")},
      {"string_format", {S("%f"), L({D(NAN)})}, S("NaN")},
      {"string_format", {S("%d"), L({U(64)})}, S("64")},
      {"string_format", {S("%s"), L({Value::Null()})}, S("null")},
      {"string_format", {S("%s"), L({I(999999999999)})}, S("999999999999")},
      {"string_format", {S("%s"), L({B("xyz")})}, S("xyz")},
      {"string_format",
       {S("%s"), L({Value::TypeValue("string")})},
       S("string")},
      {"string_format", {S("%s"), L({ts})}, S("2023-02-03T23:31:20Z")},
      {"string_format",
       {S("%s"), L({Value::Timestamp(1, 500000000)})},
       S("1970-01-01T00:00:01.5Z")},
      {"string_format", {S("%s"), L({Seconds(6347)})}, S("6347s")},
      {"string_format", {S("%s"), L({Value::Duration(1500000000)})}, S("1.5s")},
      {"string_format",
       {S("%s"), L({L({S("abc"), D(3.14), Value::Null(),
                       L({I(9), I(8), I(7), I(6)}), ts})})},
       S("[abc, 3.14, null, [9, 8, 7, 6], 2023-02-03T23:31:20Z]")},
      {"string_format",
       {S("%s"), L({M({{S("key1"), B("xyz")},
                       {S("key5"), Value::Null()},
                       {S("key2"), Seconds(7200)},
                       {S("key4"), Value::Bool(true)},
                       {S("key3"), D(2.71828)}})})},
       S("{key1: xyz, key2: 7200s, key3: 2.71828, key4: true, key5: null}")},
      {"string_format",
       {S("%s"), L({M({{I(1), S("value1")},
                       {U(2), S("value2")},
                       {Value::Bool(true), D(NAN)}})})},
       S("{1: value1, 2: value2, true: NaN}")},
      {"string_format",
       {S("%s"), L({M({{S("strKey"), S("x")},
                       {I(6), Seconds(422)},
                       {Value::Bool(true), I(42)}})})},
       S("{6: 422s, strKey: x, true: 42}")},
      {"string_format", {S("%s, %s"), L({I(32), D(56.8)})}, S("32, 56.8")},
      {"string_format", {S("%s"), L({D(1e20)})}, S("100000000000000000000")},
      {"string_format", {S("%.3f"), L({D(4.5)})}, S("4.500")},
      {"string_format", {S("%.3f"), L({I(4)})}, S("4.000")},
      {"string_format", {S("%.0f"), L({D(123.0)})}, S("123")},
      {"string_format", {S("%.0f"), L({D(3.5001)})}, S("4")},
      {"string_format", {S("%.0f"), L({D(3.4999)})}, S("3")},
      {"string_format", {S("%.0f"), L({D(1.5)})}, S("2")},
      {"string_format", {S("%.0f"), L({D(2.5)})}, S("2")},
      {"string_format", {S("%.3f"), L({D(123.4999)})}, S("123.500")},
      {"string_format", {S("%.3f"), L({D(-123.4994)})}, S("-123.499")},
      {"string_format", {S("%.5f"), L({D(-1.2)})}, S("-1.20000")},
      {"string_format",
       {S("%s"), L({L({D(NAN), D(INFINITY), D(-INFINITY)})})},
       S("[NaN, Infinity, -Infinity]")},
  });
}

TEST(ExtLibStrings, FormatErrors) {
  RunCases({
      {"string_format",
       {S("%a"), L({I(1)})},
       Err("could not parse formatting clause: unrecognized formatting "
           "clause \"a\"")},
      {"string_format",
       {S("%d %d %d"), L({I(0), I(1)})},
       Err("index 2 out of range")},
      {"string_format",
       {S("string is %b"), L({S("abc")})},
       Err("error during formatting: only ints, uints, and bools can be "
           "formatted as binary, was given string")},
      {"string_format",
       {S("%d"), L({Seconds(1802)})},
       Err("decimal clause can only be used on ints, uints, and doubles, was "
           "given google.protobuf.Duration")},
      {"string_format",
       {S("octal: %o"), L({S("a string")})},
       Err("octal clause can only be used on ints and uints")},
      {"string_format",
       {S("double is %x"), L({D(0.5)})},
       Err("can be formatted as hex, was given double")},
      {"string_format",
       {S("double is %E"), L({D(0.5)})},
       Err("unrecognized formatting clause \"E\"")},
      {"string_format",
       {S("%s"), L({Value::OptionalNone()})},
       Err("string clause can only be used on")},
      {"string_format",
       {S("%s"), L({L({I(1), Value::OptionalNone()})})},
       Err("was given optional_type")},
      {"string_format",
       {S("null: %d"), L({Value::Null()})},
       Err("was given null_type")},
      {"string_format",
       {S("null: %e"), L({Value::Null()})},
       Err("scientific clause")},
      {"string_format",
       {S("null: %f"), L({Value::Null()})},
       Err("fixed-point clause")},
      {"string_format", {S("%"), L({I(1)})}, Err("unexpected end of string")},
      {"string_format",
       {S("%.3"), L({I(1)})},
       Err("could not find end of precision specifier")},
      {"string_format",
       {S("%.1000f"), L({I(1)})},
       Err("exceeds maximum allowed precision")},
  });
}

TEST(ExtLibStrings, Costs) {
  // Kubernetes cost_test.go: runtime costs of the calls themselves.
  EXPECT_EQ(
      CallWithCost("string_lower_ascii", {S("ABCDEFGHIJ abcdefghij")}).cost,
      3u);
  EXPECT_EQ(CallWithCost("strings_quote", {S("ABCDEFGHIJ abcdefghij")}).cost,
            3u);
  EXPECT_EQ(CallWithCost("string_replace_string_string",
                         {S("abc 123 def 123"), S("123"), S("456")})
                .cost,
            3u);
  EXPECT_EQ(
      CallWithCost("string_split_string", {S("abc 123 def 123"), S(" ")}).cost,
      3u);
  EXPECT_EQ(
      CallWithCost("string_substring_int", {S("abc 123 def 123"), I(5)}).cost,
      2u);
  EXPECT_EQ(CallWithCost("string_trim", {S("  abc 123 def 123  ")}).cost, 2u);
  // join: ceil(len(result) * 0.2); 10 strings of 13 chars + 9 separators.
  Value words = Strs({"aa", "bb", "cc", "d", "e", "f", "g", "h", "i", "j"});
  EXPECT_EQ(CallWithCost("list_join_string", {words, S(" ")}).cost, 5u);
  EXPECT_EQ(CallWithCost("list_join", {words}).cost, 3u);
  // indexOf on a string: the truncated traversal cost, 50 bytes -> 5.
  std::string fifty(50, 'x');
  EXPECT_EQ(CallWithCost("string_index_of_string", {S(fifty), S("123")}).cost,
            5u);
  EXPECT_EQ(CallWithCost("string_char_at_int", {S(fifty), I(1)}).cost, 1u);
  EXPECT_EQ(CallWithCost("string_format", {S(fifty), L({})}).cost, 5u);

  // Estimates from argument sizes.
  const Overload& lower = ById("string_lower_ascii");
  std::vector<SizeEstimate> s21 = {{21, 21}};
  EXPECT_EQ(lower.estimate_cost(s21).max, 3u);
  const Overload& replace = ById("string_replace_string_string");
  std::vector<SizeEstimate> rs = {{15, 15}, {3, 3}, {3, 3}};
  EXPECT_EQ(replace.estimate_cost(rs).min, 3u);
  EXPECT_EQ(replace.estimate_cost(rs).max, 3u);
  SizeEstimate size = replace.estimate_size(rs);
  EXPECT_EQ(size.min, 15u);
  EXPECT_EQ(size.max, 15u);
  const Overload& quote = ById("strings_quote");
  EXPECT_EQ(quote.estimate_size(s21).max, 44u);
}

TEST(ExtLibStrings, BorrowsInsteadOfAllocating) {
  // Unchanged results reuse the receiver; ASCII characters are static.
  Value text = Value::BorrowedString("tacocat");
  Value lower = Call("string_lower_ascii", {text});
  EXPECT_EQ(lower.string_view().data(), text.string_view().data());
  Value trimmed = Call("string_trim", {text});
  EXPECT_EQ(trimmed.string_view().data(), text.string_view().data());
  Value c = Call("string_char_at_int", {text, I(0)});
  EXPECT_FALSE(c.IsUniquelyOwned());
  EXPECT_EQ(c.string_view(), "t");
}

}  // namespace
}  // namespace dralloc::cel
