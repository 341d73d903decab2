// Quantity: an exact fixed-point number with the semantics of Kubernetes'
// resource.Quantity (k8s.io/apimachinery/pkg/api/resource).
//
// Grammar accepted by Parse (same scanner rules as upstream ParseQuantity):
//
//   <quantity>        ::= <signedNumber><suffix>
//   <signedNumber>    ::= <number> | "+" <number> | "-" <number>
//   <number>          ::= <digits> | <digits> "." <digits> | <digits> "."
//                       | "." <digits>
//   <suffix>          ::= <binarySI> | <decimalSI> | <decimalExponent>
//   <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei              (2^10 ..
//   2^60) <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E  (10^-9
//   .. 10^18) <decimalExponent> ::= ("e" | "E") [ "+" | "-" ] <digits>
//
// Like upstream, the scanner is lenient about an empty number: "-", "+",
// ".", "k" and "Ki" all parse as zero. Whitespace anywhere is an error.
//
// Value model: the value is held exactly as a count of nano-units (value *
// 10^9) in a signed 128-bit integer, so |value| may reach about 1.7e29.
// - A value with precision finer than 1n is rounded to nano, with its
//   magnitude rounded up (away from zero, as upstream): "0.1n" -> "1n",
//   "-0.1n" -> "-1n".
// - Like upstream, a BinarySI quantity whose magnitude exceeds 2^63-1 is
//   silently capped at 2^63-1 when parsed ("8Ei" -> "9223372036854775807").
//   Decimal quantities are not capped.
// - Any other value outside the representable range is an error ("quantity
//   too large"); arithmetic that would leave the range is an error too.
//
// A Quantity remembers the Format of its suffix and prints itself in the
// canonical form of that format (see ToString). Comparison is by value only:
// "1Ki" == "1024".
#ifndef DRALLOC_COMMON_QUANTITY_H_
#define DRALLOC_COMMON_QUANTITY_H_

#include <compare>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dralloc {

// How a Quantity is rendered; kept from the suffix it was parsed with.
enum class QuantityFormat {
  kDecimalExponent,  // 12e6
  kBinarySI,         // 12Mi (12 * 2^20)
  kDecimalSI,        // 12M  (12 * 10^6)
};

// "DecimalExponent", "BinarySI" or "DecimalSI" (upstream's spelling).
std::string_view QuantityFormatName(QuantityFormat format);

class Quantity {
 public:
  // Zero, DecimalSI.
  Quantity() = default;

  // Parses `text` (no surrounding whitespace) per the grammar above. Errors
  // (all kInvalidArgument) carry upstream's messages:
  //   "quantities must match the regular expression '...'" (malformed),
  //   "unable to parse quantity's suffix",
  //   "unable to parse numeric part of quantity",
  // plus "quantity too large" when the value is out of range.
  static StatusOr<Quantity> Parse(std::string_view text);

  // `value` units (like upstream NewQuantity).
  static Quantity FromInt64(int64_t value,
                            QuantityFormat format = QuantityFormat::kDecimalSI);
  // `milli` thousandths of a unit (like upstream NewMilliQuantity).
  static Quantity FromMilli(int64_t milli,
                            QuantityFormat format = QuantityFormat::kDecimalSI);

  QuantityFormat format() const { return format_; }
  // Changes only how the value is rendered.
  void set_format(QuantityFormat format) { format_ = format; }

  // Canonical text, as upstream Quantity.String():
  // - zero is "0"; negative values get a leading "-".
  // - DecimalSI: the largest suffix (n u m "" k M G T P E) that leaves an
  //   integer mantissa: 1.5 -> "1500m", 1000 -> "1k", 1500 -> "1500".
  //   Beyond E the mantissa grows: 10^21 -> "1000E".
  // - DecimalExponent: as DecimalSI, but the exponent (a multiple of 3) is
  //   written "e<exp>": 1000 -> "1e3", 1.5 -> "1500e-3", 10^4 -> "10e3".
  // - BinarySI: an integer with |value| >= 1024 uses the largest suffix
  //   (Ki .. Ei) that leaves an integer mantissa: 1536 -> "1536",
  //   1.5Gi -> "1536Mi". Anything else (|value| < 1024 or a fraction) is
  //   written as DecimalSI: 512 -> "512", 0.5 -> "500m".
  std::string ToString() const;

  // -1, 0 or 1 as *this is less than, equal to or greater than `other`.
  // Exact; the format is ignored.
  int Compare(const Quantity& other) const;

  // Exact sum / difference. The result keeps this quantity's format, except
  // that a zero left operand takes `other`'s format (as upstream).
  // kOutOfRange "quantity too large" when the result is out of range.
  StatusOr<Quantity> Add(const Quantity& other) const;
  StatusOr<Quantity> Sub(const Quantity& other) const;
  // The negated value, same format. Never fails (the range is symmetric).
  Quantity Neg() const;

  // -1, 0 or 1.
  int Sign() const;
  bool IsZero() const { return nanos_ == 0; }

  // The value in units, rounded up to an integer away from zero (as upstream
  // Value(): "1500m" -> 2, "-1500m" -> -2). Saturates at the int64 limits
  // where upstream would overflow.
  int64_t Value() const;
  // The value in thousandths, rounded away from zero like Value(); saturates.
  int64_t MilliValue() const;
  // The nearest double to the exact value.
  double AsApproximateDouble() const;

  // By value only: equal values in different formats are equivalent, though
  // their ToString() differs.
  friend bool operator==(const Quantity& a, const Quantity& b) {
    return a.nanos_ == b.nanos_;
  }
  friend std::weak_ordering operator<=>(const Quantity& a, const Quantity& b) {
    return a.Compare(b) <=> 0;
  }

 private:
  __extension__ typedef __int128 Int128;

  Quantity(Int128 nanos, QuantityFormat format)
      : nanos_(nanos), format_(format) {}

  Int128 nanos_ = 0;  // value * 10^9, |nanos_| <= 2^127 - 1.
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
};

// Writes q.ToString().
std::ostream& operator<<(std::ostream& os, const Quantity& q);

}  // namespace dralloc

#endif  // DRALLOC_COMMON_QUANTITY_H_
