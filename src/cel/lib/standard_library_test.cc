
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

// ---- arithmetic ----

struct CallCase {
  const char* function;
  std::vector<Value> args;
  Value want;         // when error is null
  const char* error;  // substring of the expected error
};

void RunCases(const std::vector<CallCase>& cases) {
  for (const CallCase& c : cases) {
    Value got = Call(c.function, c.args);
    std::string label = std::string(c.function) + "(";
    for (size_t i = 0; i < c.args.size(); ++i) {
      label += (i ? ", " : "") + c.args[i].DebugString();
    }
    label += ")";
    if (c.error != nullptr) {
      EXPECT_TRUE(IsErrorWith(got, c.error)) << label;
    } else {
      EXPECT_TRUE(SameValue(got, c.want)) << label;
    }
  }
}

TEST(StandardLibraryTest, IntegerArithmetic) {
  RunCases({
      {"_+_", {I(40), I(2)}, I(42), nullptr},
      {"_-_", {I(-42), I(-12)}, I(-30), nullptr},
      {"_*_", {I(-30), I(-2)}, I(60), nullptr},
      {"_/_", {I(-20), I(2)}, I(-10), nullptr},
      {"_/_", {I(7), I(-2)}, I(-3), nullptr},
      {"_%_", {I(47), I(5)}, I(2), nullptr},
      {"_%_", {I(43), I(-5)}, I(3), nullptr},
      {"_%_", {I(-42), I(-5)}, I(-2), nullptr},
      {"_%_", {I(-3), I(5)}, I(-3), nullptr},
      {"-_", {I(42)}, I(-42), nullptr},
      {"-_", {I(0)}, I(0), nullptr},
      {"_/_", {I(15), I(0)}, {}, "division by zero"},
      {"_%_", {I(34), I(0)}, {}, "modulus by zero"},
      {"_+_", {I(kMaxInt), I(1)}, {}, "integer overflow"},
      {"_-_", {I(kMinInt), I(1)}, {}, "integer overflow"},
      {"_+_", {I(kMinInt), I(-1)}, {}, "integer overflow"},
      {"_-_", {I(1), I(-kMaxInt)}, I(kMinInt) /*unused*/, "integer overflow"},
      {"-_", {I(kMinInt)}, {}, "integer overflow"},
      {"_*_", {I(kMinInt), I(-1)}, {}, "integer overflow"},
      {"_/_", {I(kMinInt), I(-1)}, {}, "integer overflow"},
      {"_%_", {I(kMinInt), I(-1)}, {}, "integer overflow"},
      {"_*_", {I(5000000000), I(5000000000)}, {}, "integer overflow"},
      {"_*_", {I(-5000000000), I(5000000000)}, {}, "integer overflow"},
      {"_+_", {U(42), U(2)}, U(44), nullptr},
      {"_-_", {U(42), U(12)}, U(30), nullptr},
      {"_*_", {U(40), U(2)}, U(80), nullptr},
      {"_/_", {U(60), U(2)}, U(30), nullptr},
      {"_%_", {U(42), U(5)}, U(2), nullptr},
      {"_/_", {U(15), U(0)}, {}, "division by zero"},
      {"_%_", {U(34), U(0)}, {}, "modulus by zero"},
      {"_+_", {U(kMaxUint), U(1)}, {}, "unsigned integer overflow"},
      {"_-_", {U(0), U(1)}, {}, "unsigned integer overflow"},
      {"_*_", {U(5000000000), U(5000000000)}, {}, "unsigned integer overflow"},
      {"-_", {U(5)}, {}, "no matching overload"},
      {"-_", {Bool(false)}, {}, "no matching overload"},
      {"_+_", {I(1), U(1)}, {}, "no matching overload"},
  });
}

TEST(StandardLibraryTest, IntegerOneMinusMaxIsMin) {
  // 1 - (-MAX) overflows; MIN + 0 and -MAX - 1 do not.
  EXPECT_TRUE(SameValue(Call("_-_", {I(-kMaxInt), I(1)}), I(kMinInt)));
}

