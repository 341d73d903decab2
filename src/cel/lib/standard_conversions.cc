// The type conversions of cel-spec's standard library.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "cel/lib/standard_library.h"
#include "cel/lib/standard_library_internal.h"
#include "cel/lib/time_library.h"
#include "fmt/format.h"

namespace dralloc::cel::standard_internal {
namespace {

// Go's strconv.ParseInt(s, 10, 64).
bool ParseInt64(std::string_view s, int64_t* out) {
  std::string_view digits = s;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    digits.remove_prefix(1);
  }
  if (digits.empty()) return false;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
  }
  // from_chars takes '-' but not '+'.
  if (s[0] == '+') s.remove_prefix(1);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// Go's strconv.ParseUint(s, 10, 64).
bool ParseUint64(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Go's strconv.ParseFloat(s, 64): decimal and hexadecimal (with a 'p'
// exponent) forms, "inf"/"infinity"/"nan" in any case; values that overflow
// are errors, values that underflow round to zero or a subnormal.
bool ParseDouble(std::string_view s, double* out) {
  bool negative = false;
  std::string_view body = s;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (EqualsIgnoreCase(body, "inf") || EqualsIgnoreCase(body, "infinity")) {
    *out = negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
    return true;
  }
  if (EqualsIgnoreCase(body, "nan")) {
    if (body.size() != s.size()) return false;  // no sign on NaN
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (body.empty()) return false;
  std::chars_format format = std::chars_format::general;
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    body.remove_prefix(2);
    if (body.find_first_of("pP") == std::string_view::npos) return false;
    format = std::chars_format::hex;
  }
  // from_chars would accept these spellings after a prefix/sign was removed.
  char first = body.empty() ? '\0' : body[0];
  if (!((first >= '0' && first <= '9') || first == '.' ||
        (format == std::chars_format::hex &&
         ((first >= 'a' && first <= 'f') || (first >= 'A' && first <= 'F'))))) {
    return false;
  }
  double value = 0;
  auto [end, ec] =
      std::from_chars(body.data(), body.data() + body.size(), value, format);
  if (end != body.data() + body.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    // Overflow is an error; underflow yields what strtod rounds to.
    std::string copy(s);
    double v = std::strtod(copy.c_str(), nullptr);
    if (std::isinf(v)) return false;
    *out = v;
    return true;
  }
  if (ec != std::errc()) return false;
  *out = negative ? -value : value;
  return true;
}

Value IntToInt(const CallContext&, Args a) { return a[0]; }

Value UintToInt(const CallContext&, Args a) {
  if (a[0].uint_value() >
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return IntOverflow();
  }
  return Value::Int(static_cast<int64_t>(a[0].uint_value()));
}

Value DoubleToInt(const CallContext&, Args a) {
  double d = a[0].double_value();
  // Strictly inside (-2^63, 2^63); NaN fails both comparisons.
  if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0)) {
    return IntOverflow();
  }
  return Value::Int(static_cast<int64_t>(d));
}

Value StringToInt(const CallContext&, Args a) {
  int64_t v;
  if (!ParseInt64(a[0].string_view(), &v)) {
    return ConversionError(kStringTypeName, kIntTypeName);
  }
  return Value::Int(v);
}

Value DurationToInt(const CallContext&, Args a) {
  return Value::Int(a[0].duration_nanos());
}

Value TimestampToInt(const CallContext&, Args a) {
  return Value::Int(a[0].timestamp_seconds());
}

Value UintToUint(const CallContext&, Args a) { return a[0]; }

Value IntToUint(const CallContext&, Args a) {
  if (a[0].int_value() < 0) return UintOverflow();
  return Value::Uint(static_cast<uint64_t>(a[0].int_value()));
}

Value DoubleToUint(const CallContext&, Args a) {
  double d = a[0].double_value();
  if (!(d >= 0 && d < 18446744073709551616.0)) return UintOverflow();
  return Value::Uint(static_cast<uint64_t>(d));
}

Value StringToUint(const CallContext&, Args a) {
  uint64_t v;
  if (!ParseUint64(a[0].string_view(), &v)) {
    return ConversionError(kStringTypeName, kUintTypeName);
  }
  return Value::Uint(v);
}

Value DoubleToDouble(const CallContext&, Args a) { return a[0]; }

Value IntToDouble(const CallContext&, Args a) {
  return Value::Double(static_cast<double>(a[0].int_value()));
}

Value UintToDouble(const CallContext&, Args a) {
  return Value::Double(static_cast<double>(a[0].uint_value()));
}

Value StringToDouble(const CallContext&, Args a) {
  double v;
  if (!ParseDouble(a[0].string_view(), &v)) {
    return ConversionError(kStringTypeName, kDoubleTypeName);
  }
  return Value::Double(v);
}

Value StringToString(const CallContext&, Args a) { return a[0]; }

