// Tests of the extension libraries: strings, lists, sets, optionals, regex
// and encoders. Direct calls of the registered overloads (by overload id) and
// whole expressions through Compile(). Expected values come from the
// cel-spec conformance section string_ext, cel-go's and Kubernetes' library
// documentation and Kubernetes' cost_test.go.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cel/check/environment.h"
#include "cel/common/eval_context.h"
#include "cel/common/function_registry.h"
#include "cel/common/value.h"
#include "cel/lib/encoders_library.h"
#include "cel/lib/lists_library.h"
#include "cel/lib/optional_library.h"
#include "cel/lib/regex_library.h"
#include "cel/lib/sets_library.h"
#include "cel/lib/strings_library.h"
#include "cel/program.h"

namespace dralloc::cel {
namespace {

// ---- value builders ----

Value S(std::string s) { return Value::String(std::move(s)); }
Value B(std::string s) { return Value::Bytes(std::move(s)); }
Value I(int64_t i) { return Value::Int(i); }
Value U(uint64_t u) { return Value::Uint(u); }
Value D(double d) { return Value::Double(d); }
Value L(std::vector<Value> items) {
  return Value::List(new VectorList(std::move(items)));
}
Value M(std::vector<std::pair<Value, Value>> entries) {
  auto* map = new EntryMap();
  for (auto& [k, v] : entries) map->Insert(k, v);
  return Value::Map(map);
}
Value Seconds(int64_t s) { return Value::Duration(s * 1000000000); }

// Same kinds all the way down and CEL-equal.
bool Same(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kList:
      if (a.list().Size() != b.list().Size()) return false;
      for (size_t i = 0; i < a.list().Size(); ++i) {
        if (!Same(a.list().At(i), b.list().At(i))) return false;
      }
      return true;
    case ValueKind::kOptional:
      if (a.optional_has_value() != b.optional_has_value()) return false;
      return !a.optional_has_value() ||
             Same(a.optional_value(), b.optional_value());
    case ValueKind::kDouble:
      if (std::isnan(a.double_value())) return std::isnan(b.double_value());
      return a.double_value() == b.double_value();
    case ValueKind::kError:
      return a.error_message() == b.error_message();
    default:
      return EqualBool(a, b);
  }
}

const FunctionRegistry& Registry() {
  static const FunctionRegistry* registry = [] {
    auto* r = new FunctionRegistry();
    RegisterStringsLibrary(*r);
    RegisterListsLibrary(*r);
    RegisterSetsLibrary(*r);
    RegisterOptionalLibrary(*r);
    RegisterRegexLibrary(*r);
    RegisterEncodersLibrary(*r);
    return r;
  }();
  return *registry;
}

const Overload& ById(std::string_view id) {
  static const auto* by_id = [] {
    auto* m = new std::map<std::string, const Overload*, std::less<>>();
    const char* names[] = {"charAt",
                           "indexOf",
                           "lastIndexOf",
                           "lowerAscii",
                           "upperAscii",
                           "replace",
                           "split",
                           "substring",
                           "trim",
                           "join",
                           "strings.quote",
                           "format",
                           "isSorted",
                           "sum",
                           "min",
                           "max",
                           "includes",
                           "slice",
                           "flatten",
                           "lists.range",
                           "reverse",
                           "distinct",
                           "sort",
                           "@sortByAssociatedKeys",
                           "first",
                           "last",
                           "optional.unwrap",
                           "unwrapOpt",
                           "sets.contains",
                           "sets.equivalent",
                           "sets.intersects",
                           "optional.of",
                           "optional.ofNonZeroValue",
                           "optional.none",
                           "value",
                           "hasValue",
                           "or",
                           "orValue",
                           "_?._",
                           "_[?_]",
                           "_[_]",
                           "find",
                           "findAll",
                           "base64.encode",
                           "base64.decode"};
    for (const char* name : names) {
      for (bool member : {false, true}) {
        for (const Overload* o : Registry().Find(name, member)) {
          EXPECT_TRUE(m->emplace(o->id, o).second) << "duplicate " << o->id;
        }
      }
    }
    return m;
  }();
  auto it = by_id->find(id);
  if (it == by_id->end()) {
    ADD_FAILURE() << "no overload " << id;
    static const Overload none;
    return none;
  }
  return *it->second;
}

struct CallResult {
  Value value;
  uint64_t cost;
};

CallResult CallWithCost(std::string_view id, std::vector<Value> args) {
  const Overload& o = ById(id);
  if (o.impl == nullptr) return {Value::Error("missing overload"), 0};
  EXPECT_EQ(o.params.size(), args.size()) << id;
  std::shared_ptr<const void> prepared;
  if (o.prepare != nullptr) {
    std::vector<const Value*> constants;
    for (const Value& a : args) constants.push_back(&a);
    auto state = o.prepare(constants);
    if (!state.ok()) return {Value::Error(state.status().message()), 0};
    prepared = *state;
  }
  EvalContext ctx;
  CallContext call{&ctx, prepared.get()};
  Value result = o.impl(call, args);
  uint64_t cost = o.runtime_cost ? o.runtime_cost(args, result) : 1;
  return {result, cost};
}

Value Call(std::string_view id, std::vector<Value> args) {
  return CallWithCost(id, std::move(args)).value;
}

struct Case {
  std::string id;
  std::vector<Value> args;
  Value want;  // an error value: expect an error containing its message
};

void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    std::string label = c.id;
    for (const Value& a : c.args) label += " " + a.DebugString();
    Value got = Call(c.id, c.args);
    if (c.want.IsError()) {
      ASSERT_TRUE(got.IsError()) << label << " gave " << got.DebugString();
      EXPECT_NE(got.error_message().find(c.want.error_message()),
                std::string::npos)
          << label << " gave " << got.error_message();
    } else {
      EXPECT_TRUE(Same(got, c.want)) << label << " gave " << got.DebugString()
                                     << ", want " << c.want.DebugString();
    }
  }
}

