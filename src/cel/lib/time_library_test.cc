
#include "cel/lib/time_library.h"

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cel/check/environment.h"
#include "cel/common/eval_context.h"
#include "cel/common/types.h"
#include "cel/lib/standard_library_test_util.h"
#include "cel/program.h"

namespace dralloc::cel {
namespace {

using std_lib_test::Call;
using std_lib_test::Eval;
using std_lib_test::IsErrorWith;
using std_lib_test::Registry;
using std_lib_test::Resolve;
using std_lib_test::S;

Value Ts(std::string_view text) {
  Value v = ParseTimestamp(text);
  EXPECT_FALSE(v.IsError()) << text << ": " << v.DebugString();
  return v;
}

Value Dur(std::string_view text) {
  Value v = ParseDuration(text);
  EXPECT_FALSE(v.IsError()) << text << ": " << v.DebugString();
  return v;
}

// ---- timestamps ----

TEST(TimeLibraryTest, ParseTimestamp) {
  struct Case {
    const char* text;
    int64_t seconds;
    int32_t nanos;
  };
  const Case cases[] = {
      {"1970-01-01T00:00:00Z", 0, 0},
      {"2009-02-13T23:31:30Z", 1234567890, 0},
      {"2004-09-16T23:59:59Z", 1095379199, 0},
      {"2009-02-13T23:31:20.123456789Z", 1234567880, 123456789},
      {"2009-02-13T23:31:30.5Z", 1234567890, 500000000},
      {"2009-02-13T23:31:30.1234567891Z", 1234567890, 123456789},
      {"2009-02-14T00:31:30+01:00", 1234567890, 0},
      {"2009-02-13T18:01:30-05:30", 1234567890, 0},
      {"2000-02-29T00:00:00Z", 951782400, 0},
      {"0001-01-01T00:00:00Z", kMinTimestampSeconds, 0},
      {"9999-12-31T23:59:59.999999999Z", kMaxTimestampSeconds, 999999999},
      {"1969-12-31T23:59:59.999Z", -1, 999000000},
  };
  for (const Case& c : cases) {
    Value v = ParseTimestamp(c.text);
    ASSERT_EQ(v.kind(), ValueKind::kTimestamp) << c.text << v.DebugString();
    EXPECT_EQ(v.timestamp_seconds(), c.seconds) << c.text;
    EXPECT_EQ(v.timestamp_nanos(), c.nanos) << c.text;
  }
}

TEST(TimeLibraryTest, ParseTimestampErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"0000-01-01T00:00:00Z", "timestamp overflow"},
      {"0001-01-01T00:00:00+00:01", "timestamp overflow"},
      {"9999-12-31T23:59:59-00:01", "timestamp overflow"},
      {"10000-01-01T00:00:00Z", "type conversion error"},
      {"2009-02-13", "type conversion error"},
      {"2009-02-13T23:31:30", "type conversion error"},
      {"2009-02-13 23:31:30Z", "type conversion error"},
      {"2009-02-29T00:00:00Z", "type conversion error"},
      {"2009-13-01T00:00:00Z", "type conversion error"},
      {"2009-02-13T24:00:00Z", "type conversion error"},
      {"2009-02-13T23:60:00Z", "type conversion error"},
      {"2009-02-13T23:59:60Z", "type conversion error"},
      {"2009-02-13T23:31:30.Z", "type conversion error"},
      {"2009-02-13T23:31:30+0100", "type conversion error"},
      {"2009-02-13T23:31:30ZZ", "type conversion error"},
      {"2009-2-13T23:31:30Z", "type conversion error"},
      {"", "type conversion error"},
  };
  for (const auto& [text, error] : cases) {
    EXPECT_TRUE(IsErrorWith(ParseTimestamp(text), error)) << text;
  }
}