TEST(StandardLibraryTest, DoubleArithmetic) {
  RunCases({
      {"_+_", {D(4.25), D(15.25)}, D(19.5), nullptr},
      {"_-_", {D(-4.875), D(-0.125)}, D(-4.75), nullptr},
      {"_*_", {D(40.75), D(-2.25)}, D(-91.6875), nullptr},
      {"_/_", {D(-8.875), D(-0.0625)}, D(142), nullptr},
      {"_/_", {D(15.75), D(0.0)}, D(INFINITY), nullptr},
      {"_*_", {D(2.0), D(-8.988466e+307)}, D(-INFINITY), nullptr},
      {"_/_", {D(5e-324), D(2.0)}, D(0), nullptr},
      {"-_", {D(-1.25)}, D(1.25), nullptr},
      {"_%_", {D(47.5), D(5.5)}, {}, "no matching overload"},
  });
  Value nan = Call("_/_", {D(0.0), D(0.0)});
  ASSERT_EQ(nan.kind(), ValueKind::kDouble);
  EXPECT_TRUE(std::isnan(nan.double_value()));
}

TEST(StandardLibraryTest, Concatenation) {
  RunCases({
      {"_+_", {S("he"), S("llo")}, S("hello"), nullptr},
      {"_+_", {S(""), S("abc")}, S("abc"), nullptr},
      {"_+_", {S("abc"), S("")}, S("abc"), nullptr},
      {"_+_", {S("¢"), S("ÿȀ")}, S("¢ÿȀ"), nullptr},
      {"_+_", {B("abc"), B("def")}, B("abcdef"), nullptr},
      {"_+_",
       {B(""), B("\xff"
                 "oo")},
       B("\xff"
         "oo"),
       nullptr},
      {"_+_",
       {List({I(0), I(1)}), List({I(2)})},
       List({I(0), I(1), I(2)}),
       nullptr},
      {"_+_", {List({}), List({})}, List({}), nullptr},
      {"_+_", {List({}), List({I(3)})}, List({I(3)}), nullptr},
      {"_+_", {S("a"), B("b")}, {}, "no matching overload"},
  });
  EXPECT_FALSE(
      EqualBool(Call("_+_", {List({I(0)}), List({I(1)})}), List({I(1), I(0)})));
}

TEST(StandardLibraryTest, LogicalNot) {
  RunCases({
      {"!_", {Bool(true)}, Bool(false), nullptr},
      {"!_", {Bool(false)}, Bool(true), nullptr},
      {"!_", {I(0)}, {}, "no matching overload"},
  });
}

// ---- equality and ordering ----

TEST(StandardLibraryTest, HeterogeneousEquality) {
  RunCases({
      {"_==_", {I(1), U(1)}, Bool(true), nullptr},
      {"_==_", {I(1), D(1.0)}, Bool(true), nullptr},
      {"_==_", {U(1), D(1.5)}, Bool(false), nullptr},
      {"_==_", {Bool(false), Value::Null()}, Bool(false), nullptr},
      {"_==_", {Value::Null(), Value::Null()}, Bool(true), nullptr},
      {"_==_", {S("a"), B("a")}, Bool(false), nullptr},
      {"_==_",
       {List({D(1.0), D(2.0), I(3)}), List({U(1), I(2), U(3)})},
       Bool(true),
       nullptr},
      {"_==_",
       {Map({{I(1), D(1.0)}, {U(2), U(3)}}),
        Map({{U(1), I(1)}, {I(2), D(3.0)}})},
       Bool(true),
       nullptr},
      {"_==_", {D(NAN), D(NAN)}, Bool(false), nullptr},
      {"_!=_", {D(NAN), D(NAN)}, Bool(true), nullptr},
      {"_!=_", {I(1), S("1")}, Bool(true), nullptr},
      {"_!=_", {I(2), U(2)}, Bool(false), nullptr},
      {"_==_",
       {Value::TypeValue(kIntTypeName), Value::TypeValue(kIntTypeName)},
       Bool(true),
       nullptr},
  });
}

