#include "cli/value_json.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace dralloc::cli {
namespace {

std::string Base64(std::string_view data) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    uint32_t n = (uint8_t(data[i]) << 16) | (uint8_t(data[i + 1]) << 8) |
                 uint8_t(data[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(n >> s) & 63];
  }
  if (i + 1 == data.size()) {
    uint32_t n = uint8_t(data[i]) << 16;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == data.size()) {
    uint32_t n = (uint8_t(data[i]) << 16) | (uint8_t(data[i + 1]) << 8);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

// Nanoseconds as "1.5s" with trailing zeros trimmed.
std::string FractionDigits(int64_t nanos) {
  if (nanos == 0) return "";
  std::string digits = fmt::format("{:09d}", nanos);
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return "." + digits;
}

std::string DurationText(int64_t nanos) {
  bool negative = nanos < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(nanos)
                                : static_cast<uint64_t>(nanos);
  return fmt::format(
      "{}{}{}s", negative ? "-" : "", magnitude / 1000000000,
      FractionDigits(static_cast<int64_t>(magnitude % 1000000000)));
}

// Days since 1970-01-01 to a civil date (proleptic Gregorian).
void CivilFromDays(int64_t days, int64_t& y, unsigned& m, unsigned& d) {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  unsigned doe = static_cast<unsigned>(days - era * 146097);
  unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
}

std::string TimestampText(int64_t seconds, int32_t nanos) {
  int64_t days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  int64_t rem = seconds - days * 86400;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}{}Z", y, m, d,
                     rem / 3600, rem / 60 % 60, rem % 60,
                     FractionDigits(nanos));
}

}  // namespace

nlohmann::ordered_json ValueToJson(const cel::Value& v) {
  using cel::ValueKind;
  switch (v.kind()) {
    case ValueKind::kNull:
      return nullptr;
    case ValueKind::kBool:
      return v.bool_value();
    case ValueKind::kInt:
      return v.int_value();
    case ValueKind::kUint:
      return v.uint_value();
    case ValueKind::kDouble: {
      double d = v.double_value();
      if (std::isnan(d)) return "NaN";
      if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
      return d;
    }
    case ValueKind::kString:
      return std::string(v.string_view());
    case ValueKind::kBytes:
      return Base64(v.string_view());
    case ValueKind::kDuration:
      return DurationText(v.duration_nanos());
    case ValueKind::kTimestamp:
      return TimestampText(v.timestamp_seconds(), v.timestamp_nanos());
    case ValueKind::kType:
      return std::string(v.string_view());
    case ValueKind::kList: {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      const cel::ListValue& list = v.list();
      for (size_t i = 0; i < list.Size(); ++i) {
        out.push_back(ValueToJson(list.At(i)));
      }
      return out;
    }
    case ValueKind::kMap: {
      nlohmann::ordered_json out = nlohmann::ordered_json::object();
      const cel::MapValue& map = v.map();
      for (size_t i = 0; i < map.Size(); ++i) {
        cel::Value key = map.KeyAt(i);
        std::string text = key.kind() == ValueKind::kString
                               ? std::string(key.string_view())
                               : ValueToJson(key).dump();
        out[text] = ValueToJson(map.ValueAt(i));
      }
      return out;
    }
    case ValueKind::kOptional:
      return v.optional_has_value() ? ValueToJson(v.optional_value()) : nullptr;
    case ValueKind::kOpaque:
      return v.opaque().DebugString();
    case ValueKind::kError:
      return v.error_message();
  }
  return nullptr;
}

}  // namespace dralloc::cli
