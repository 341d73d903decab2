#include "cel/lib/time_library.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "cel/common/types.h"
#include "fmt/format.h"

namespace dralloc::cel {

namespace {

using Args = std::span<const Value>;

constexpr int64_t kNanosPerSecond = 1'000'000'000;

Value TimestampOverflow() { return Value::Error("timestamp overflow"); }

Value ConversionError(std::string_view to) {
  return Value::Error(fmt::format("type conversion error from '{}' to '{}'",
                                  kStringTypeName, to));
}

// ---- RFC 3339 ----

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads s[pos, pos + n) as a decimal number within [lo, hi].
bool ReadNumber(std::string_view s, size_t pos, size_t n, int lo, int hi,
                int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!IsDigit(s[i])) return false;
    v = v * 10 + (s[i] - '0');
  }
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool IsLeapYear(int y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// Parses "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)" the way Go's
// time.Parse(time.RFC3339, ...) does: fields are range checked (day against
// the month), fractions of any length are truncated to nanoseconds, and the
// offset is applied. Returns false for malformed text.
bool ParseRfc3339(std::string_view s, int64_t* seconds, int32_t* nanos) {
  if (s.size() < 20) return false;
  if (s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
      s[16] != ':') {
    return false;
  }
  int year, month, day, hour, minute, second;
  if (!ReadNumber(s, 0, 4, 0, 9999, &year) ||
      !ReadNumber(s, 5, 2, 1, 12, &month) ||
      !ReadNumber(s, 8, 2, 1, DaysInMonth(year, month), &day) ||
      !ReadNumber(s, 11, 2, 0, 23, &hour) ||
      !ReadNumber(s, 14, 2, 0, 59, &minute) ||
      !ReadNumber(s, 17, 2, 0, 59, &second)) {
    return false;
  }
  std::string_view rest = s.substr(19);
  int32_t fraction = 0;
  if (rest.size() >= 2 && rest[0] == '.' && IsDigit(rest[1])) {
    size_t n = 1;
    while (n < rest.size() && IsDigit(rest[n])) ++n;
    // Digits beyond the ninth are dropped.
    for (size_t i = 1; i <= 9; ++i) {
      fraction = fraction * 10 + (i < n ? rest[i] - '0' : 0);
    }
    rest.remove_prefix(n);
  }
  int64_t offset = 0;
  if (rest != "Z") {
    int oh, om;
    if (rest.size() != 6 || (rest[0] != '+' && rest[0] != '-') ||
        rest[3] != ':' || !ReadNumber(rest, 1, 2, 0, 24, &oh) ||
        !ReadNumber(rest, 4, 2, 0, 60, &om)) {
      return false;
    }
    offset = (oh * 60 + om) * 60;
    if (rest[0] == '-') offset = -offset;
  }
  absl::CivilSecond civil(year, month, day, hour, minute, second);
  *seconds =
      absl::ToUnixSeconds(absl::FromCivil(civil, absl::UTCTimeZone())) - offset;
  *nanos = fraction;
  return true;
}

// ---- Go durations ----

// time.ParseDuration's leading integer: digits with overflow above 2^63.
bool LeadingInt(std::string_view* s, uint64_t* out) {
  uint64_t x = 0;
  size_t i = 0;
  for (; i < s->size() && IsDigit((*s)[i]); ++i) {
    if (x > (uint64_t{1} << 63) / 10) return false;
    x = x * 10 + static_cast<uint64_t>((*s)[i] - '0');
    if (x > (uint64_t{1} << 63)) return false;
  }
  *out = x;
  s->remove_prefix(i);
  return true;
}

// time.ParseDuration's fraction: digits kept while they fit, with the scale.
void LeadingFraction(std::string_view* s, uint64_t* out, double* scale) {
  uint64_t x = 0;
  *scale = 1;
  bool overflow = false;
  size_t i = 0;
  for (; i < s->size() && IsDigit((*s)[i]); ++i) {
    if (overflow) continue;
    if (x > (std::numeric_limits<int64_t>::max()) / 10) {
      overflow = true;
      continue;
    }
    uint64_t y = x * 10 + static_cast<uint64_t>((*s)[i] - '0');
    if (y > (uint64_t{1} << 63)) {
      overflow = true;
      continue;
    }
    x = y;
    *scale *= 10;
  }
  *out = x;
  s->remove_prefix(i);
}

bool DurationUnit(std::string_view unit, uint64_t* nanos) {
  if (unit == "ns") {
    *nanos = 1;
  } else if (unit == "us" || unit == "\u00b5s" || unit == "\u03bcs") {
    *nanos = 1'000;
  } else if (unit == "ms") {
    *nanos = 1'000'000;
  } else if (unit == "s") {
    *nanos = 1'000'000'000;
  } else if (unit == "m") {
    *nanos = 60 * uint64_t{1'000'000'000};
  } else if (unit == "h") {
    *nanos = 3600 * uint64_t{1'000'000'000};
  } else {
    return false;
  }
  return true;
}

// Go's time.ParseDuration: "[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+", or "0".
bool ParseGoDuration(std::string_view s, int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") {
    *out = 0;
    return true;
  }
  if (s.empty()) return false;
  constexpr uint64_t kLimit = uint64_t{1} << 63;
  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || IsDigit(s[0]))) return false;
    size_t before = s.size();
    uint64_t whole;
    if (!LeadingInt(&s, &whole)) return false;
    bool has_whole = s.size() != before;
    uint64_t fraction = 0;
    double scale = 1;
    bool has_fraction = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      size_t fraction_start = s.size();
      LeadingFraction(&s, &fraction, &scale);
      has_fraction = s.size() != fraction_start;
    }
    if (!has_whole && !has_fraction) return false;
    size_t i = 0;
    while (i < s.size() && s[i] != '.' && !IsDigit(s[i])) ++i;
    if (i == 0) return false;  // missing unit
    uint64_t unit;
    if (!DurationUnit(s.substr(0, i), &unit)) return false;
    s.remove_prefix(i);
    if (whole > kLimit / unit) return false;
    uint64_t v = whole * unit;
    if (fraction > 0) {
      v += static_cast<uint64_t>(static_cast<double>(fraction) *
                                 (static_cast<double>(unit) / scale));
      if (v > kLimit) return false;
    }
    total += v;
    if (total > kLimit) return false;
  }
  if (negative) {
    *out = static_cast<int64_t>(0 - total);  // total <= 2^63
    return true;
  }
  if (total > kLimit - 1) return false;
  *out = static_cast<int64_t>(total);
  return true;
}