TEST(StandardLibraryTest, Ordering) {
  RunCases({
      // Cross-type numeric comparisons are exact (cel.md §2.6).
      {"_<_", {I(1), U(9223372036854775808ull)}, Bool(true), nullptr},
      {"_<_", {I(-1), U(0)}, Bool(true), nullptr},
      {"_<_", {I(kMaxInt), D(9223372036854777857.0)}, Bool(true), nullptr},
      {"_<=_", {I(kMaxInt), D(9223372036854775807.0)}, Bool(true), nullptr},
      {"_>_", {I(kMaxInt), D(9223372036854775807.0)}, Bool(false), nullptr},
      {"_>=_", {D(1.5), I(1)}, Bool(true), nullptr},
      {"_>_", {U(kMaxUint), D(1.8e19)}, Bool(true), nullptr},
      {"_<_", {D(-0.5), U(0)}, Bool(true), nullptr},
      {"_<=_", {U(3), I(3)}, Bool(true), nullptr},
      {"_>_", {U(0), I(-1)}, Bool(true), nullptr},
      {"_<_", {D(NAN), D(1.0)}, Bool(false), nullptr},
      {"_>=_", {D(NAN), I(1)}, Bool(false), nullptr},
      {"_<=_", {U(1), D(NAN)}, Bool(false), nullptr},
      {"_<_", {S("a"), S("b")}, Bool(true), nullptr},
      {"_<_", {S("abc"), S("ab")}, Bool(false), nullptr},
      {"_>_", {S("é"), S("z")}, Bool(true), nullptr},
      {"_<_", {B("\x01"), B("\xff")}, Bool(true), nullptr},
      {"_<_", {Bool(false), Bool(true)}, Bool(true), nullptr},
      {"_>=_", {Bool(false), Bool(true)}, Bool(false), nullptr},
      {"_<_", {Value::Duration(1), Value::Duration(2)}, Bool(true), nullptr},
      {"_>_",
       {Value::Timestamp(5, 1), Value::Timestamp(5, 0)},
       Bool(true),
       nullptr},
      {"_<_", {List({}), List({})}, {}, "no matching overload"},
      {"_<_", {Value::Null(), Value::Null()}, {}, "no matching overload"},
      {"_<_", {S("a"), I(1)}, {}, "no matching overload"},
  });
}

TEST(StandardLibraryTest, ComparisonOverloadIds) {
  for (std::string_view id :
       {"less_int64", "less_int64_double", "less_int64_uint64",
        "less_uint64_double", "less_double_int64", "less_equals_string",
        "greater_bytes", "greater_equals_timestamp", "greater_duration",
        "less_bool"}) {
    std::string_view function = id.starts_with("less_equals")      ? "_<=_"
                                : id.starts_with("less")           ? "_<_"
                                : id.starts_with("greater_equals") ? "_>=_"
                                                                   : "_>_";
    EXPECT_NE(ById(function, false, id), nullptr) << id;
  }
}