TEST(TimeLibraryTest, FormatTimestamp) {
  const std::pair<const char*, const char*> cases[] = {
      {"2009-02-13T23:31:30Z", "2009-02-13T23:31:30Z"},
      {"9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59.999999999Z"},
      {"0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"},
      {"2009-02-13T23:31:30.500Z", "2009-02-13T23:31:30.5Z"},
      {"2009-02-13T23:31:30.000001Z", "2009-02-13T23:31:30.000001Z"},
      {"2009-02-14T01:31:30.120+02:00", "2009-02-13T23:31:30.12Z"},
      {"1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z"},
  };
  for (const auto& [text, want] : cases) {
    Value got = Call("string", {Ts(text)});
    ASSERT_EQ(got.kind(), ValueKind::kString) << text;
    EXPECT_EQ(got.string_view(), want);
  }
}

TEST(TimeLibraryTest, TimestampFromInt) {
  Value t = Call("timestamp", {Value::Int(1000000000)});
  ASSERT_EQ(t.kind(), ValueKind::kTimestamp);
  EXPECT_EQ(FormatTimestamp(t.timestamp_seconds(), t.timestamp_nanos()),
            "2001-09-09T01:46:40Z");
  EXPECT_TRUE(EqualBool(Call("timestamp", {t}), t));
  EXPECT_TRUE(
      IsErrorWith(Call("timestamp", {Value::Int(kMaxTimestampSeconds + 1)}),
                  "timestamp overflow"));
  EXPECT_TRUE(
      IsErrorWith(Call("timestamp", {Value::Int(kMinTimestampSeconds - 1)}),
                  "timestamp overflow"));
  EXPECT_FALSE(Call("timestamp", {Value::Int(kMinTimestampSeconds)}).IsError());
}

// ---- durations ----

