#include "common/quantity.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace dralloc {
namespace {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

// Largest magnitude held, in nano-units: 2^127 - 1 (about 1.7e38 nanos).
constexpr UInt128 kMaxMagnitude = (static_cast<UInt128>(1) << 127) - 1;
constexpr int64_t kNanosPerUnit = 1'000'000'000;
// Upstream caps a parsed BinarySI magnitude at 2^63 - 1 units.
constexpr UInt128 kBinaryCapNanos =
    static_cast<UInt128>(std::numeric_limits<int64_t>::max()) * kNanosPerUnit;

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric =
    "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";
constexpr std::string_view kErrTooLarge = "quantity too large";

Status Error(std::string_view message) {
  return InvalidArgumentError(std::string(message));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// True for the letters upstream's scanner accepts at the start of a suffix.
bool IsSuffixLetter(char c) {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

// 10^n for 0 <= n <= 38.
UInt128 Pow10(int n) {
  UInt128 result = 1;
  for (int i = 0; i < n; ++i) result *= 10;
  return result;
}

// |v|; exact because v is never the most negative Int128.
UInt128 Magnitude(Int128 v) {
  return v < 0 ? -static_cast<UInt128>(v) : static_cast<UInt128>(v);
}

// Decimal digits of v, "0" for zero.
std::string ToDecimal(UInt128 v) {
  char buffer[40];
  char* end = buffer + sizeof(buffer);
  char* p = end;
  do {
    *--p = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  return std::string(p, end);
}

// The pieces of a quantity string, split as upstream's scanner splits them.
struct ScannedQuantity {
  bool negative = false;
  bool has_digits = false;       // any digit in the number, zeros included
  std::string_view int_digits;   // integer part without its leading zeros
  std::string_view frac_digits;  // digits after the '.'
  std::string_view suffix;       // everything after the number
};

// Index of the first non-digit at or after `pos`.
size_t SkipDigits(std::string_view text, size_t pos) {
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  return pos;
}

// Splits `text` into sign, number and suffix. The suffix is letters from
// "eEinumkKMGTP", then an optional sign, then digits; anything else is
// malformed. Whether the suffix means something is decided later.
StatusOr<ScannedQuantity> ScanQuantity(std::string_view text) {
  ScannedQuantity out;
  size_t pos = 0;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    out.negative = text[0] == '-';
    ++pos;
  }
  while (pos < text.size() && text[pos] == '0') {
    out.has_digits = true;
    ++pos;
  }
  if (pos == text.size()) return out;  // Only a sign and zeros: zero.
  size_t end = SkipDigits(text, pos);
  out.int_digits = text.substr(pos, end - pos);
  pos = end;
  if (pos < text.size() && text[pos] == '.') {
    end = SkipDigits(text, ++pos);
    out.frac_digits = text.substr(pos, end - pos);
    pos = end;
  }
  out.has_digits |= !out.int_digits.empty() || !out.frac_digits.empty();
  const size_t suffix_start = pos;
  while (pos < text.size() && IsSuffixLetter(text[pos])) ++pos;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  if (SkipDigits(text, pos) != text.size()) return Error(kErrFormatWrong);
  out.suffix = text.substr(suffix_start);
  return out;
}

// What a suffix multiplies the number by: base^exponent.
struct SuffixMeaning {
  int base = 10;  // 10 or 2
  Int128 exponent = 0;
  QuantityFormat format = QuantityFormat::kDecimalSI;
};

// Parses an int64 as Go's strconv.ParseInt(s, 10, 64) does: optional sign,
// at least one digit, nothing else, in range.
std::optional<int64_t> ParseInt64(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  uint64_t magnitude = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, magnitude);
  if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  const uint64_t limit =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) +
      (negative ? 1 : 0);
  if (magnitude > limit) return std::nullopt;
  return negative ? static_cast<int64_t>(0 - magnitude)
                  : static_cast<int64_t>(magnitude);
}

// Looks `suffix` up: decimal SI first, then binary SI, then "e<int>".
std::optional<SuffixMeaning> InterpretSuffix(std::string_view suffix) {
  static constexpr std::pair<std::string_view, int> kDecimal[] = {
      {"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
      {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  static constexpr std::pair<std::string_view, int> kBinary[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  for (const auto& [name, exponent] : kDecimal) {
    if (suffix == name) return SuffixMeaning{10, exponent};
  }
  for (const auto& [name, exponent] : kBinary) {
    if (suffix == name) {
      return SuffixMeaning{2, exponent, QuantityFormat::kBinarySI};
    }
  }
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::optional<int64_t> exponent = ParseInt64(suffix.substr(1));
    if (exponent.has_value()) {
      return SuffixMeaning{10, *exponent, QuantityFormat::kDecimalExponent};
    }
  }
  return std::nullopt;
}

// The integer and fraction digits run together, leading zeros removed
// ("" when the number is zero).
std::string SignificantDigits(const ScannedQuantity& scanned) {
  std::string digits;
  digits.reserve(scanned.int_digits.size() + scanned.frac_digits.size());
  digits.append(scanned.int_digits);
  digits.append(scanned.frac_digits);
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  return digits;
}

// Multiplies the decimal number spelled by `digits` by `factor` in place.
void MultiplyDigits(std::string& digits, uint32_t factor) {
  uint64_t carry = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    const uint64_t v = static_cast<uint64_t>(*it - '0') * factor + carry;
    *it = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  std::string head;
  for (; carry != 0; carry /= 10)
    head.push_back(static_cast<char>('0' + carry % 10));
  std::reverse(head.begin(), head.end());
  digits.insert(0, head);
}

// value = value * 10 + each digit; false once it would pass kMaxMagnitude.
bool AccumulateDigits(std::string_view digits, UInt128& value) {
  for (char c : digits) {
    const unsigned d = static_cast<unsigned>(c - '0');
    if (value > (kMaxMagnitude - d) / 10) return false;
    value = value * 10 + d;
  }
  return true;
}

// ceil(N * 10^shift), where N is spelled by `digits` (no leading zeros), or
// nullopt when that exceeds kMaxMagnitude.
std::optional<UInt128> ScaleDigitsCeil(std::string_view digits, Int128 shift) {
  UInt128 value = 0;
  if (digits.empty()) return value;
  if (shift >= 0) {
    // N >= 1, so N * 10^39 > kMaxMagnitude.
    if (shift > 38 || !AccumulateDigits(digits, value)) return std::nullopt;
    const UInt128 factor = Pow10(static_cast<int>(shift));
    if (value > kMaxMagnitude / factor) return std::nullopt;
    return value * factor;
  }
  const Int128 keep = static_cast<Int128>(digits.size()) + shift;
  if (keep <= 0) return UInt128{1};  // 0 < N * 10^shift < 1.
  const size_t head = static_cast<size_t>(keep);
  if (!AccumulateDigits(digits.substr(0, head), value)) return std::nullopt;
  if (digits.find_first_not_of('0', head) != std::string_view::npos) {
    if (value == kMaxMagnitude) return std::nullopt;
    ++value;
  }
  return value;
}

// |value| in nano-units of the scanned number times the suffix, rounded up.
// A BinarySI magnitude is capped at kBinaryCapNanos as upstream does.
StatusOr<UInt128> MagnitudeInNanos(const ScannedQuantity& scanned,
                                   const SuffixMeaning& suffix) {
  std::string digits = SignificantDigits(scanned);
  const Int128 shift = 9 - static_cast<Int128>(scanned.frac_digits.size());
  if (suffix.base == 2) {
    for (Int128 e = 0; e < suffix.exponent; e += 10) {
      MultiplyDigits(digits, 1024);
    }
    std::optional<UInt128> nanos = ScaleDigitsCeil(digits, shift);
    if (!nanos.has_value() || *nanos > kBinaryCapNanos) return kBinaryCapNanos;
    return *nanos;
  }
  std::optional<UInt128> nanos =
      ScaleDigitsCeil(digits, shift + suffix.exponent);
  if (!nanos.has_value()) return Error(kErrTooLarge);
  return *nanos;
}

// Appends magnitude (nanos) with the largest power-of-1000 suffix that keeps
// the mantissa an integer; DecimalSI stops at "E", exponent form never does.
void AppendDecimal(UInt128 nanos, bool exponent_form, std::string& out) {
  static constexpr std::string_view kSuffixes[] = {"n", "u", "m", "",  "k",
                                                   "M", "G", "T", "P", "E"};
  constexpr int kLargestSuffix = 9;
  int groups = 0;
  while (nanos % 1000 == 0 && (exponent_form || groups < kLargestSuffix)) {
    nanos /= 1000;
    ++groups;
  }
  out += ToDecimal(nanos);
  if (!exponent_form) {
    out += kSuffixes[groups];
    return;
  }
  const int exponent = 3 * groups - 9;
  if (exponent != 0) out += "e" + std::to_string(exponent);
}

// Appends the integer `units` with the largest power-of-1024 suffix (up to
// "Ei") that keeps the mantissa an integer.
void AppendBinary(UInt128 units, std::string& out) {
  static constexpr std::string_view kSuffixes[] = {"",   "Ki", "Mi", "Gi",
                                                   "Ti", "Pi", "Ei"};
  constexpr int kLargestSuffix = 6;
  int groups = 0;
  while (groups < kLargestSuffix && units % 1024 == 0) {
    units /= 1024;
    ++groups;
  }
  out += ToDecimal(units);
  out += kSuffixes[groups];
}

// a + b when it lies within [-kMaxMagnitude, kMaxMagnitude], else nullopt.
std::optional<Int128> CheckedAdd(Int128 a, Int128 b) {
  const Int128 max = static_cast<Int128>(kMaxMagnitude);
  if (b > 0 && a > max - b) return std::nullopt;
  if (b < 0 && a < -max - b) return std::nullopt;
  return a + b;
}

// nanos / divisor rounded away from zero, saturated to int64.
int64_t DivideAwayFromZero(Int128 nanos, UInt128 divisor) {
  const UInt128 magnitude = Magnitude(nanos);
  UInt128 quotient = magnitude / divisor;
  if (magnitude % divisor != 0) ++quotient;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const UInt128 limit = static_cast<UInt128>(kMax) + (nanos < 0 ? 1 : 0);
  if (quotient >= limit) return nanos < 0 ? kMin : kMax;
  const int64_t result = static_cast<int64_t>(quotient);
  return nanos < 0 ? -result : result;
}

}  // namespace

std::string_view QuantityFormatName(QuantityFormat format) {
  switch (format) {
    case QuantityFormat::kDecimalExponent:
      return "DecimalExponent";
    case QuantityFormat::kBinarySI:
      return "BinarySI";
    case QuantityFormat::kDecimalSI:
      return "DecimalSI";
  }
  return "Unknown";
}

StatusOr<Quantity> Quantity::Parse(std::string_view text) {
  if (text.empty()) return Error(kErrFormatWrong);
  ASSIGN_OR_RETURN(const ScannedQuantity scanned, ScanQuantity(text));
  std::optional<SuffixMeaning> suffix = InterpretSuffix(scanned.suffix);
  if (!suffix.has_value()) return Error(kErrSuffix);
  // Upstream cannot read a number without digits on its slow path, which it
  // takes for exponents below nano.
  if (!scanned.has_digits && suffix->base == 10 && suffix->exponent < -9) {
    return Error(kErrNumeric);
  }
  ASSIGN_OR_RETURN(const UInt128 magnitude, MagnitudeInNanos(scanned, *suffix));
  QuantityFormat format = suffix->format;
  if (format == QuantityFormat::kBinarySI && magnitude != 0 &&
      magnitude < static_cast<UInt128>(kNanosPerUnit)) {
    format = QuantityFormat::kDecimalSI;  // Non-zero and below one unit.
  }
  const Int128 nanos = static_cast<Int128>(magnitude);
  return Quantity(scanned.negative ? -nanos : nanos, format);
}

Quantity Quantity::FromInt64(int64_t value, QuantityFormat format) {
  return Quantity(static_cast<Int128>(value) * kNanosPerUnit, format);
}

Quantity Quantity::FromMilli(int64_t milli, QuantityFormat format) {
  return Quantity(static_cast<Int128>(milli) * (kNanosPerUnit / 1000), format);
}

std::string Quantity::ToString() const {
  if (nanos_ == 0) return "0";
  const UInt128 magnitude = Magnitude(nanos_);
  std::string out = nanos_ < 0 ? "-" : "";
  const UInt128 unit = kNanosPerUnit;
  if (format_ == QuantityFormat::kBinarySI && magnitude >= 1024 * unit &&
      magnitude % unit == 0) {
    AppendBinary(magnitude / unit, out);
  } else {
    AppendDecimal(magnitude, format_ == QuantityFormat::kDecimalExponent, out);
  }
  return out;
}

int Quantity::Compare(const Quantity& other) const {
  if (nanos_ < other.nanos_) return -1;
  return nanos_ > other.nanos_ ? 1 : 0;
}

StatusOr<Quantity> Quantity::Add(const Quantity& other) const {
  std::optional<Int128> sum = CheckedAdd(nanos_, other.nanos_);
  if (!sum.has_value()) return OutOfRangeError(std::string(kErrTooLarge));
  return Quantity(*sum, IsZero() ? other.format_ : format_);
}

StatusOr<Quantity> Quantity::Sub(const Quantity& other) const {
  std::optional<Int128> difference = CheckedAdd(nanos_, -other.nanos_);
  if (!difference.has_value()) {
    return OutOfRangeError(std::string(kErrTooLarge));
  }
  return Quantity(*difference, IsZero() ? other.format_ : format_);
}

Quantity Quantity::Neg() const { return Quantity(-nanos_, format_); }

int Quantity::Sign() const { return nanos_ < 0 ? -1 : (nanos_ > 0 ? 1 : 0); }

int64_t Quantity::Value() const {
  return DivideAwayFromZero(nanos_, kNanosPerUnit);
}

int64_t Quantity::MilliValue() const {
  return DivideAwayFromZero(nanos_, kNanosPerUnit / 1000);
}

double Quantity::AsApproximateDouble() const {
  // Spelling the exact value lets from_chars round it correctly.
  std::string text = nanos_ < 0 ? "-" : "";
  text += ToDecimal(Magnitude(nanos_));
  text += "e-9";
  double result = 0;
  // Cannot fail: the text is well formed and |value| < 1.7e29.
  (void)std::from_chars(text.data(), text.data() + text.size(), result);
  return result;
}

std::ostream& operator<<(std::ostream& os, const Quantity& q) {
  return os << q.ToString();
}

}  // namespace dralloc
