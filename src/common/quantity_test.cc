#include "common/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace dralloc {
namespace {

constexpr std::string_view kFormatError =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kSuffixError = "unable to parse quantity's suffix";
constexpr std::string_view kNumericError =
    "unable to parse numeric part of quantity";
constexpr std::string_view kTooLarge = "quantity too large";

// 2^127 - 1 nano-units: the largest magnitude a Quantity holds.
constexpr std::string_view kMaxNanosText =
    "170141183460469231731687303715.884105727";

constexpr QuantityFormat kDecSI = QuantityFormat::kDecimalSI;
constexpr QuantityFormat kBinSI = QuantityFormat::kBinarySI;
constexpr QuantityFormat kDecExp = QuantityFormat::kDecimalExponent;

// Parses text that the test knows to be valid.
Quantity Q(std::string_view text) {
  StatusOr<Quantity> q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text << ": " << q.status();
  return q.ok() ? *q : Quantity();
}

struct ParseCase {
  std::string input;
  std::string canonical;
  QuantityFormat format;
};

const std::vector<ParseCase>& ParseCases() {
  static const auto* cases = new std::vector<ParseCase>{
      // Decimal SI suffixes.
      {"0", "0", kDecSI},
      {"1", "1", kDecSI},
      {"5n", "5n", kDecSI},
      {"4u", "4u", kDecSI},
      {"3m", "3m", kDecSI},
      {"8k", "8k", kDecSI},
      {"50k", "50k", kDecSI},
      {"7M", "7M", kDecSI},
      {"6G", "6G", kDecSI},
      {"5T", "5T", kDecSI},
      {"2P", "2P", kDecSI},
      {"1E", "1E", kDecSI},
      {"12E", "12E", kDecSI},
      {"0m", "0", kDecSI},
      // Canonical mantissa: largest multiple-of-3 exponent, integer mantissa.
      {"1000", "1k", kDecSI},
      {"1500", "1500", kDecSI},
      {"1500000", "1500k", kDecSI},
      {"1.5", "1500m", kDecSI},
      {"100m", "100m", kDecSI},
      {"0.1", "100m", kDecSI},
      {"1000M", "1G", kDecSI},
      {"100.035k", "100035", kDecSI},
      {"10.035M", "10035k", kDecSI},
      {"1.01E", "1010P", kDecSI},
      {"6.987654321G", "6987654321", kDecSI},
      {"0.0005k", "500m", kDecSI},
      {"1080000000n", "1080m", kDecSI},
      {".001", "1m", kDecSI},
      {"1.", "1", kDecSI},
      {"1.G", "1G", kDecSI},
      {"+5", "5", kDecSI},
      {"00012", "12", kDecSI},
      {"18446744073709551616", "18446744073709551616", kDecSI},  // No cap.
      {"1000E", "1000E", kDecSI},  // Beyond "E" the mantissa grows.
      // Binary SI suffixes.
      {"1Ki", "1Ki", kBinSI},
      {"8Ki", "8Ki", kBinSI},
      {"7Mi", "7Mi", kBinSI},
      {"6Gi", "6Gi", kBinSI},
      {"5Ti", "5Ti", kBinSI},
      {"4Pi", "4Pi", kBinSI},
      {"3Ei", "3Ei", kBinSI},
      {"0Ki", "0", kBinSI},
      {"1024Mi", "1Gi", kBinSI},
      {"1536Ki", "1536Ki", kBinSI},
      {"1.5Ki", "1536", kBinSI},
      {"1.5Gi", "1536Mi", kBinSI},
      {"0.5Gi", "512Mi", kBinSI},
      {"0.5Ki", "512", kBinSI},      // Below 1024: DecimalSI rules.
      {"0.1Ki", "102400m", kBinSI},  // Fractional: DecimalSI rules.
      {"100.035Ki", "102435840m", kBinSI},
      {".001Ki", "1024m", kBinSI},
      {"0.0001Ki", "102400u", kDecSI},  // Below one unit: format changes.
      {".000000000001Ki", "2n", kDecSI},
      {"9Ei", "9223372036854775807", kBinSI},  // Capped at 2^63-1.
      {"9223372036854775807Ki", "9223372036854775807", kBinSI},
      {"8191Pi", "8191Pi", kBinSI},
      // Decimal exponents.
      {"1e3", "1e3", kDecExp},
      {"1E3", "1e3", kDecExp},
      {"1e+3", "1e3", kDecExp},
      {"1e4", "10e3", kDecExp},
      {"1E-3", "1e-3", kDecExp},
      {"1.5e0", "1500e-3", kDecExp},
      {"1.2e3", "1200", kDecExp},
      {"1.3E+6", "1300e3", kDecExp},
      {"1e21", "1e21", kDecExp},
      {"1e29", "100e27", kDecExp},
      {"0e99999999999", "0", kDecExp},
      {"1e-9", "1e-9", kDecExp},
      // Precision below 1n rounds the magnitude up.
      {"1.0000000001", "1000000001n", kDecSI},
      {"3.001n", "4n", kDecSI},
      {"0.0000000001", "1n", kDecSI},
      {"0.00000012345", "124n", kDecSI},
      {"0.9n", "1n", kDecSI},
      {"0.5e-9", "1e-9", kDecExp},
      {"1.1E-9", "2e-9", kDecExp},
      {"1e-100", "1e-9", kDecExp},
      {"1e-9223372036854775808", "1e-9", kDecExp},
      {"-0.0000000001", "-1n", kDecSI},
      {"-1.1E-9", "-2e-9", kDecExp},
      // Negative values.
      {"-1", "-1", kDecSI},
      {"-1.5", "-1500m", kDecSI},
      {"-1Ki", "-1Ki", kBinSI},
      {"-0.5Ki", "-512", kBinSI},
      {"-1e3", "-1e3", kDecExp},
      {"-0", "0", kDecSI},
      {"-9Ei", "-9223372036854775807", kBinSI},
      // Upstream's scanner accepts a number without digits as zero.
      {"-", "0", kDecSI},
      {"+", "0", kDecSI},
      {".", "0", kDecSI},
      {"-.", "0", kDecSI},
      {"k", "0", kDecSI},
      {"Ki", "0", kBinSI},
      // Extremes of the range.
      {std::string(kMaxNanosText), "170141183460469231731687303715884105727n",
       kDecSI},
      {"-" + std::string(kMaxNanosText),
       "-170141183460469231731687303715884105727n", kDecSI},
      {std::string(400, '0') + "5", "5", kDecSI},
      {"0." + std::string(400, '0') + "1", "1n", kDecSI},
      {std::string(400, '9') + "Ki", "9223372036854775807", kBinSI},
  };
  return *cases;
}

TEST(QuantityTest, ParseAndFormat) {
  for (const ParseCase& c : ParseCases()) {
    SCOPED_TRACE(c.input);
    StatusOr<Quantity> q = Quantity::Parse(c.input);
    ASSERT_TRUE(q.ok()) << q.status();
    EXPECT_EQ(q->ToString(), c.canonical);
    EXPECT_EQ(QuantityFormatName(q->format()), QuantityFormatName(c.format));
  }
}

TEST(QuantityTest, CanonicalFormRoundTrips) {
  for (const ParseCase& c : ParseCases()) {
    SCOPED_TRACE(c.input);
    Quantity q = Q(c.input);
    StatusOr<Quantity> again = Quantity::Parse(q.ToString());
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(*again, q);
    EXPECT_EQ(again->ToString(), q.ToString());
  }
}

struct ErrorCase {
  std::string input;
  std::string_view message;
};

TEST(QuantityTest, ParseErrors) {
  const std::vector<ErrorCase> cases = {
      {"", kFormatError},
      {" 1", kFormatError},
      {"1 ", kFormatError},
      {"\t1", kFormatError},
      {"1.2.3", kFormatError},
      {"1.1.M", kFormatError},
      {"1+1.0M", kFormatError},
      {"1Qi", kFormatError},  // 'Q' cannot start a suffix.
      {"aoeu", kFormatError},
      {"1e3Ki", kFormatError},
      {"1,5", kFormatError},
      {"--1", kSuffixError},  // The second '-' starts a suffix "-1".
      {"1e", kSuffixError},
      {"1e+", kSuffixError},
      {"-3.01e-", kSuffixError},
      {"1kk", kSuffixError},
      {"1ki", kSuffixError},
      {"1K", kSuffixError},
      {"1i", kSuffixError},
      {"0.1mi", kSuffixError},
      {"1Ki2", kSuffixError},
      {"1EE", kSuffixError},
      {"1e9223372036854775808", kSuffixError},  // Exponent beyond int64.
      {".e-10", kNumericError},
      {"-e-20", kNumericError},
      {"1e30", kTooLarge},
      {"1" + std::string(30, '0'), kTooLarge},
      {"1e9223372036854775807", kTooLarge},
      {std::string(400, '9'), kTooLarge},
      {std::string(400, '9') + "e-300", kTooLarge},
      {"170141183460469231731687303715.884105728", kTooLarge},
      {"170141183460469231731687303715.8841057271", kTooLarge},  // Rounds up.
      {"-170141183460469231731687303715.884105728", kTooLarge},
      {"170141183460469231731687303716", kTooLarge},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.input);
    StatusOr<Quantity> q = Quantity::Parse(c.input);
    ASSERT_FALSE(q.ok()) << q->ToString();
    EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(q.status().message(), c.message);
  }
}

