#include "cel/lib/strings_format.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "cel/common/types.h"
#include "fmt/format.h"

namespace dralloc::cel::strings_internal {
namespace {

// Shortest decimal form without exponent (Go's FormatFloat(d, 'f', -1, 64)).
void AppendShortestFixed(double d, std::string* out) {
  char buf[512];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::fixed);
  out->append(buf, res.ptr);
}

// NaN and infinities as CEL's format prints them; false for finite values.
bool AppendSpecialDouble(double d, std::string* out) {
  if (std::isnan(d)) {
    out->append("NaN");
  } else if (std::isinf(d)) {
    out->append(d > 0 ? "Infinity" : "-Infinity");
  } else {
    return false;
  }
  return true;
}

void AppendTimestamp(int64_t seconds, int32_t nanos, std::string* out) {
  int64_t days = seconds / 86400;
  int64_t rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  std::chrono::year_month_day ymd{
      std::chrono::sys_days{std::chrono::days{days}}};
  fmt::format_to(
      std::back_inserter(*out), "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}",
      static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
      static_cast<unsigned>(ymd.day()), rem / 3600, rem / 60 % 60, rem % 60);
  if (nanos != 0) {
    std::string frac = fmt::format("{:09d}", nanos);
    while (frac.back() == '0') frac.pop_back();
    out->push_back('.');
    out->append(frac);
  }
  out->push_back('Z');
}

void AppendDurationSeconds(int64_t nanos, std::string* out) {
  // Go's Duration.Seconds(): whole seconds plus the fraction, in float64.
  double secs = static_cast<double>(nanos / 1000000000) +
                static_cast<double>(nanos % 1000000000) / 1e9;
  AppendShortestFixed(secs, out);
  out->push_back('s');
}

std::string StringClauseError(std::string_view type_name) {
  return fmt::format(
      "string clause can only be used on strings, bools, bytes, ints, "
      "doubles, maps, lists, types, durations, and timestamps, was given {}",
      type_name);
}

}  // namespace

bool AppendFormattedString(const Value& value, std::string* out,
                           std::string* error) {
  switch (value.kind()) {
    case ValueKind::kNull:
      out->append("null");
      return true;
    case ValueKind::kBool:
      out->append(value.bool_value() ? "true" : "false");
      return true;
    case ValueKind::kInt:
      fmt::format_to(std::back_inserter(*out), "{}", value.int_value());
      return true;
    case ValueKind::kUint:
      fmt::format_to(std::back_inserter(*out), "{}", value.uint_value());
      return true;
    case ValueKind::kDouble:
      if (!AppendSpecialDouble(value.double_value(), out)) {
        AppendShortestFixed(value.double_value(), out);
      }
      return true;
    case ValueKind::kString:
    case ValueKind::kBytes:
    case ValueKind::kType:
      out->append(value.string_view());
      return true;
    case ValueKind::kDuration:
      AppendDurationSeconds(value.duration_nanos(), out);
      return true;
    case ValueKind::kTimestamp:
      AppendTimestamp(value.timestamp_seconds(), value.timestamp_nanos(), out);
      return true;
    case ValueKind::kList: {
      const ListValue& list = value.list();
      out->push_back('[');
      for (size_t i = 0; i < list.Size(); ++i) {
        if (i > 0) out->append(", ");
        if (!AppendFormattedString(list.At(i), out, error)) return false;
      }
      out->push_back(']');
      return true;
    }
    case ValueKind::kMap: {
      const MapValue& map = value.map();
      std::vector<std::pair<std::string, std::string>> entries(map.Size());
      for (size_t i = 0; i < map.Size(); ++i) {
        if (!AppendFormattedString(map.KeyAt(i), &entries[i].first, error) ||
            !AppendFormattedString(map.ValueAt(i), &entries[i].second, error)) {
          return false;
        }
      }
      std::stable_sort(
          entries.begin(), entries.end(),
          [](const auto& a, const auto& b) { return a.first < b.first; });
      out->push_back('{');
      for (size_t i = 0; i < entries.size(); ++i) {
        if (i > 0) out->append(", ");
        out->append(entries[i].first);
        out->append(": ");
        out->append(entries[i].second);
      }
      out->push_back('}');
      return true;
    }
    default:
      *error = StringClauseError(value.TypeName());
      return false;
  }
}