// cel-go (and the cel-spec comparisons tests) compare an int or uint with a
// double by converting the integer to double once the double is inside the
// integer's range, so int64 max and 2^63 compare equal.
TEST(StandardLibraryTest, CrossTypeNumericBoundariesMatchCelGo) {
  RunCases({
      {"_<_", {I(kMaxInt), D(9223372036854775808.0)}, Bool(false), nullptr},
      {"_>=_", {I(kMaxInt), D(9223372036854775808.0)}, Bool(true), nullptr},
      {"_>_", {D(9223372036854775808.0), I(kMaxInt)}, Bool(false), nullptr},
      {"_<=_", {D(9223372036854775808.0), I(kMaxInt)}, Bool(true), nullptr},
      {"_<_", {I(kMaxInt), D(-9223372036854777857.0)}, Bool(false), nullptr},
      {"_<_", {I(kMinInt), D(-9223372036854775809.0)}, Bool(false), nullptr},
      {"_<=_", {I(kMinInt), D(-9223372036854775809.0)}, Bool(true), nullptr},
      {"_>_", {I(kMinInt), D(-9223372036854777857.0)}, Bool(true), nullptr},
      {"_<_", {U(kMaxUint), D(-1.0)}, Bool(false), nullptr},
      {"_<_", {U(kMaxUint), D(18446744073709590000.0)}, Bool(true), nullptr},
      {"_>=_", {U(kMaxUint), D(18446744073709553665.0)}, Bool(false), nullptr},
      {"_<_", {D(18446744073709553665.0), U(kMaxUint)}, Bool(false), nullptr},
      {"_>_", {D(18446744073709553665.0), U(kMaxUint)}, Bool(true), nullptr},
      {"_<_", {U(kMaxUint), D(18446744073709551616.0)}, Bool(false), nullptr},
  });
}

// ---- containers ----

TEST(StandardLibraryTest, ListIndex) {
  Value list = List({I(7), I(8), I(9)});
  RunCases({
      {"_[_]", {list, I(0)}, I(7), nullptr},
      {"_[_]", {list, I(2)}, I(9), nullptr},
      {"_[_]", {list, U(1)}, I(8), nullptr},
      {"_[_]", {list, D(0.0)}, I(7), nullptr},
      {"_[_]", {list, D(0.1)}, {}, "unsupported index value 0.1"},
      {"_[_]", {list, I(3)}, {}, "index '3' out of range in list size '3'"},
      {"_[_]", {list, I(-1)}, {}, "out of range"},
      {"_[_]", {list, U(kMaxUint)}, {}, "unsupported index value"},
      {"_[_]", {list, D(1e300)}, {}, "unsupported index value"},
      {"_[_]", {list, S("")}, {}, "no matching overload"},
  });
}

TEST(StandardLibraryTest, MapIndexUsesNumericKeyEquality) {
  Value m = Map({{U(1), D(1.0)}, {I(2), D(2.0)}, {U(3), D(3.0)}});
  RunCases({
      {"_[_]", {m, D(3.0)}, D(3.0), nullptr},
      {"_[_]", {m, U(2)}, D(2.0), nullptr},
      {"_[_]", {m, I(1)}, D(1.0), nullptr},
      {"_[_]", {m, D(3.1)}, {}, "no such key"},
      {"_[_]", {m, B("")}, {}, "no such key"},
      {"_[_]",
       {Map({{Bool(true), I(1)}, {I(2), I(2)}}), Bool(true)},
       I(1),
       nullptr},
  });
  Value missing = Call("_[_]", {Map({{S("a"), I(1)}}), S("noSuchAttr")});
  ASSERT_TRUE(missing.IsError());
  EXPECT_EQ(missing.error_message(), "no such key: noSuchAttr");
  EXPECT_EQ(Call("_[_]", {m, I(7)}).error_message(), "no such key: 7");
}

TEST(StandardLibraryTest, MapIndexLargeMapIsHashed) {
  std::vector<std::pair<Value, Value>> entries;
  for (int i = 0; i < 50; ++i) entries.push_back({I(i), I(i * i)});
  Value m = Map(std::move(entries));
  EXPECT_TRUE(SameValue(Call("_[_]", {m, U(7)}), I(49)));
  EXPECT_TRUE(SameValue(Call("_[_]", {m, D(9.0)}), I(81)));
  EXPECT_TRUE(IsErrorWith(Call("_[_]", {m, D(9.5)}), "no such key"));
}