TEST(QuantityTest, CompareIsByValueAcrossFormats) {
  struct Case {
    std::string_view a, b;
    int cmp;
  };
  const Case cases[] = {
      {"1Ki", "1024", 0}, {"1k", "1000", 0},  {"1e3", "1k", 0},
      {"1", "1000m", 0},  {"0.5", "500m", 0}, {"1.5Gi", "1536Mi", 0},
      {"1Mi", "1M", 1},   {"-1", "1", -1},    {"1n", "0", 1},
      {"-1n", "0", -1},   {"999m", "1", -1},  {"1E", "1e18", 0},
      {"9Ei", "8Ei", 0},   // Both capped at 2^63-1.
      {"1e-20", "1n", 0},  // Rounded up to 1n.
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.a) + " vs " + std::string(c.b));
    const Quantity a = Q(c.a);
    const Quantity b = Q(c.b);
    EXPECT_EQ(a.Compare(b), c.cmp);
    EXPECT_EQ(b.Compare(a), -c.cmp);
    EXPECT_EQ(a == b, c.cmp == 0);
    EXPECT_EQ(a != b, c.cmp != 0);
    EXPECT_EQ(a < b, c.cmp < 0);
    EXPECT_EQ(a <= b, c.cmp <= 0);
    EXPECT_EQ(a > b, c.cmp > 0);
    EXPECT_EQ(a >= b, c.cmp >= 0);
  }
}