namespace {

// Go's %x/%X/%o/%b for signed integers: a minus sign, then the magnitude.
void AppendRadix(bool negative, uint64_t magnitude, int base, bool upper,
                 std::string* out) {
  char buf[72];
  auto res = std::to_chars(buf, buf + sizeof(buf), magnitude, base);
  if (negative) out->push_back('-');
  for (char* p = buf; p != res.ptr; ++p) {
    out->push_back(upper && *p >= 'a' && *p <= 'f' ? static_cast<char>(*p - 32)
                                                   : *p);
  }
}

bool AppendInteger(const Value& v, int base, bool upper, std::string* out) {
  if (v.kind() == ValueKind::kInt) {
    int64_t i = v.int_value();
    uint64_t magnitude =
        i < 0 ? 0 - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
    AppendRadix(i < 0, magnitude, base, upper, out);
    return true;
  }
  if (v.kind() == ValueKind::kUint) {
    AppendRadix(false, v.uint_value(), base, upper, out);
    return true;
  }
  return false;
}

// Number as a double for %f/%e; false when not a number.
bool AsDouble(const Value& v, double* d) {
  switch (v.kind()) {
    case ValueKind::kInt:
      *d = static_cast<double>(v.int_value());
      return true;
    case ValueKind::kUint:
      *d = static_cast<double>(v.uint_value());
      return true;
    case ValueKind::kDouble:
      *d = v.double_value();
      return true;
    default:
      return false;
  }
}

void AppendPrintf(const char* spec, int precision, double d, std::string* out) {
  int n = std::snprintf(nullptr, 0, spec, precision, d);
  size_t old = out->size();
  out->resize(old + static_cast<size_t>(n) + 1);
  std::snprintf(out->data() + old, static_cast<size_t>(n) + 1, spec, precision,
                d);
  out->resize(old + static_cast<size_t>(n));
}

constexpr int kDefaultPrecision = 6;
// cel-go caps the precision from version 5 on; we apply the same cap to keep
// a format call from allocating without bound.
constexpr int kMaxPrecision = 100;

// Formats one clause `verb` with `arg`; returns an empty string on success or
// the error text (without the "error during formatting: " prefix).
std::string FormatClause(char verb, int precision, const Value& arg,
                         std::string* out) {
  std::string error;
  switch (verb) {
    case 's':
      AppendFormattedString(arg, out, &error);
      return error;
    case 'd': {
      if (AppendInteger(arg, 10, false, out)) return "";
      if (arg.kind() == ValueKind::kDouble) {
        if (!AppendSpecialDouble(arg.double_value(), out)) {
          AppendShortestFixed(arg.double_value(), out);
        }
        return "";
      }
      return fmt::format(
          "decimal clause can only be used on ints, uints, and doubles, was "
          "given {}",
          arg.TypeName());
    }
    case 'f':
    case 'e': {
      double d;
      if (!AsDouble(arg, &d)) {
        return fmt::format(
            "{} clause can only be used on ints, uints, and doubles, was given "
            "{}",
            verb == 'f' ? "fixed-point" : "scientific", arg.TypeName());
      }
      if (AppendSpecialDouble(d, out)) return "";
      AppendPrintf(verb == 'f' ? "%.*f" : "%.*e", precision, d, out);
      return "";
    }
    case 'b':
      if (arg.kind() == ValueKind::kBool) {
        out->push_back(arg.bool_value() ? '1' : '0');
        return "";
      }
      if (AppendInteger(arg, 2, false, out)) return "";
      return fmt::format(
          "only ints, uints, and bools can be formatted as binary, was given "
          "{}",
          arg.TypeName());
    case 'o':
      if (AppendInteger(arg, 8, false, out)) return "";
      return fmt::format(
          "octal clause can only be used on ints and uints, was given {}",
          arg.TypeName());
    case 'x':
    case 'X': {
      bool upper = verb == 'X';
      if (AppendInteger(arg, 16, upper, out)) return "";
      if (arg.kind() == ValueKind::kString || arg.kind() == ValueKind::kBytes) {
        static constexpr char kLower[] = "0123456789abcdef";
        static constexpr char kUpper[] = "0123456789ABCDEF";
        const char* digits = upper ? kUpper : kLower;
        for (unsigned char c : arg.string_view()) {
          out->push_back(digits[c >> 4]);
          out->push_back(digits[c & 15]);
        }
        return "";
      }
      return fmt::format(
          "only ints, uints, bytes, and strings can be formatted as hex, was "
          "given {}",
          arg.TypeName());
    }
    default:
      return "unexpected verb";  // unreachable: verbs are checked by caller
  }
}

}  // namespace

Value Format(const CallContext&, std::span<const Value> args) {
  std::string_view text = args[0].string_view();
  const ListValue& list = args[1].list();
  const size_t arg_count = list.Size();
  std::string out;
  out.reserve(text.size());
  size_t arg_index = 0;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c != '%') {
      out.push_back(c);
      ++i;
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '%') {
      out.push_back('%');
      i += 2;
      continue;
    }
    if (arg_index >= arg_count) {
      return Value::Error(fmt::format("index {} out of range", arg_index));
    }
    if (i + 1 >= text.size()) return Value::Error("unexpected end of string");
    size_t j = i + 1;
    int precision = kDefaultPrecision;
    if (text[j] == '.') {
      ++j;
      size_t digits_begin = j;
      while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
      if (j >= text.size()) {
        return Value::Error(
            "could not parse formatting clause: error while parsing "
            "precision: could not find end of precision specifier");
      }
      std::string_view digits = text.substr(digits_begin, j - digits_begin);
      uint64_t p = 0;
      auto res =
          std::from_chars(digits.data(), digits.data() + digits.size(), p);
      if (digits.empty() || res.ec != std::errc()) {
        return Value::Error(fmt::format(
            "could not parse formatting clause: error while parsing "
            "precision: error while converting precision to integer: "
            "invalid precision \"{}\"",
            digits));
      }
      if (p > static_cast<uint64_t>(kMaxPrecision)) {
        return Value::Error(fmt::format(
            "could not parse formatting clause: error while parsing "
            "precision: precision {} exceeds maximum allowed precision {}",
            p, kMaxPrecision));
      }
      precision = static_cast<int>(p);
    }
    char verb = text[j];
    switch (verb) {
      case 's':
      case 'd':
      case 'f':
      case 'e':
      case 'b':
      case 'o':
      case 'x':
      case 'X':
        break;
      default: {
        size_t w = RuneLength(text, j);
        return Value::Error(fmt::format(
            "could not parse formatting clause: unrecognized formatting "
            "clause \"{}\"",
            text.substr(j, w)));
      }
    }
    std::string error = FormatClause(verb, precision, list.At(arg_index), &out);
    if (!error.empty()) {
      return Value::Error("error during formatting: " + error);
    }
    ++arg_index;
    i = j + 1;
  }
  return Value::String(std::move(out));
}

}  // namespace dralloc::cel::strings_internal