TEST(TimeLibraryTest, ParseDuration) {
  constexpr int64_t kS = 1'000'000'000;
  const std::pair<const char*, int64_t> cases[] = {
      {"0", 0},
      {"-0", 0},
      {"0s", 0},
      {"5s", 5 * kS},
      {"+5s", 5 * kS},
      {"1000000s", 1000000 * kS},
      {"1h2m3.5s", 3723 * kS + kS / 2},
      {"-1.5h", -5400 * kS},
      {"300ms", 300'000'000},
      {"1us", 1'000},
      {"1\u00b5s", 1'000},
      {"1\u03bcs", 1'000},
      {"1ns", 1},
      {".5s", kS / 2},
      {"1.s", kS},
      {"1.0000000001s", kS},
      {"2h45m", 9900 * kS},
      {"1m1m", 120 * kS},
      {"123.321456789s", 123'321'456'789},
      {"9223372036854775807ns", std::numeric_limits<int64_t>::max()},
      {"-9223372036854775808ns", std::numeric_limits<int64_t>::min()},
      {"2562047h47m16.854775807s", std::numeric_limits<int64_t>::max()},
  };
  for (const auto& [text, nanos] : cases) {
    Value v = ParseDuration(text);
    ASSERT_EQ(v.kind(), ValueKind::kDuration) << text << v.DebugString();
    EXPECT_EQ(v.duration_nanos(), nanos) << text;
  }
  for (const char* bad :
       {"", "1", "s", ".s", "-", "1x", "1S", "1h-2m", "1.2.3s", "1 s",
        "9223372036854775808ns", "2562047h47m16.854775808s", "320000000000s",
        "-320000000000s", "1e3s", "1,5s", "inf"}) {
    EXPECT_TRUE(IsErrorWith(ParseDuration(bad), "type conversion error"))
        << bad;
  }
}

TEST(TimeLibraryTest, FormatDuration) {
  constexpr int64_t kS = 1'000'000'000;
  const std::pair<int64_t, const char*> cases[] = {
      {1000000 * kS, "1000000s"}, {0, "0s"},
      {kS + kS / 2, "1.5s"},      {-kS / 2, "-0.5s"},
      {-1, "-0.000000001s"},      {100'000'000, "0.1s"},
      {3600 * kS, "3600s"},       {123'321'456'789, "123.321456789s"},
  };
  for (const auto& [nanos, want] : cases) {
    EXPECT_EQ(FormatDuration(nanos), want);
    Value got = Call("string", {Value::Duration(nanos)});
    ASSERT_EQ(got.kind(), ValueKind::kString);
    EXPECT_EQ(got.string_view(), want);
  }
}

TEST(TimeLibraryTest, DurationAccessorsAreTotals) {
  EXPECT_EQ(Call("getHours", {Dur("10000s")}, true).int_value(), 2);
  EXPECT_EQ(Call("getMinutes", {Dur("3730s")}, true).int_value(), 62);
  EXPECT_EQ(Call("getSeconds", {Dur("3730s")}, true).int_value(), 3730);
  // cel-go returns total milliseconds (the cel-spec case expecting 321 is
  // skipped by cel-go).
  EXPECT_EQ(Call("getMilliseconds", {Dur("123.321456789s")}, true).int_value(),
            123321);
  EXPECT_EQ(Call("getHours", {Dur("-5400s")}, true).int_value(), -1);
  EXPECT_EQ(Call("getSeconds", {Dur("-1.5s")}, true).int_value(), -1);
  EXPECT_EQ(Call("getMilliseconds", {Dur("-1.5s")}, true).int_value(), -1500);
}

// ---- arithmetic (standard library operators over time values) ----

TEST(TimeLibraryTest, Arithmetic) {
  auto same = [](const Value& got, const Value& want) {
    return got.kind() == want.kind() && EqualBool(got, want);
  };
  EXPECT_TRUE(same(Call("_+_", {Ts("2009-02-13T23:00:00Z"), Dur("240s")}),
                   Ts("2009-02-13T23:04:00Z")));
  EXPECT_TRUE(same(Call("_+_", {Dur("120s"), Ts("2009-02-13T23:01:00Z")}),
                   Ts("2009-02-13T23:03:00Z")));
  EXPECT_TRUE(same(Call("_+_", {Dur("600s"), Dur("50s")}), Dur("650s")));
  EXPECT_TRUE(same(
      Call("_+_", {Ts("0001-01-01T00:00:01.000000001Z"), Dur("-999999999ns")}),
      Ts("0001-01-01T00:00:00.000000002Z")));
  EXPECT_TRUE(same(
      Call("_+_", {Ts("0001-01-01T00:00:01.999999999Z"), Dur("999999999ns")}),
      Ts("0001-01-01T00:00:02.999999998Z")));
  EXPECT_TRUE(same(Call("_-_", {Ts("2009-02-13T23:10:00Z"), Dur("600s")}),
                   Ts("2009-02-13T23:00:00Z")));
  EXPECT_TRUE(same(
      Call("_-_", {Ts("2009-02-13T23:31:00Z"), Ts("2009-02-13T23:29:00Z")}),
      Dur("120s")));
  EXPECT_TRUE(same(Call("_-_", {Ts("1970-01-01T00:00:00.25Z"),
                                Ts("1970-01-01T00:00:01.5Z")}),
                   Dur("-1.25s")));
  EXPECT_TRUE(same(Call("_-_", {Dur("900s"), Dur("42s")}), Dur("858s")));

  const std::pair<std::vector<Value>, const char*> overflows[] = {
      {{Ts("0001-01-01T00:00:00Z"), Dur("-1s")}, "timestamp overflow"},
      {{Ts("9999-12-31T23:59:59Z"), Dur("1s")}, "timestamp overflow"},
      {{Ts("9999-12-31T23:59:59.999999999Z"), Dur("1ns")},
       "timestamp overflow"},
      {{Ts("0001-01-01T00:00:00Z"), Dur("-1ns")}, "timestamp overflow"},
      {{Dur("2562047h"), Dur("2562047h")}, "integer overflow"},
      {{Dur("-2562047h"), Dur("-2562047h")}, "integer overflow"},
  };
  for (const auto& [args, error] : overflows) {
    EXPECT_TRUE(IsErrorWith(Call("_+_", args), error))
        << args[0].DebugString() << " + " << args[1].DebugString();
  }
  EXPECT_TRUE(IsErrorWith(
      Call("_-_", {Ts("9999-12-31T23:59:59Z"), Ts("0001-01-01T00:00:00Z")}),
      "integer overflow"));
  EXPECT_TRUE(IsErrorWith(
      Call("_-_", {Ts("0001-01-01T00:00:00Z"), Ts("9999-12-31T23:59:59Z")}),
      "integer overflow"));
  EXPECT_TRUE(IsErrorWith(Call("_-_", {Dur("-2562047h"), Dur("2562047h")}),
                          "integer overflow"));
  EXPECT_TRUE(IsErrorWith(
      Call("_-_", {Ts("2009-02-13T23:10:00Z"),
                   Value::Duration(std::numeric_limits<int64_t>::min())}),
      "overflow"));
}

// ---- accessors ----

struct AccessorCase {
  const char* timestamp;
  const char* function;
  const char* zone;  // nullptr: the UTC form without an argument
  int64_t want;
};

TEST(TimeLibraryTest, TimestampAccessors) {
  const AccessorCase cases[] = {
      // cel-spec timestamps/timestamp_selectors.
      {"2009-02-13T23:31:30Z", "getDate", nullptr, 13},
      {"2009-02-13T23:31:30Z", "getDayOfMonth", nullptr, 12},
      {"2009-02-13T23:31:30Z", "getDayOfWeek", nullptr, 5},
      {"2009-02-13T23:31:30Z", "getDayOfYear", nullptr, 43},
      {"2009-02-13T23:31:30Z", "getFullYear", nullptr, 2009},
      {"2009-02-13T23:31:30Z", "getHours", nullptr, 23},
      {"2009-02-13T23:31:20.123456789Z", "getMilliseconds", nullptr, 123},
      {"2009-02-13T23:31:30Z", "getMinutes", nullptr, 31},
      {"2009-02-13T23:31:30Z", "getMonth", nullptr, 1},
      {"2009-02-13T23:31:30Z", "getSeconds", nullptr, 30},
      // cel-spec timestamps/timestamp_selectors_tz.
      {"2009-02-13T23:31:30Z", "getDate", "Australia/Sydney", 14},
      {"2009-02-13T23:31:30Z", "getDayOfMonth", "US/Central", 12},
      {"2009-02-13T23:31:30Z", "getDayOfMonth", "+11:00", 13},
      {"2009-02-13T02:00:00Z", "getDayOfMonth", "-02:30", 11},
      {"2009-02-13T02:00:00Z", "getDayOfMonth", "America/St_Johns", 11},
      {"2009-02-13T23:31:30Z", "getDayOfWeek", "UTC", 5},
      {"2009-02-13T23:31:30Z", "getDayOfYear", "US/Central", 43},
      {"2009-02-13T23:31:30Z", "getFullYear", "-09:30", 2009},
      {"2009-02-13T23:31:30Z", "getHours", "02:00", 1},
      {"2009-02-13T23:31:30Z", "getMinutes", "Asia/Kathmandu", 16},
      {"2009-02-13T23:31:30Z", "getMonth", "UTC", 1},
      {"2009-02-13T23:31:30Z", "getSeconds", "-00:00", 30},
      // More zones and edges.
      {"2009-02-13T23:31:30Z", "getHours", "America/Los_Angeles", 15},
      {"2009-07-13T23:31:30Z", "getHours", "America/Los_Angeles", 16},
      {"2009-02-13T23:31:30Z", "getHours", "+05:30", 5},
      {"2009-02-13T23:31:30Z", "getMinutes", "+05:30", 1},
      {"2009-02-13T23:31:30Z", "getMinutes", "-05:30", 1},
      {"2009-02-13T23:31:30Z", "getHours", "-05:30", 18},
      {"2009-02-13T23:31:30Z", "getHours", "", 23},
      {"2009-12-31T23:59:59Z", "getDayOfYear", nullptr, 364},
      {"2008-12-31T23:59:59Z", "getDayOfYear", nullptr, 365},
      {"2009-12-31T23:59:59Z", "getFullYear", "+01:00", 2010},
      {"2009-12-31T23:59:59Z", "getMonth", "+01:00", 0},
      {"2009-02-15T12:00:00Z", "getDayOfWeek", nullptr, 0},
      {"2009-02-14T12:00:00Z", "getDayOfWeek", nullptr, 6},
      {"2009-02-16T12:00:00Z", "getDayOfWeek", nullptr, 1},
      {"0001-01-01T00:00:00Z", "getFullYear", nullptr, 1},
      {"0001-01-01T00:00:00Z", "getDayOfWeek", nullptr, 1},
      {"9999-12-31T23:59:59.999Z", "getMilliseconds", "Europe/Berlin", 999},
      {"1969-12-31T23:59:59.5Z", "getSeconds", nullptr, 59},
  };
  for (const AccessorCase& c : cases) {
    std::vector<Value> args = {Ts(c.timestamp)};
    if (c.zone != nullptr) args.push_back(S(c.zone));
    Value got = Call(c.function, args, /*member=*/true);
    ASSERT_EQ(got.kind(), ValueKind::kInt)
        << c.timestamp << "." << c.function << "(" << (c.zone ? c.zone : "")
        << ") = " << got.DebugString();
    EXPECT_EQ(got.int_value(), c.want) << c.timestamp << "." << c.function
                                       << "(" << (c.zone ? c.zone : "") << ")";
  }
}

TEST(TimeLibraryTest, InvalidTimeZones) {
  Value t = Ts("2009-02-13T23:31:30Z");
  for (const char* zone :
       {"Mars/Olympus_Mons", "../../etc/passwd", "/etc/localtime",
        "libc:localtime", "+05:60", "+05:-1", "x:00", ":30", "05:"}) {
    EXPECT_TRUE(Call("getHours", {t, S(zone)}, true).IsError()) << zone;
  }
  EXPECT_TRUE(IsErrorWith(Call("getHours", {t, S("Mars/Olympus_Mons")}, true),
                          "unknown time zone Mars/Olympus_Mons"));
}

TEST(TimeLibraryTest, PreparedZone) {
  const Overload* o = nullptr;
  for (const Overload* c : Registry().Find("getHours", true)) {
    if (c->id == "timestamp_to_hours_with_tz") o = c;
  }
  ASSERT_NE(o, nullptr);
  ASSERT_NE(o->prepare, nullptr);
  Value zone = S("Asia/Kolkata");
  std::vector<const Value*> constants = {nullptr, &zone};
  auto state = o->prepare(constants);
  ASSERT_TRUE(state.ok());
  ASSERT_NE(*state, nullptr);
  EvalContext eval;
  CallContext ctx{&eval, state->get()};
  std::vector<Value> args = {Ts("2009-02-13T23:31:30Z"), zone};
  EXPECT_EQ(o->impl(ctx, args).int_value(), 5);
  // An unknown constant zone is not a compile error (cel-go checks at
  // runtime).
  Value bad = S("Nowhere/Nothing");
  std::vector<const Value*> bad_constants = {nullptr, &bad};
  auto none = o->prepare(bad_constants);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

TEST(TimeLibraryTest, PreparedLiterals) {
  auto find = [](std::string_view function, std::string_view id) {
    for (const Overload* o : Registry().Find(function, false)) {
      if (o->id == id) return o;
    }
    return static_cast<const Overload*>(nullptr);
  };
  const Overload* duration = find("duration", "string_to_duration");
  const Overload* timestamp = find("timestamp", "string_to_timestamp");
  ASSERT_NE(duration, nullptr);
  ASSERT_NE(timestamp, nullptr);

  Value bad_duration = S("1hour");
  std::vector<const Value*> c1 = {&bad_duration};
  auto s1 = duration->prepare(c1);
  ASSERT_FALSE(s1.ok());
  EXPECT_EQ(s1.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s1.status().message().find("invalid duration argument"),
            std::string::npos);

  Value bad_timestamp = S("0000-01-01T00:00:00Z");
  std::vector<const Value*> c2 = {&bad_timestamp};
  auto s2 = timestamp->prepare(c2);
  ASSERT_FALSE(s2.ok());
  EXPECT_NE(s2.status().message().find("invalid timestamp argument"),
            std::string::npos);

  Value good = S("1.5s");
  std::vector<const Value*> c3 = {&good};
  auto s3 = duration->prepare(c3);
  ASSERT_TRUE(s3.ok());
  ASSERT_NE(*s3, nullptr);
  EvalContext eval;
  CallContext ctx{&eval, s3->get()};
  std::vector<Value> args = {good};
  EXPECT_EQ(duration->impl(ctx, args).duration_nanos(), 1'500'000'000);

  std::vector<const Value*> none = {nullptr};
  auto s4 = duration->prepare(none);
  ASSERT_TRUE(s4.ok());
  EXPECT_EQ(*s4, nullptr);
}

// ---- whole expressions ----

TEST(TimeLibraryExprTest, Expressions) {
  const std::pair<const char*, bool> true_cases[] = {
      {"int(timestamp('2009-02-13T23:31:30Z')) == 1234567890", true},
      {"string(timestamp('2009-02-13T23:31:30Z')) == '2009-02-13T23:31:30Z'",
       true},
      {"string(duration('1000000s')) == '1000000s'", true},
      {"type(timestamp('2009-02-13T23:31:30Z')) == google.protobuf.Timestamp",
       true},
      {"type(duration('1s')) == google.protobuf.Duration", true},
      {"timestamp('2009-02-13T23:00:00Z') + duration('240s') == "
       "timestamp('2009-02-13T23:04:00Z')",
       true},
      {"duration('120s') + timestamp('2009-02-13T23:01:00Z') == "
       "timestamp('2009-02-13T23:03:00Z')",
       true},
      {"timestamp('2009-02-13T23:31:00Z') - timestamp('2009-02-13T23:29:00Z') "
       "== duration('120s')",
       true},
      {"timestamp('2009-02-13T23:00:00Z') < timestamp('2009-03-13T23:00:00Z')",
       true},
      {"duration('300s') > duration('200s')", true},
      {"duration('1h2m3.5s') == duration('3723.5s')", true},
      {"timestamp('2009-02-13T23:31:30Z').getDate('Australia/Sydney') == 14",
       true},
      {"timestamp('2009-02-13T23:31:30Z').getHours('02:00') == 1", true},
      {"duration('10000s').getHours() == 2", true},
      {"timestamp(timestamp(1000000000)) == timestamp(1000000000)", true},
      {"duration(duration('100s')) == duration('100s')", true},
      {"timestamp(dyn('2009-02-13T23:31:30Z')).getFullYear() == 2009", true},
  };
  for (const auto& [expr, want] : true_cases) {
    Value got = Eval(expr);
    EXPECT_TRUE(got.IsBool() && got.bool_value() == want)
        << expr << " = " << got.DebugString();
  }
  const std::pair<const char*, const char*> error_cases[] = {
      {"timestamp('9999-12-31T23:59:59Z') + duration('1s')",
       "timestamp overflow"},
      {"timestamp('9999-12-31T23:59:59Z') - timestamp('0001-01-01T00:00:00Z')",
       "overflow"},
      {"duration(dyn('-320000000000s'))", "type conversion error"},
      {"timestamp(dyn('0000-01-01T00:00:00Z'))", "timestamp overflow"},
      // Invalid literals fail compilation (ValidateDurationLiterals...).
      {"duration('1hour')", "invalid duration argument"},
      {"timestamp('2009-02-30T00:00:00Z')", "invalid timestamp argument"},
      {"timestamp('2009-02-13T23:31:30Z').getHours('Nowhere/Nothing')",
       "unknown time zone"},
  };
  for (const auto& [expr, error] : error_cases) {
    EXPECT_TRUE(IsErrorWith(Eval(expr), error)) << expr;
  }
}

}  // namespace
}  // namespace dralloc::cel