// ---- time zones ----

// A resolved time zone argument: a fixed offset or a tz database zone.
struct Zone {
  bool fixed = true;
  int64_t offset_seconds = 0;
  absl::TimeZone tz;
};

bool ParseGoAtoi(std::string_view s, int64_t* out) {
  std::string_view digits = s;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty() || digits.size() > 7) return false;  // |v| < 10^7
  int64_t v = 0;
  for (char c : digits) {
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *out = negative ? -v : v;
  return true;
}

// cel-go's time zone argument: with a ':' it is an offset "[+-]HH:MM" (the
// minutes subtract for a leading '-'); otherwise a location name for Go's
// time.LoadLocation ("" and "UTC" are UTC).
bool ResolveZone(std::string_view name, Zone* zone, std::string* error) {
  size_t colon = name.find(':');
  if (colon != std::string_view::npos) {
    int64_t hours, minutes;
    if (!ParseGoAtoi(name.substr(0, colon), &hours) ||
        !ParseGoAtoi(name.substr(colon + 1), &minutes)) {
      *error = fmt::format("invalid time zone offset: {}", name);
      return false;
    }
    if (minutes < 0 || minutes > 59) {
      *error =
          fmt::format("timezone offset minutes out of range [0, 59]: {}", name);
      return false;
    }
    int64_t offset_minutes =
        name[0] == '-' ? hours * 60 - minutes : hours * 60 + minutes;
    zone->fixed = true;
    zone->offset_seconds = offset_minutes * 60;
    return true;
  }
  if (name.empty() || name == "UTC") {
    zone->fixed = true;
    zone->offset_seconds = 0;
    return true;
  }
  if (name == "Local") {
    zone->fixed = false;
    zone->tz = absl::LocalTimeZone();
    return true;
  }
  // Only plain tz database names: no paths and none of the tz library's
  // special forms.
  bool valid = name[0] != '/' && name[0] != '\\' &&
               name.find("..") == std::string_view::npos &&
               !name.starts_with("libc:") && !name.starts_with("Fixed/");
  if (!valid || !absl::LoadTimeZone(std::string(name), &zone->tz)) {
    *error = fmt::format("unknown time zone {}", name);
    return false;
  }
  zone->fixed = false;
  return true;
}

absl::CivilSecond ToCivil(const Value& ts, const Zone& zone) {
  if (zone.fixed) {
    return absl::ToCivilSecond(
        absl::FromUnixSeconds(ts.timestamp_seconds() + zone.offset_seconds),
        absl::UTCTimeZone());
  }
  return absl::ToCivilSecond(absl::FromUnixSeconds(ts.timestamp_seconds()),
                             zone.tz);
}