Value Err(std::string message) { return Value::Error(std::move(message)); }
Value Strs(std::vector<std::string> items) {
  std::vector<Value> values;
  for (auto& s : items) values.push_back(S(s));
  return L(std::move(values));
}

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

// ---- optionals ----

TEST(ExtLibOptional, Functions) {
  Value map = M({{S("a"), I(1)}, {S("null_key"), Value::Null()}});
  Value list = L({S("foo")});
  RunCases({
      {"optional_of", {Value::Null()}, Value::OptionalOf(Value::Null())},
      {"optional_ofNonZeroValue", {Value::Null()}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {I(0)}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {U(0)}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {D(-0.0)}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {S("")}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {B("")}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {Value::Bool(false)}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {L({})}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {M({})}, Value::OptionalNone()},
      {"optional_ofNonZeroValue", {Value::Duration(0)}, Value::OptionalNone()},
      {"optional_ofNonZeroValue",
       {Value::Timestamp(-62135596800, 0)},
       Value::OptionalNone()},
      {"optional_ofNonZeroValue",
       {Value::Timestamp(0, 0)},
       Value::OptionalOf(Value::Timestamp(0, 0))},
      {"optional_ofNonZeroValue", {I(42)}, Value::OptionalOf(I(42))},
      {"optional_ofNonZeroValue", {S("hello")}, Value::OptionalOf(S("hello"))},
      {"optional_none", {}, Value::OptionalNone()},
      {"optional_hasValue", {Value::OptionalOf(I(1))}, Value::Bool(true)},
      {"optional_hasValue", {Value::OptionalNone()}, Value::Bool(false)},
      {"optional_value", {Value::OptionalOf(I(1))}, I(1)},
      {"optional_value",
       {Value::OptionalNone()},
       Err("optional.none() dereference")},
      {"optional_or_optional",
       {Value::OptionalNone(), Value::OptionalNone()},
       Value::OptionalNone()},
      {"optional_or_optional",
       {Value::OptionalOf(I(42)), Value::OptionalOf(I(20))},
       Value::OptionalOf(I(42))},
      {"optional_or_optional",
       {Value::OptionalNone(), Value::OptionalOf(I(20))},
       Value::OptionalOf(I(20))},
      // Short-circuit: the alternative's error only matters for none.
      {"optional_or_optional",
       {Value::OptionalOf(I(1)), Err("boom")},
       Value::OptionalOf(I(1))},
      {"optional_or_optional",
       {Value::OptionalNone(), Err("boom")},
       Err("boom")},
      {"optional_orValue_value", {Value::OptionalNone(), I(42)}, I(42)},
      {"optional_orValue_value", {Value::OptionalOf(I(1)), Err("boom")}, I(1)},
      {"optional_orValue_value", {Err("first"), I(1)}, Err("first")},
      {"select_optional_field", {map, S("a")}, Value::OptionalOf(I(1))},
      {"select_optional_field",
       {map, S("null_key")},
       Value::OptionalOf(Value::Null())},
      {"select_optional_field", {map, S("b")}, Value::OptionalNone()},
      {"select_optional_field",
       {Value::OptionalOf(map), S("a")},
       Value::OptionalOf(I(1))},
      {"select_optional_field",
       {Value::OptionalNone(), S("a")},
       Value::OptionalNone()},
      {"select_optional_field", {I(1), S("a")}, Err("no matching overload")},
      {"list_optindex_optional_int", {list, I(0)}, Value::OptionalOf(S("foo"))},
      {"list_optindex_optional_int", {list, I(1)}, Value::OptionalNone()},
      {"list_optindex_optional_int", {list, I(-1)}, Value::OptionalNone()},
      {"list_optindex_optional_int", {L({}), I(0)}, Value::OptionalNone()},
      {"optional_list_optindex_optional_int",
       {Value::OptionalOf(list), I(0)},
       Value::OptionalOf(S("foo"))},
      {"optional_list_optindex_optional_int",
       {Value::OptionalNone(), I(0)},
       Value::OptionalNone()},
      {"map_optindex_optional_value",
       {M({{Value::Bool(true), I(1)}, {I(2), I(2)}, {U(5), I(3)}}),
        Value::Bool(true)},
       Value::OptionalOf(I(1))},
      {"map_optindex_optional_value",
       {M({{U(1), D(1.0)}, {I(2), D(2.0)}, {U(3), D(3.0)}}), D(3.0)},
       Value::OptionalOf(D(3.0))},
      {"map_optindex_optional_value",
       {M({{U(1), D(1.0)}, {I(2), D(2.0)}}), U(2)},
       Value::OptionalOf(D(2.0))},
      {"map_optindex_optional_value",
       {M({}), S("missing")},
       Value::OptionalNone()},
      {"optional_map_index_value",
       {Value::OptionalOf(M({{S("index"), S("goodbye")}})), S("index")},
       Value::OptionalOf(S("goodbye"))},
      {"optional_map_index_value",
       {Value::OptionalOf(M({})), S("missing")},
       Value::OptionalNone()},
      {"optional_list_index_int",
       {Value::OptionalNone(), I(0)},
       Value::OptionalNone()},
      {"optional_list_index_int",
       {Value::OptionalOf(Strs({"list-value"})), I(0)},
       Value::OptionalOf(S("list-value"))},
  });
}

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

