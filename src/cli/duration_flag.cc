#include "cli/duration_flag.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>

namespace dralloc::cli {
namespace {

double UnitNanoseconds(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\u00b5s") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  if (unit == "m") return 60e9;
  if (unit == "h") return 3600e9;
  return 0;
}

bool IsUnitChar(char c) { return !(c >= '0' && c <= '9') && c != '.'; }

}  // namespace

StatusOr<std::chrono::milliseconds> ParseGoDuration(std::string_view text,
                                                    std::string_view flag) {
  const auto bad = [&] {
    return InvalidArgumentError(fmt::format(
        "{}: Invalid value: \"{}\": want a duration such as 15s, 500ms or "
        "1m30s",
        flag, text));
  };
  if (text.empty()) return bad();
  if (text == "0") return std::chrono::milliseconds(0);
  double total = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t number_end = i;
    while (number_end < text.size() && !IsUnitChar(text[number_end])) {
      ++number_end;
    }
    size_t unit_end = number_end;
    while (unit_end < text.size() && IsUnitChar(text[unit_end])) ++unit_end;
    const std::string number(text.substr(i, number_end - i));
    const double unit =
        UnitNanoseconds(text.substr(number_end, unit_end - number_end));
    if (number.empty() || number == "." || unit == 0) return bad();
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size()) return bad();
    total += value * unit;
    i = unit_end;
  }
  if (!std::isfinite(total) || total < 0 || total > 1e18) return bad();
  return std::chrono::milliseconds(static_cast<int64_t>(total / 1e6));
}

}  // namespace dralloc::cli