enum class Field {
  kFullYear,
  kMonth,
  kDayOfYear,
  kDayOfMonth,
  kDate,
  kDayOfWeek,
  kHours,
  kMinutes,
  kSeconds,
  kMilliseconds,
};

int64_t TimestampField(const Value& ts, const Zone& zone, Field field) {
  if (field == Field::kMilliseconds) return ts.timestamp_nanos() / 1'000'000;
  absl::CivilSecond c = ToCivil(ts, zone);
  switch (field) {
    case Field::kFullYear:
      return c.year();
    case Field::kMonth:
      return c.month() - 1;
    case Field::kDayOfYear:
      return absl::GetYearDay(absl::CivilDay(c)) - 1;
    case Field::kDayOfMonth:
      return c.day() - 1;
    case Field::kDate:
      return c.day();
    case Field::kDayOfWeek:
      // absl counts from Monday = 0; CEL from Sunday = 0.
      return (static_cast<int>(absl::GetWeekday(absl::CivilDay(c))) + 1) % 7;
    case Field::kHours:
      return c.hour();
    case Field::kMinutes:
      return c.minute();
    case Field::kSeconds:
      return c.second();
    case Field::kMilliseconds:
      break;
  }
  return 0;
}

template <Field kField>
Value TimestampAccessor(const CallContext&, Args a) {
  static const Zone kUtc;
  return Value::Int(TimestampField(a[0], kUtc, kField));
}

template <Field kField>
Value TimestampAccessorWithZone(const CallContext& ctx, Args a) {
  if (ctx.prepared != nullptr) {
    return Value::Int(
        TimestampField(a[0], *static_cast<const Zone*>(ctx.prepared), kField));
  }
  Zone zone;
  std::string error;
  if (!ResolveZone(a[1].string_view(), &zone, &error)) {
    return Value::Error(std::move(error));
  }
  return Value::Int(TimestampField(a[0], zone, kField));
}

// A constant zone is resolved once. An unknown zone is left to fail at
// runtime, as in cel-go (no compile-time validation of zone literals).
StatusOr<std::shared_ptr<const void>> PrepareZone(
    std::span<const Value* const> constants) {
  if (constants.size() != 2 || constants[1] == nullptr ||
      constants[1]->kind() != ValueKind::kString) {
    return std::shared_ptr<const void>();
  }
  auto zone = std::make_shared<Zone>();
  std::string error;
  if (!ResolveZone(constants[1]->string_view(), zone.get(), &error)) {
    return std::shared_ptr<const void>();
  }
  return std::shared_ptr<const void>(std::move(zone));
}

// Go's Duration.Hours/Minutes/Seconds: whole units plus the remainder as a
// float, then truncated by the int conversion.
int64_t DurationInUnits(int64_t nanos, int64_t unit) {
  int64_t whole = nanos / unit;
  int64_t rest = nanos % unit;
  double v = static_cast<double>(whole) +
             static_cast<double>(rest) / static_cast<double>(unit);
  return static_cast<int64_t>(v);
}

Value DurationHours(const CallContext&, Args a) {
  return Value::Int(
      DurationInUnits(a[0].duration_nanos(), 3600 * kNanosPerSecond));
}
Value DurationMinutes(const CallContext&, Args a) {
  return Value::Int(
      DurationInUnits(a[0].duration_nanos(), 60 * kNanosPerSecond));
}
Value DurationSeconds(const CallContext&, Args a) {
  return Value::Int(DurationInUnits(a[0].duration_nanos(), kNanosPerSecond));
}
Value DurationMilliseconds(const CallContext&, Args a) {
  return Value::Int(a[0].duration_nanos() / 1'000'000);
}

// ---- constructors and conversions ----

Value StringToTimestamp(const CallContext& ctx, Args a) {
  if (ctx.prepared != nullptr) return *static_cast<const Value*>(ctx.prepared);
  return ParseTimestamp(a[0].string_view());
}

Value IntToTimestamp(const CallContext&, Args a) {
  int64_t s = a[0].int_value();
  if (s < kMinTimestampSeconds || s > kMaxTimestampSeconds) {
    return TimestampOverflow();
  }
  return Value::Timestamp(s, 0);
}

Value Identity(const CallContext&, Args a) { return a[0]; }

Value StringToDuration(const CallContext& ctx, Args a) {
  if (ctx.prepared != nullptr) return *static_cast<const Value*>(ctx.prepared);
  return ParseDuration(a[0].string_view());
}

Value TimestampToString(const CallContext&, Args a) {
  return Value::String(
      FormatTimestamp(a[0].timestamp_seconds(), a[0].timestamp_nanos()));
}