TEST(QuantityTest, AddAndSub) {
  struct Case {
    std::string_view a;
    char op;
    std::string_view b;
    std::string_view result;
  };
  const Case cases[] = {
      {"1", '+', "500m", "1500m"},
      {"1Ki", '+', "1Ki", "2Ki"},
      {"1Ki", '+', "1", "1025"},  // Keeps BinarySI; not a multiple of 1024.
      {"1Gi", '-', "512Mi", "512Mi"},
      {"1e3", '+', "1e3", "2e3"},
      {"1k", '+', "1Ki", "2024"},  // Left operand's format.
      {"1k", '-', "1k", "0"},
      {"1", '-', "2", "-1"},
      {"100m", '+', "1Gi", "1073741824100m"},
      {"0", '+', "1Ki",
       "1Ki"},  // A zero left operand takes the right's format.
      {"0", '-', "1Ki", "-1Ki"},
      {"0", '+', "1e3", "1e3"},
      {"7Ei", '+', "7Ei", "14Ei"},  // Only parsing caps BinarySI.
      {"4Ei", '+', "4Ei", "8Ei"},
      {"1n", '-', "2n", "-1n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.a) + " " + c.op + " " + std::string(c.b));
    const Quantity a = Q(c.a);
    const Quantity b = Q(c.b);
    StatusOr<Quantity> r = c.op == '+' ? a.Add(b) : a.Sub(b);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->ToString(), c.result);
  }
}