Value BoolToString(const CallContext&, Args a) {
  return Value::BorrowedString(a[0].bool_value() ? "true" : "false");
}

Value IntToString(const CallContext&, Args a) {
  return Value::String(std::to_string(a[0].int_value()));
}

Value UintToString(const CallContext&, Args a) {
  return Value::String(std::to_string(a[0].uint_value()));
}

Value DoubleToString(const CallContext&, Args a) {
  return Value::String(FormatCelDouble(a[0].double_value()));
}

Value BytesToString(const CallContext&, Args a) {
  std::string_view data = a[0].string_view();
  if (!IsWellFormedUtf8(data)) {
    return Value::Error("invalid UTF-8 in bytes, cannot convert to string");
  }
  return Value::String(std::string(data));
}

Value BytesToBytes(const CallContext&, Args a) { return a[0]; }

Value StringToBytes(const CallContext&, Args a) {
  return Value::Bytes(std::string(a[0].string_view()));
}

Value BoolToBool(const CallContext&, Args a) { return a[0]; }

// Go's strconv.ParseBool.
Value StringToBool(const CallContext&, Args a) {
  std::string_view s = a[0].string_view();
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" ||
      s == "True") {
    return Value::Bool(true);
  }
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" ||
      s == "False") {
    return Value::Bool(false);
  }
  return ConversionError(kStringTypeName, kBoolTypeName);
}

Value ToDyn(const CallContext&, Args a) { return a[0]; }

Value TypeOf(const CallContext&, Args a) {
  return Value::TypeValue(a[0].TypeName());
}

}  // namespace

void RegisterConversions(FunctionRegistry& r) {
  const Type i = Type::Int(), u = Type::Uint(), d = Type::Double();
  const Type s = Type::String(), b = Type::Bytes(), bo = Type::Bool();
  const Type ts = Type::Timestamp(), du = Type::Duration();

  AddSimple(r, "int64_to_int64", "int", {i}, i, IntToInt);
  AddSimple(r, "uint64_to_int64", "int", {u}, i, UintToInt);
  AddSimple(r, "double_to_int64", "int", {d}, i, DoubleToInt);
  AddSimple(r, "string_to_int64", "int", {s}, i, StringToInt);
  AddSimple(r, "duration_to_int64", "int", {du}, i, DurationToInt);
  AddSimple(r, "timestamp_to_int64", "int", {ts}, i, TimestampToInt);

  AddSimple(r, "uint64_to_uint64", "uint", {u}, u, UintToUint);
  AddSimple(r, "int64_to_uint64", "uint", {i}, u, IntToUint);
  AddSimple(r, "double_to_uint64", "uint", {d}, u, DoubleToUint);
  AddSimple(r, "string_to_uint64", "uint", {s}, u, StringToUint);

  AddSimple(r, "double_to_double", "double", {d}, d, DoubleToDouble);
  AddSimple(r, "int64_to_double", "double", {i}, d, IntToDouble);
  AddSimple(r, "uint64_to_double", "double", {u}, d, UintToDouble);
  AddSimple(r, "string_to_double", "double", {s}, d, StringToDouble);

  AddSimple(r, "string_to_string", "string", {s}, s, StringToString);
  AddSimple(r, "bool_to_string", "string", {bo}, s, BoolToString);
  AddSimple(r, "int64_to_string", "string", {i}, s, IntToString);
  AddSimple(r, "uint64_to_string", "string", {u}, s, UintToString);
  AddSimple(r, "double_to_string", "string", {d}, s, DoubleToString);
  r.Add({.id = "bytes_to_string",
         .function = "string",
         .params = {b},
         .result = s,
         .impl = BytesToString,
         .runtime_cost = FirstArgTraversalRuntimeCost,
         .estimate_cost = FirstArgTraversalEstimate,
         .estimate_size = [](std::span<const SizeEstimate> a) {
           // Four bytes may encode one code point.
           return SizeEstimate{a[0].min / 4, a[0].max};
         }});

  AddSimple(r, "bytes_to_bytes", "bytes", {b}, b, BytesToBytes);
  r.Add({.id = "string_to_bytes",
         .function = "bytes",
         .params = {s},
         .result = b,
         .impl = StringToBytes,
         .runtime_cost = FirstArgTraversalRuntimeCost,
         .estimate_cost = FirstArgTraversalEstimate,
         .estimate_size = [](std::span<const SizeEstimate> a) {
           // A code point takes up to four bytes.
           return SizeEstimate{a[0].min, SaturatingMul(a[0].max, 4)};
         }});

  AddSimple(r, "bool_to_bool", "bool", {bo}, bo, BoolToBool);
  AddSimple(r, "string_to_bool", "bool", {s}, bo, StringToBool);

  AddSimple(r, "to_dyn", "dyn", {A()}, Type::Dyn(), ToDyn);
  AddSimple(r, "type", "type", {A()}, Type::TypeOf(A()), TypeOf);
}

}  // namespace dralloc::cel::standard_internal