Value DurationToString(const CallContext&, Args a) {
  return Value::String(FormatDuration(a[0].duration_nanos()));
}

// Parses a constant literal once; an invalid one fails compilation.
template <Value (*kParse)(std::string_view), const char* kFunction>
StatusOr<std::shared_ptr<const void>> PrepareLiteral(
    std::span<const Value* const> constants) {
  if (constants.size() != 1 || constants[0] == nullptr ||
      constants[0]->kind() != ValueKind::kString) {
    return std::shared_ptr<const void>();
  }
  Value v = kParse(constants[0]->string_view());
  if (v.IsError()) {
    return InvalidArgumentError(
        fmt::format("invalid {} argument: {}", kFunction, v.error_message()));
  }
  return std::shared_ptr<const void>(std::make_shared<const Value>(v));
}

constexpr char kTimestampFunction[] = "timestamp";
constexpr char kDurationFunction[] = "duration";

void RegisterConversions(FunctionRegistry& r) {
  const Type s = Type::String(), ts = Type::Timestamp(), du = Type::Duration();
  r.Add({.id = "string_to_timestamp",
         .function = "timestamp",
         .params = {s},
         .result = ts,
         .impl = StringToTimestamp,
         .prepare = PrepareLiteral<ParseTimestamp, kTimestampFunction>});
  r.Add({.id = "int64_to_timestamp",
         .function = "timestamp",
         .params = {Type::Int()},
         .result = ts,
         .impl = IntToTimestamp});
  r.Add({.id = "timestamp_to_timestamp",
         .function = "timestamp",
         .params = {ts},
         .result = ts,
         .impl = Identity});
  r.Add({.id = "string_to_duration",
         .function = "duration",
         .params = {s},
         .result = du,
         .impl = StringToDuration,
         .prepare = PrepareLiteral<ParseDuration, kDurationFunction>});
  r.Add({.id = "duration_to_duration",
         .function = "duration",
         .params = {du},
         .result = du,
         .impl = Identity});
  r.Add({.id = "timestamp_to_string",
         .function = "string",
         .params = {ts},
         .result = s,
         .impl = TimestampToString});
  r.Add({.id = "duration_to_string",
         .function = "string",
         .params = {du},
         .result = s,
         .impl = DurationToString});
}

void RegisterAccessors(FunctionRegistry& r) {
  const Type ts = Type::Timestamp(), du = Type::Duration(), s = Type::String();
  const Type i = Type::Int();
  struct Accessor {
    const char* function;
    const char* id;
    const char* id_with_tz;
    FunctionImpl impl;
    FunctionImpl impl_with_tz;
  };
  const Accessor accessors[] = {
      {"getFullYear", "timestamp_to_year", "timestamp_to_year_with_tz",
       TimestampAccessor<Field::kFullYear>,
       TimestampAccessorWithZone<Field::kFullYear>},
      {"getMonth", "timestamp_to_month", "timestamp_to_month_with_tz",
       TimestampAccessor<Field::kMonth>,
       TimestampAccessorWithZone<Field::kMonth>},
      {"getDayOfYear", "timestamp_to_day_of_year",
       "timestamp_to_day_of_year_with_tz", TimestampAccessor<Field::kDayOfYear>,
       TimestampAccessorWithZone<Field::kDayOfYear>},
      {"getDayOfMonth", "timestamp_to_day_of_month",
       "timestamp_to_day_of_month_with_tz",
       TimestampAccessor<Field::kDayOfMonth>,
       TimestampAccessorWithZone<Field::kDayOfMonth>},
      {"getDate", "timestamp_to_day_of_month_1_based",
       "timestamp_to_day_of_month_1_based_with_tz",
       TimestampAccessor<Field::kDate>,
       TimestampAccessorWithZone<Field::kDate>},
      {"getDayOfWeek", "timestamp_to_day_of_week",
       "timestamp_to_day_of_week_with_tz", TimestampAccessor<Field::kDayOfWeek>,
       TimestampAccessorWithZone<Field::kDayOfWeek>},
      {"getHours", "timestamp_to_hours", "timestamp_to_hours_with_tz",
       TimestampAccessor<Field::kHours>,
       TimestampAccessorWithZone<Field::kHours>},
      {"getMinutes", "timestamp_to_minutes", "timestamp_to_minutes_with_tz",
       TimestampAccessor<Field::kMinutes>,
       TimestampAccessorWithZone<Field::kMinutes>},
      // "timestamp_to_seconds_tz" is cel-go's spelling.
      {"getSeconds", "timestamp_to_seconds", "timestamp_to_seconds_tz",
       TimestampAccessor<Field::kSeconds>,
       TimestampAccessorWithZone<Field::kSeconds>},
      {"getMilliseconds", "timestamp_to_milliseconds",
       "timestamp_to_milliseconds_with_tz",
       TimestampAccessor<Field::kMilliseconds>,
       TimestampAccessorWithZone<Field::kMilliseconds>},
  };
  for (const Accessor& a : accessors) {
    r.Add({.id = a.id,
           .function = a.function,
           .member = true,
           .params = {ts},
           .result = i,
           .impl = a.impl});
    r.Add({.id = a.id_with_tz,
           .function = a.function,
           .member = true,
           .params = {ts, s},
           .result = i,
           .impl = a.impl_with_tz,
           .prepare = PrepareZone});
  }
  r.Add({.id = "duration_to_hours",
         .function = "getHours",
         .member = true,
         .params = {du},
         .result = i,
         .impl = DurationHours});
  r.Add({.id = "duration_to_minutes",
         .function = "getMinutes",
         .member = true,
         .params = {du},
         .result = i,
         .impl = DurationMinutes});
  r.Add({.id = "duration_to_seconds",
         .function = "getSeconds",
         .member = true,
         .params = {du},
         .result = i,
         .impl = DurationSeconds});
  r.Add({.id = "duration_to_milliseconds",
         .function = "getMilliseconds",
         .member = true,
         .params = {du},
         .result = i,
         .impl = DurationMilliseconds});
}

}  // namespace