TEST(StandardLibraryTest, In) {
  Value ints = List({I(5), I(4), I(3), I(2), I(1)});
  RunCases({
      {"@in", {I(7), List({})}, Bool(false), nullptr},
      {"@in", {S("alpha"), List({S("alpha"), S("beta")})}, Bool(true), nullptr},
      {"@in", {D(3.0), ints}, Bool(true), nullptr},
      {"@in", {U(3), ints}, Bool(true), nullptr},
      {"@in", {D(3.5), ints}, Bool(false), nullptr},
      {"@in", {I(3), List({D(5.0), D(3.0)})}, Bool(true), nullptr},
      {"@in", {S("3"), ints}, Bool(false), nullptr},
      {"@in", {I(7), Map({})}, Bool(false), nullptr},
      {"@in", {Bool(true), Map({{Bool(true), I(1)}})}, Bool(true), nullptr},
      {"@in", {D(3.0), Map({{I(1), I(1)}, {U(3), I(3)}})}, Bool(true), nullptr},
      {"@in",
       {D(3.1), Map({{I(1), I(1)}, {U(3), I(3)}})},
       Bool(false),
       nullptr},
      {"@in", {U(2), Map({{U(1), I(1)}, {I(2), I(2)}})}, Bool(true), nullptr},
      {"@in", {B("x"), Map({{S("x"), I(1)}})}, Bool(false), nullptr},
  });
}

TEST(StandardLibraryTest, Size) {
  RunCases({
      {"size", {S("")}, I(0), nullptr},
      {"size", {S("ÿ")}, I(1), nullptr},
      {"size", {S("πέντε")}, I(5), nullptr},
      {"size", {S("🐱😀")}, I(2), nullptr},
      {"size", {B("abc")}, I(3), nullptr},
      {"size", {B("ÿ")}, I(2), nullptr},
      {"size", {List({I(1), I(2), I(3)})}, I(3), nullptr},
      {"size", {Map({{I(1), S("one")}})}, I(1), nullptr},
      {"size", {I(1)}, {}, "no matching overload"},
  });
  EXPECT_TRUE(SameValue(Call("size", {S("four")}, /*member=*/true), I(4)));
  EXPECT_NE(ById("size", true, "string_size"), nullptr);
  EXPECT_NE(ById("size", false, "size_map"), nullptr);
}

// ---- strings ----

struct MemberCase {
  const char* function;
  const char* receiver;
  const char* arg;
  bool want;
};

TEST(StandardLibraryTest, StringPredicates) {
  const MemberCase cases[] = {
      {"startsWith", "foobar", "foo", true},
      {"startsWith", "foobar", "bar", false},
      {"startsWith", "", "foo", false},
      {"startsWith", "foobar", "", true},
      {"startsWith", "завтра", "за", true},
      {"startsWith", "🐱😀😛", "🐱", true},
      {"endsWith", "foobar", "bar", true},
      {"endsWith", "foobar", "foo", false},
      {"endsWith", "", "", true},
      {"endsWith", "forté", "té", true},
      {"contains", "hello", "he", true},
      {"contains", "hello", "", true},
      {"contains", "hello", "ol", false},
      {"contains", "abababc", "ababc", true},
      {"contains", "Straße", "aß", true},
      {"contains", "", "something", false},
      {"matches", "hubba", "ubb", true},
      {"matches", "", "foo|bar", false},
      {"matches", "cows", "", true},
      {"matches", "", "", true},
      {"matches", "grey", "gr(a|e)y", true},
      {"matches", "banana", "ba(na)*", true},
      {"matches", "mañana", "a+ñ+a+", true},
      {"matches", "🐱😀😀", "(a|😀){2}", true},
      {"matches", "abc", "^b", false},
      {"matches", "ABC", "(?i)abc", true},
      {"matches", "a1", "\\d", true},
      {"matches", "dra.example.com", "^[a-z.]+$", true},
  };
  for (const MemberCase& c : cases) {
    Value got = Call(c.function, {S(c.receiver), S(c.arg)}, /*member=*/true);
    EXPECT_TRUE(SameValue(got, Bool(c.want)))
        << "'" << c.receiver << "'." << c.function << "('" << c.arg << "')";
  }
  // The global form of matches.
  EXPECT_TRUE(SameValue(Call("matches", {S("hubba"), S("ubb")}), Bool(true)));
}