// ---- encoders ----

TEST(ExtLibEncoders, Base64) {
  RunCases({
      {"base64_encode_bytes", {B("hello")}, S("aGVsbG8=")},
      {"base64_encode_bytes", {B("")}, S("")},
      {"base64_encode_bytes", {B("Hello World!")}, S("SGVsbG8gV29ybGQh")},
      {"base64_encode_bytes", {B("\xff\xfe")}, S("//4=")},
      {"base64_decode_string", {S("aGVsbG8=")}, B("hello")},
      {"base64_decode_string", {S("aGVsbG8")}, B("hello")},
      {"base64_decode_string", {S("SGVsbG8gV29ybGQh")}, B("Hello World!")},
      {"base64_decode_string", {S("//4=")}, B("\xff\xfe")},
      {"base64_decode_string", {S("")}, B("")},
      {"base64_decode_string", {S("aGVs\nbG8=")}, B("hello")},
      {"base64_decode_string", {S("aGVsbG8==")}, Err("illegal base64 data")},
      {"base64_decode_string", {S("a")}, Err("illegal base64 data")},
      {"base64_decode_string", {S("aG=Vs")}, Err("illegal base64 data")},
      {"base64_decode_string", {S("a*Vs")}, Err("illegal base64 data")},
  });
}

// ---- whole expressions ----

struct Evaluated {
  Status compile;
  // Results may borrow the program's constants: keep it alive.
  std::shared_ptr<const Program> program;
  Value value;
  uint64_t cost = 0;
  CostEstimate estimate;
};

Evaluated Evaluate(std::string_view expr, bool check = true) {
  static const std::shared_ptr<const Environment> env =
      Environment::NewStandard();
  Evaluated out;
  CompileOptions options;
  options.check = check;
  auto program = Compile(env, expr, options);
  if (!program.ok()) {
    out.compile = program.status();
    return out;
  }
  out.program = *program;
  Activation activation(*env);
  EvalContext ctx;
  out.value = out.program->Evaluate(activation, ctx);
  out.cost = ctx.cost();
  out.estimate = (*program)->estimated_cost();
  return out;
}

struct ExprCase {
  std::string expr;
  // A CEL expression for the expected value (compared by kind and value),
  // or "error:<substring>" for an evaluation error.
  std::string want = "true";
  bool check = true;
};

void RunExprCases(const std::vector<ExprCase>& cases) {
  for (const ExprCase& c : cases) {
    Evaluated got = Evaluate(c.expr, c.check);
    ASSERT_TRUE(got.compile.ok()) << c.expr << ": " << got.compile;
    if (c.want.rfind("error:", 0) == 0) {
      std::string part = c.want.substr(6);
      ASSERT_TRUE(got.value.IsError())
          << c.expr << " gave " << got.value.DebugString();
      EXPECT_NE(got.value.error_message().find(part), std::string::npos)
          << c.expr << " gave " << got.value.error_message();
      continue;
    }
    Evaluated want = Evaluate(c.want);
    ASSERT_TRUE(want.compile.ok()) << c.want << ": " << want.compile;
    EXPECT_TRUE(Same(got.value, want.value))
        << c.expr << " gave " << got.value.DebugString() << ", want "
        << want.value.DebugString();
  }
}

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