Value ParseTimestamp(std::string_view text) {
  int64_t seconds;
  int32_t nanos;
  if (!ParseRfc3339(text, &seconds, &nanos)) {
    return ConversionError(kTimestampTypeName);
  }
  if (seconds < kMinTimestampSeconds || seconds > kMaxTimestampSeconds) {
    return TimestampOverflow();
  }
  return Value::Timestamp(seconds, nanos);
}

Value ParseDuration(std::string_view text) {
  int64_t nanos;
  if (!ParseGoDuration(text, &nanos)) {
    return ConversionError(kDurationTypeName);
  }
  return Value::Duration(nanos);
}

std::string FormatTimestamp(int64_t seconds, int32_t nanos) {
  absl::CivilSecond c =
      absl::ToCivilSecond(absl::FromUnixSeconds(seconds), absl::UTCTimeZone());
  std::string out =
      fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", c.year(), c.month(),
                  c.day(), c.hour(), c.minute(), c.second());
  if (nanos > 0) {
    std::string fraction = fmt::format("{:09}", nanos);
    while (fraction.back() == '0') fraction.pop_back();
    out += '.';
    out += fraction;
  }
  out += 'Z';
  return out;
}

std::string FormatDuration(int64_t nanos) {
  // Go: strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s".
  double seconds = static_cast<double>(nanos / kNanosPerSecond) +
                   static_cast<double>(nanos % kNanosPerSecond) / 1e9;
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), seconds,
                                 std::chars_format::fixed);
  std::string out(buffer, static_cast<size_t>(end - buffer));
  out += 's';
  return out;
}

Value AddTimestampDuration(const Value& timestamp, int64_t nanos) {
  // Whole seconds and a remainder in (-1e9, 1e9): no overflow is possible
  // because both operands are bounded far below the int64 limits.
  int64_t seconds = timestamp.timestamp_seconds() + nanos / kNanosPerSecond;
  int64_t n = timestamp.timestamp_nanos() + nanos % kNanosPerSecond;
  if (n < 0) {
    n += kNanosPerSecond;
    seconds -= 1;
  } else if (n >= kNanosPerSecond) {
    n -= kNanosPerSecond;
    seconds += 1;
  }
  if (seconds < kMinTimestampSeconds || seconds > kMaxTimestampSeconds) {
    return TimestampOverflow();
  }
  return Value::Timestamp(seconds, static_cast<int32_t>(n));
}

Value SubtractTimestamps(const Value& a, const Value& b) {
  int64_t seconds = a.timestamp_seconds() - b.timestamp_seconds();
  int64_t nanos = int64_t{a.timestamp_nanos()} - b.timestamp_nanos();
  int64_t scaled, total;
  if (__builtin_mul_overflow(seconds, kNanosPerSecond, &scaled) ||
      __builtin_add_overflow(scaled, nanos, &total)) {
    return IntOverflow();
  }
  return Value::Duration(total);
}

void RegisterTimeLibrary(FunctionRegistry& registry) {
  RegisterConversions(registry);
  RegisterAccessors(registry);
}

}  // namespace dralloc::cel