TEST(StandardLibraryTest, MatchesInvalidPattern) {
  EXPECT_TRUE(IsErrorWith(Call("matches", {S("abc"), S("(")}, true),
                          "error parsing regexp"));
  // A constant pattern is compiled when the program is planned.
  const Overload* o = ById("matches", true, "matches_string");
  ASSERT_NE(o, nullptr);
  ASSERT_NE(o->prepare, nullptr);
  Value bad = S("a(b");
  std::vector<const Value*> constants = {nullptr, &bad};
  auto state = o->prepare(constants);
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(state.status().message().find("invalid matches argument"),
            std::string::npos);

  Value good = S("^d[a-z]+$");
  std::vector<const Value*> good_constants = {nullptr, &good};
  auto prepared = o->prepare(good_constants);
  ASSERT_TRUE(prepared.ok());
  ASSERT_NE(*prepared, nullptr);
  EvalContext eval;
  CallContext ctx{&eval, prepared->get()};
  // The prepared pattern wins over the (ignored) runtime argument.
  std::vector<Value> args = {S("dra"), good};
  EXPECT_TRUE(SameValue(o->impl(ctx, args), Bool(true)));
  args = {S("Dra"), good};
  EXPECT_TRUE(SameValue(o->impl(ctx, args), Bool(false)));

  // Only the receiver constant: nothing to prepare.
  Value receiver = S("x");
  std::vector<const Value*> receiver_only = {&receiver, nullptr};
  auto none = o->prepare(receiver_only);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

// ---- conversions ----

TEST(StandardLibraryTest, Conversions) {
  RunCases({
      {"int", {U(42)}, I(42), nullptr},
      {"int", {U(9223372036854775807ull)}, I(kMaxInt), nullptr},
      {"int", {U(kMaxUint)}, {}, "integer overflow"},
      {"int", {D(-123.456)}, I(-123), nullptr},
      {"int", {D(1.9)}, I(1), nullptr},
      {"int", {D(-7.9)}, I(-7), nullptr},
      {"int", {D(11.5)}, I(11), nullptr},
      {"int", {D(-3.5)}, I(-3), nullptr},
      {"int", {D(36028797018963968.0)}, I(36028797018963968), nullptr},
      {"int", {D(9223372036854775807.0)}, {}, "integer overflow"},
      {"int", {D(-9223372036854775808.0)}, {}, "integer overflow"},
      {"int", {D(-9223372036854774784.0)}, I(-9223372036854774784), nullptr},
      {"int", {D(1e99)}, {}, "integer overflow"},
      {"int", {D(NAN)}, {}, "integer overflow"},
      {"int", {D(INFINITY)}, {}, "integer overflow"},
      {"int", {S("987")}, I(987), nullptr},
      {"int", {S("-987")}, I(-987), nullptr},
      {"int", {S("+5")}, I(5), nullptr},
      {"int", {S("9223372036854775808")}, {}, "type conversion error"},
      {"int", {S("-9223372036854775808")}, I(kMinInt), nullptr},
      {"int", {S("1.5")}, {}, "type conversion error"},
      {"int", {S("")}, {}, "type conversion error"},
      {"int", {S("+-5")}, {}, "type conversion error"},
      {"int", {S(" 5")}, {}, "type conversion error"},
      {"int", {Value::Timestamp(1095379199, 5)}, I(1095379199), nullptr},
      {"int", {Value::Duration(-1500)}, I(-1500), nullptr},
      {"int", {I(1)}, I(1), nullptr},
      {"uint", {I(1729)}, U(1729), nullptr},
      {"uint", {I(kMaxInt)}, U(9223372036854775807ull), nullptr},
      {"uint", {I(-1)}, {}, "unsigned integer overflow"},
      {"uint", {D(3.14159265)}, U(3), nullptr},
      {"uint", {D(25.5)}, U(25), nullptr},
      {"uint", {D(36028797018963968.0)}, U(36028797018963968ull), nullptr},
      {"uint", {D(6.022e23)}, {}, "unsigned integer overflow"},
      {"uint", {D(18446744073709551616.0)}, {}, "unsigned integer overflow"},
      {"uint", {D(-0.5)}, {}, "unsigned integer overflow"},
      {"uint", {D(NAN)}, {}, "unsigned integer overflow"},
      {"uint", {S("300")}, U(300), nullptr},
      {"uint", {S("-1")}, {}, "type conversion error"},
      {"uint", {S("+1")}, {}, "type conversion error"},
      {"uint", {S("18446744073709551615")}, U(kMaxUint), nullptr},
      {"uint", {S("18446744073709551616")}, {}, "type conversion error"},
      {"uint", {U(1)}, U(1), nullptr},
      {"double", {I(0)}, D(0), nullptr},
      {"double", {I(-1000000000000000)}, D(-1e15), nullptr},
      {"double", {I(kMaxInt)}, D(9223372036854775808.0), nullptr},
      {"double", {U(kMaxUint)}, D(18446744073709551616.0), nullptr},
      {"double", {S("0")}, D(0), nullptr},
      {"double", {S("-0.0")}, D(-0.0), nullptr},
      {"double", {S("123.456")}, D(123.456), nullptr},
      {"double", {S("6.02214e23")}, D(6.02214e23), nullptr},
      {"double", {S("-84.32e7")}, D(-843200000), nullptr},
      {"double", {S("-5.43e-21")}, D(-5.43e-21), nullptr},
      {"double", {S(".5")}, D(0.5), nullptr},
      {"double", {S("+1.5")}, D(1.5), nullptr},
      {"double", {S("1E3")}, D(1000), nullptr},
      {"double", {S("-Inf")}, D(-INFINITY), nullptr},
      {"double", {S("infinity")}, D(INFINITY), nullptr},
      {"double", {S("0x1p-2")}, D(0.25), nullptr},
      {"double", {S("1e-400")}, D(0), nullptr},
      {"double", {S("1e400")}, {}, "type conversion error"},
      {"double", {S("abc")}, {}, "type conversion error"},
      {"double", {S("1_000")}, {}, "type conversion error"},
      {"double", {S("")}, {}, "type conversion error"},
      {"double", {S(".")}, {}, "type conversion error"},
      {"double", {S("+nan")}, {}, "type conversion error"},
      {"double", {D(5.5)}, D(5.5), nullptr},
      {"string", {I(123)}, S("123"), nullptr},
      {"string", {I(-456)}, S("-456"), nullptr},
      {"string", {U(9876)}, S("9876"), nullptr},
      {"string", {Bool(true)}, S("true"), nullptr},
      {"string", {Bool(false)}, S("false"), nullptr},
      {"string", {B("abc")}, S("abc"), nullptr},
      {"string", {B("\xc3\xbf")}, S("ÿ"), nullptr},
      {"string", {B(std::string_view("\x00\xff", 2))}, {}, "invalid UTF-8"},
      {"string", {S("hello")}, S("hello"), nullptr},
      {"bytes", {S("")}, B(""), nullptr},
      {"bytes", {S("ÿ")}, B("\xc3\xbf"), nullptr},
      {"bytes", {B("abc")}, B("abc"), nullptr},
      {"bool", {Bool(true)}, Bool(true), nullptr},
      {"dyn", {List({I(1), S("one")})}, List({I(1), S("one")}), nullptr},
  });
  // bytes('\377') (the code point) differs from b'\377' (the octet).
  EXPECT_FALSE(EqualBool(Call("bytes", {S("\u00ff")}), B("\xff")));
}

TEST(StandardLibraryTest, StringToBool) {
  for (const char* s : {"1", "t", "T", "true", "TRUE", "True"}) {
    EXPECT_TRUE(SameValue(Call("bool", {S(s)}), Bool(true))) << s;
  }
  for (const char* s : {"0", "f", "F", "false", "FALSE", "False"}) {
    EXPECT_TRUE(SameValue(Call("bool", {S(s)}), Bool(false))) << s;
  }
  for (const char* s : {"TrUe", "FaLsE", "yes", "", " true"}) {
    EXPECT_TRUE(IsErrorWith(Call("bool", {S(s)}), "type conversion error"))
        << s;
  }
}

TEST(StandardLibraryTest, DoubleToString) {
  const std::pair<double, const char*> cases[] = {
      {123.456, "123.456"},
      {-4.5e-3, "-0.0045"},
      {1.0, "1"},
      {0.0, "0"},
      {-0.0, "-0"},
      {100000.0, "100000"},
      {999999.0, "999999"},
      {1e6, "1e+06"},
      {1234567.0, "1.234567e+06"},
      {123456789.0, "1.23456789e+08"},
      {0.0001, "0.0001"},
      {0.00001, "1e-05"},
      {1.5e-5, "1.5e-05"},
      {1e21, "1e+21"},
      {1e100, "1e+100"},
      {5e-324, "5e-324"},
      {0.1, "0.1"},
      {1.0 / 3.0, "0.3333333333333333"},
      {9223372036854775808.0, "9.223372036854776e+18"},
      {NAN, "NaN"},
      {INFINITY, "+Inf"},
      {-INFINITY, "-Inf"},
  };
  for (const auto& [d, want] : cases) {
    EXPECT_EQ(FormatCelDouble(d), want);
    EXPECT_TRUE(SameValue(Call("string", {D(d)}), S(want)));
  }
}

TEST(StandardLibraryTest, TypeOf) {
  struct Case {
    Value v;
    std::string_view want;
  };
  const Case cases[] = {
      {Bool(true), "bool"},
      {I(0), "int"},
      {U(64), "uint"},
      {D(3.14), "double"},
      {Value::Null(), "null_type"},
      {S("foo"), "string"},
      {B("\xff"), "bytes"},
      {List({I(1)}), "list"},
      {Map({{I(4), I(16)}}), "map"},
      {Value::TypeValue(kIntTypeName), "type"},
      {Value::Duration(1), "google.protobuf.Duration"},
      {Value::Timestamp(1, 0), "google.protobuf.Timestamp"},
      {Value::OptionalNone(), "optional_type"},
  };
  for (const Case& c : cases) {
    Value got = Call("type", {c.v});
    ASSERT_EQ(got.kind(), ValueKind::kType) << c.v.DebugString();
    EXPECT_EQ(got.string_view(), c.want);
  }
  EXPECT_TRUE(EqualBool(Call("type", {I(7)}), Call("type", {I(-1)})));
  EXPECT_FALSE(EqualBool(Call("type", {I(7)}), Call("type", {U(7)})));
}

TEST(StandardLibraryTest, Utf8Validation) {
  EXPECT_TRUE(IsWellFormedUtf8(""));
  EXPECT_TRUE(IsWellFormedUtf8("abc ÿ Ω 🐱"));
  EXPECT_FALSE(IsWellFormedUtf8("\xff"));
  EXPECT_FALSE(IsWellFormedUtf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(IsWellFormedUtf8("\xe0\x80\xaf"));      // overlong
  EXPECT_FALSE(IsWellFormedUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(IsWellFormedUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(IsWellFormedUtf8("\xe2\x82"));          // truncated
  EXPECT_TRUE(IsWellFormedUtf8("\xf4\x8f\xbf\xbf"));   // U+10FFFF
}

}  // namespace
}  // namespace dralloc::cel