TEST(QuantityTest, BinarySuffixStopsAtEi) {
  Quantity q = Q("4Ei");
  for (int i = 0; i < 8; ++i) {
    StatusOr<Quantity> doubled = q.Add(q);
    ASSERT_TRUE(doubled.ok()) << doubled.status();
    q = *doubled;
  }
  EXPECT_EQ(q.ToString(), "1024Ei");
  EXPECT_EQ(q.Neg().ToString(), "-1024Ei");
}

TEST(QuantityTest, AddAndSubOverflowIsAnError) {
  const Quantity max = Q(kMaxNanosText);
  const Quantity min = max.Neg();
  const Quantity one_nano = Q("1n");
  EXPECT_EQ(max.Add(one_nano).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(max.Add(one_nano).status().message(), kTooLarge);
  EXPECT_EQ(min.Sub(one_nano).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(max.Sub(min).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(min.Add(min).status().code(), StatusCode::kOutOfRange);
  StatusOr<Quantity> zero = max.Add(min);
  ASSERT_TRUE(zero.ok());
  EXPECT_TRUE(zero->IsZero());
  StatusOr<Quantity> almost = max.Sub(one_nano);
  ASSERT_TRUE(almost.ok());
  EXPECT_LT(*almost, max);
}

TEST(QuantityTest, ValueAndMilliValueRoundAwayFromZero) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  struct Case {
    std::string_view input;
    int64_t value;
    int64_t milli;
  };
  const Case cases[] = {
      {"0", 0, 0},
      {"1", 1, 1000},
      {"1500m", 2, 1500},
      {"-1500m", -2, -1500},
      {"1n", 1, 1},
      {"-1n", -1, -1},
      {"1.0001m", 1, 2},
      {"999m", 1, 999},
      {"1Ki", 1024, 1024000},
      {"-2.5", -3, -2500},
      {"9223372036854775807", kMax, kMax},
      {"-9223372036854775808", kMin, kMin},
      {"9223372036854775808", kMax, kMax},   // Saturates.
      {"-9223372036854775809", kMin, kMin},  // Saturates.
      {"100E", kMax, kMax},
      {"-100E", kMin, kMin},
      {"9223372036854775.807", 9223372036854776, kMax},
      {"-9223372036854775.808", -9223372036854776, kMin},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input);
    const Quantity q = Q(c.input);
    EXPECT_EQ(q.Value(), c.value);
    EXPECT_EQ(q.MilliValue(), c.milli);
  }
}

TEST(QuantityTest, SignZeroAndNeg) {
  EXPECT_EQ(Q("5").Sign(), 1);
  EXPECT_EQ(Q("-5m").Sign(), -1);
  EXPECT_EQ(Q("0Ki").Sign(), 0);
  EXPECT_TRUE(Q("0e5").IsZero());
  EXPECT_TRUE(Quantity().IsZero());
  EXPECT_FALSE(Q("1n").IsZero());
  EXPECT_EQ(Q("1.5Gi").Neg().ToString(), "-1536Mi");
  EXPECT_EQ(Q("-1e3").Neg().ToString(), "1e3");
  EXPECT_EQ(Q("0").Neg().ToString(), "0");
  EXPECT_EQ(Q("2Ki").Neg().format(), kBinSI);
}

TEST(QuantityTest, AsApproximateDouble) {
  EXPECT_EQ(Q("1.5").AsApproximateDouble(), 1.5);
  EXPECT_EQ(Q("1Ki").AsApproximateDouble(), 1024.0);
  EXPECT_EQ(Q("-100m").AsApproximateDouble(), -0.1);
  EXPECT_EQ(Q("1n").AsApproximateDouble(), 1e-9);
  EXPECT_EQ(Q("1e29").AsApproximateDouble(), 1e29);
  EXPECT_EQ(Q("0").AsApproximateDouble(), 0.0);
}

TEST(QuantityTest, Constructors) {
  EXPECT_EQ(Quantity().ToString(), "0");
  EXPECT_EQ(Quantity().format(), kDecSI);
  EXPECT_EQ(Quantity::FromInt64(2048, kBinSI).ToString(), "2Ki");
  EXPECT_EQ(Quantity::FromInt64(2048).ToString(), "2048");
  EXPECT_EQ(Quantity::FromInt64(-5).ToString(), "-5");
  EXPECT_EQ(Quantity::FromInt64(3000, kDecExp).ToString(), "3e3");
  EXPECT_EQ(Quantity::FromInt64(std::numeric_limits<int64_t>::min()).Value(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Quantity::FromMilli(1).ToString(), "1m");
  EXPECT_EQ(Quantity::FromMilli(1000).ToString(), "1");
  EXPECT_EQ(Quantity::FromMilli(1234000).ToString(), "1234");
  EXPECT_EQ(Quantity::FromMilli(1024, kBinSI).ToString(), "1024m");
  EXPECT_EQ(Quantity::FromMilli(1024 * 1024, kBinSI).ToString(), "1048576m");
  Quantity q = Quantity::FromInt64(1024);
  q.set_format(kBinSI);
  EXPECT_EQ(q.ToString(), "1Ki");
}

// A random string: either anything over the grammar's alphabet, or a
// well-formed-looking number (up to 45 digits) with a random suffix.
std::string RandomQuantityText(std::mt19937& rng) {
  constexpr std::string_view kAlphabet = "0123456789.+-eEinumkKMGTP";
  static const char* const kSuffixes[] = {
      "",   "n",  "u",  "m",   "k",    "M",   "G",    "T",   "P",
      "E",  "Ki", "Mi", "Gi",  "Ti",   "Pi",  "Ei",   "e3",  "E-7",
      "e+", "e",  "ki", "e30", "e-40", "e12", "E-12", "Ei5", "Q"};
  std::string text;
  if (rng() % 3 == 0) {
    text.resize(rng() % 12);
    for (char& ch : text) ch = kAlphabet[rng() % kAlphabet.size()];
    return text;
  }
  if (rng() % 4 == 0) text += (rng() % 2 == 0) ? '-' : '+';
  const size_t digits = rng() % 46;
  const size_t dot = rng() % (digits + 2);
  for (size_t i = 0; i < digits; ++i) {
    if (i == dot) text += '.';
    text += static_cast<char>('0' + rng() % 10);
  }
  text += kSuffixes[rng() % std::size(kSuffixes)];
  return text;
}

// Parsing never crashes, and whatever parses prints a canonical form that
// parses back to the same value.
TEST(QuantityTest, RandomInputsParseCleanlyOrFail) {
  std::mt19937 rng(20240601);
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string text = RandomQuantityText(rng);
    SCOPED_TRACE(text);
    StatusOr<Quantity> q = Quantity::Parse(text);
    if (!q.ok()) {
      EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument);
      continue;
    }
    ++parsed;
    StatusOr<Quantity> again = Quantity::Parse(q->ToString());
    ASSERT_TRUE(again.ok()) << q->ToString() << ": " << again.status();
    EXPECT_EQ(*again, *q);
    EXPECT_EQ(again->ToString(), q->ToString());
    EXPECT_EQ(q->Neg().Neg(), *q);
  }
  EXPECT_GT(parsed, 5000);  // The generator mostly makes valid quantities.
}

TEST(QuantityTest, FormatNamesAndStreaming) {
  EXPECT_EQ(QuantityFormatName(kDecSI), "DecimalSI");
  EXPECT_EQ(QuantityFormatName(kBinSI), "BinarySI");
  EXPECT_EQ(QuantityFormatName(kDecExp), "DecimalExponent");
  std::ostringstream os;
  os << Q("1.5Gi");
  EXPECT_EQ(os.str(), "1536Mi");
}

}  // namespace
}  // namespace dralloc
