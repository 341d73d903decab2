#include "cel/lib/format_library.h"

#include <array>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/lib/kubernetes_library_util.h"
#include "cel/lib/url_library.h"
#include "common/name_patterns.h"

namespace dralloc::cel {
namespace {

using k8s_internal::kRegexStringLengthCostFactor;
using k8s_internal::kStringTraversalCostFactor;
using k8s_internal::MakeOverload;
using k8s_internal::ScaleEstimate;

using Errors = std::vector<std::string>;

// ---- k8s.io/apimachinery validation messages ----

constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric character";
constexpr int kDns1123LabelMaxLength = 63;

constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character";
constexpr int kDns1123SubdomainMaxLength = 253;

constexpr std::string_view kDns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1035LabelErrMsg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or "
    "'-', start with an alphabetic character, and end with an alphanumeric "
    "character";
constexpr int kDns1035LabelMaxLength = 63;

constexpr std::string_view kLabelKeyFmt =
    "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelKeyErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character";
constexpr int kLabelKeyMaxLength = 63;

constexpr std::string_view kLabelValueFmt =
    "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character";
constexpr int kLabelValueMaxLength = 63;

std::string MaxLenError(int length) {
  return "must be no more than " + std::to_string(length) + " bytes";
}

std::string RegexError(std::string_view msg, std::string_view re,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  if (examples.size() == 0) {
    return out + " (regex used for validation is '" + std::string(re) + "')";
  }
  out += " (e.g. ";
  bool first = true;
  for (std::string_view example : examples) {
    if (!first) out += " or ";
    first = false;
    out += "'" + std::string(example) + "', ";
  }
  out += "regex used for validation is '" + std::string(re) + "')";
  return out;
}

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

// ^[a-z]([-a-z0-9]*[a-z0-9])?$
bool MatchesDns1035Label(std::string_view s) {
  return MatchesDns1123LabelPattern(s) && s[0] >= 'a' && s[0] <= 'z';
}

Errors IsDns1123Label(std::string_view value) {
  Errors errs;
  if (value.size() > static_cast<size_t>(kDns1123LabelMaxLength)) {
    errs.push_back(MaxLenError(kDns1123LabelMaxLength));
  }
  if (!MatchesDns1123LabelPattern(value)) {
    if (MatchesDns1123SubdomainPattern(value)) {
      errs.emplace_back("must not contain dots");
    } else {
      errs.push_back(RegexError(kDns1123LabelErrMsg, kDns1123LabelFmt,
                                {"my-name", "123-abc"}));
    }
  }
  return errs;
}

Errors IsDns1123Subdomain(std::string_view value) {
  Errors errs;
  if (value.size() > static_cast<size_t>(kDns1123SubdomainMaxLength)) {
    errs.push_back(MaxLenError(kDns1123SubdomainMaxLength));
  }
  if (!MatchesDns1123SubdomainPattern(value)) {
    errs.push_back(RegexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt,
                              {"example.com"}));
  }
  return errs;
}

Errors IsDns1035Label(std::string_view value) {
  Errors errs;
  if (value.size() > static_cast<size_t>(kDns1035LabelMaxLength)) {
    errs.push_back(MaxLenError(kDns1035LabelMaxLength));
  }
  if (!MatchesDns1035Label(value)) {
    errs.push_back(RegexError(kDns1035LabelErrMsg, kDns1035LabelFmt,
                              {"my-name", "abc-123"}));
  }
  return errs;
}

// content.IsLabelKey (validation.IsQualifiedName).
Errors IsQualifiedName(std::string_view value) {
  Errors errs;
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t slash = value.find('/', start);
    parts.push_back(value.substr(start, slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  std::string_view name;
  if (parts.size() == 1) {
    name = parts[0];
  } else if (parts.size() == 2) {
    const std::string_view prefix = parts[0];
    name = parts[1];
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else {
      for (std::string& msg : IsDns1123Subdomain(prefix)) {
        errs.push_back("prefix part " + msg);
      }
    }
  } else {
    errs.push_back("a valid label key " +
                   RegexError(kLabelKeyErrMsg, kLabelKeyFmt,
                              {"MyName", "my.name", "123-abc"}) +
                   " with an optional DNS subdomain prefix and '/' (e.g. "
                   "'example.com/MyName')");
    return errs;
  }
  if (name.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else if (name.size() > static_cast<size_t>(kLabelKeyMaxLength)) {
    errs.push_back("name part " + MaxLenError(kLabelKeyMaxLength));
  }
  if (!MatchesQualifiedNamePartPattern(name)) {
    errs.push_back("name part " + RegexError(kLabelKeyErrMsg, kLabelKeyFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

Errors IsLabelValue(std::string_view value) {
  Errors errs;
  if (value.size() > static_cast<size_t>(kLabelValueMaxLength)) {
    errs.push_back(MaxLenError(kLabelValueMaxLength));
  }
  if (!value.empty() && !MatchesQualifiedNamePartPattern(value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, kLabelValueFmt,
                              {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

// apimachinery's maskTrailingDash for the *Prefix formats (a generateName
// prefix may end in '-'). Like upstream it replaces the last two characters.
std::string MaskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') {
    return std::string(name.substr(0, name.size() - 2)) + "a";
  }
  return std::string(name);
}

// ---- kube-openapi strfmt checks ----

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

// (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$
bool IsUuid(std::string_view s) {
  static constexpr int kGroups[] = {8, 4, 4, 4, 12};
  size_t pos = 0;
  for (int g = 0; g < 5; ++g) {
    if (g > 0 && pos < s.size() && s[pos] == '-') ++pos;
    for (int k = 0; k < kGroups[g]; ++k, ++pos) {
      if (pos >= s.size() || !IsHexDigit(s[pos])) return false;
    }
  }
  return pos == s.size();
}

bool IsBase64Char(char c) { return IsAlnum(c) || c == '+' || c == '/'; }

// govalidator's ^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|
// [A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$
bool IsBase64(std::string_view s) {
  if (s.empty() || s.size() % 4 != 0) return false;
  size_t padding = 0;
  if (s.back() == '=') padding = s[s.size() - 2] == '=' ? 2 : 1;
  for (size_t i = 0; i < s.size() - padding; ++i) {
    if (!IsBase64Char(s[i])) return false;
  }
  return true;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int TwoDigits(std::string_view s, size_t pos) {
  return (s[pos] - '0') * 10 + (s[pos + 1] - '0');
}

// Go's time.Parse("2006-01-02", s) succeeds.
bool IsDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!IsDigit(s[i])) return false;
  }
  const int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + TwoDigits(s, 2);
  const int month = TwoDigits(s, 5);
  const int day = TwoDigits(s, 8);
  if (month < 1 || month > 12) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
  int days = kDays[month - 1];
  const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  if (month == 2 && leap) days = 29;
  return day >= 1 && day <= days;
}

// Length of the UTF-8 sequence at s[i] as Go's regexp steps over it (one
// byte for invalid input).
size_t RuneLength(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t len = 1;
  if ((c & 0xE0) == 0xC0) {
    len = 2;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
  }
  if (i + len > s.size()) return 1;
  for (size_t k = 1; k < len; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
  }
  return len;
}

// strfmt.IsDateTime: the lower-cased text split at every 't'; the first part
// is a date and the second matches
//   ^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$
// with hour <= 23, minute <= 59, second <= 59.
bool IsDateTime(std::string_view text) {
  if (text.size() < 4) return false;
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  const std::string_view s = lower;
  const size_t t1 = s.find('t');
  if (t1 == std::string_view::npos || !IsDate(s.substr(0, t1))) return false;
  const size_t t2 = s.find('t', t1 + 1);
  const std::string_view time = s.substr(t1 + 1, t2 - (t1 + 1));
  if (time.size() < 9 || !IsDigit(time[0]) || !IsDigit(time[1]) ||
      time[2] != ':' || !IsDigit(time[3]) || !IsDigit(time[4]) ||
      time[5] != ':' || !IsDigit(time[6]) || !IsDigit(time[7])) {
    return false;
  }
  std::string_view rest = time.substr(8);
  // The zone: "z" or [+-]hh:mm at the very end.
  if (rest.back() == 'z') {
    rest.remove_suffix(1);
  } else {
    if (rest.size() < 6) return false;
    const std::string_view zone = rest.substr(rest.size() - 6);
    if ((zone[0] != '+' && zone[0] != '-') || !IsDigit(zone[1]) ||
        !IsDigit(zone[2]) || zone[3] != ':' || !IsDigit(zone[4]) ||
        !IsDigit(zone[5])) {
      return false;
    }
    rest.remove_suffix(6);
  }
  // Optional fraction: any one character but '\n', then digits.
  if (!rest.empty()) {
    if (rest[0] == '\n') return false;
    const size_t len = RuneLength(rest, 0);
    if (rest.size() <= len) return false;
    for (char c : rest.substr(len)) {
      if (!IsDigit(c)) return false;
    }
  }
  return TwoDigits(time, 0) <= 23 && TwoDigits(time, 3) <= 59 &&
         TwoDigits(time, 6) <= 59;
}

// ---- the formats ----

Errors ValidateDns1123Label(std::string_view s) { return IsDns1123Label(s); }
Errors ValidateDns1123Subdomain(std::string_view s) {
  return IsDns1123Subdomain(s);
}
Errors ValidateDns1035Label(std::string_view s) { return IsDns1035Label(s); }
Errors ValidateQualifiedName(std::string_view s) { return IsQualifiedName(s); }
Errors ValidateDns1123LabelPrefix(std::string_view s) {
  return IsDns1123Label(MaskTrailingDash(s));
}
Errors ValidateDns1123SubdomainPrefix(std::string_view s) {
  return IsDns1123Subdomain(MaskTrailingDash(s));
}
Errors ValidateDns1035LabelPrefix(std::string_view s) {
  return IsDns1035Label(MaskTrailingDash(s));
}
Errors ValidateLabelValue(std::string_view s) { return IsLabelValue(s); }
Errors ValidateUri(std::string_view s) {
  StatusOr<GoUrl> url = GoUrl::ParseRequestUri(s);
  if (!url.ok()) return {url.status().message()};
  return {};
}
Errors ValidateUuid(std::string_view s) {
  if (!IsUuid(s)) return {"does not match the UUID format"};
  return {};
}
Errors ValidateByte(std::string_view s) {
  if (!IsBase64(s)) return {"invalid base64"};
  return {};
}
Errors ValidateDate(std::string_view s) {
  if (!IsDate(s)) return {"invalid date"};
  return {};
}
Errors ValidateDateTime(std::string_view s) {
  if (!IsDateTime(s)) return {"invalid datetime"};
  return {};
}

// MaxRegexSize values: upstream's regex lengths or estimates (govalidator's
// URL regex 1103, base64 84, len(strfmt.UUIDPattern) 70,
// len(strfmt.DateTimePattern) 71).
constexpr std::array<NamedFormat, 13> kFormats = {{
    {"dns1123Label", "DNS1123Label", &ValidateDns1123Label, 30},
    {"dns1123Subdomain", "DNS1123Subdomain", &ValidateDns1123Subdomain, 60},
    {"dns1035Label", "DNS1035Label", &ValidateDns1035Label, 30},
    {"qualifiedName", "QualifiedName", &ValidateQualifiedName, 60},
    {"dns1123LabelPrefix", "DNS1123LabelPrefix", &ValidateDns1123LabelPrefix,
     30},
    {"dns1123SubdomainPrefix", "DNS1123SubdomainPrefix",
     &ValidateDns1123SubdomainPrefix, 60},
    {"dns1035LabelPrefix", "DNS1035LabelPrefix", &ValidateDns1035LabelPrefix,
     30},
    {"labelValue", "LabelValue", &ValidateLabelValue, 40},
    {"uri", "URI", &ValidateUri, 1103},
    {"uuid", "uuid", &ValidateUuid, 70},
    {"byte", "byte", &ValidateByte, 84},
    {"date", "date", &ValidateDate, 71},
    {"datetime", "datetime", &ValidateDateTime, 71},
}};

// upstream cel.MaxNameFormatRegexSize, used by the validate() estimate.
constexpr double kMaxNameFormatRegexSize = 128;

// Static, never reference counted: handed out as borrowed values.
const FormatValue& FormatValueAt(size_t index) {
  static const auto* values = [] {
    auto* v = new std::vector<std::unique_ptr<FormatValue>>();
    for (const NamedFormat& f : kFormats) {
      v->push_back(std::make_unique<FormatValue>(&f));
    }
    return v;
  }();
  return *(*values)[index];
}

// ---- costs ----

// Like matches(): ceil((1 + len) * 0.1) * ceil(MaxRegexSize * 0.25).
uint64_t ValidateCost(std::span<const Value> args, const Value&) {
  const OpaqueValue* o = k8s_internal::OpaqueOf(args[0], kFormatTypeName);
  if (o == nullptr) return 1;
  const NamedFormat& f = static_cast<const FormatValue*>(o)->format();
  const uint64_t str_cost =
      CeilCost(1 + ActualSize(args[1]), kStringTraversalCostFactor);
  const uint64_t regex_cost = CeilCost(static_cast<uint64_t>(f.max_regex_size),
                                       kRegexStringLengthCostFactor);
  return SaturatingMul(str_cost, regex_cost);
}

CostEstimate ValidateEstimate(std::span<const SizeEstimate> args) {
  const CostEstimate c = ScaleEstimate(args[1], kStringTraversalCostFactor);
  const double factor = kMaxNameFormatRegexSize * kRegexStringLengthCostFactor;
  return {CeilCost(c.min, factor), CeilCost(c.max, factor)};
}

// ---- implementations ----

Value Named(const CallContext&, std::span<const Value> args) {
  const std::string_view key = args[0].string_view();
  for (size_t i = 0; i < kFormats.size(); ++i) {
    if (kFormats[i].key == key) {
      return Value::OptionalOf(Value::BorrowedOpaque(&FormatValueAt(i)));
    }
  }
  return Value::OptionalNone();
}

template <size_t kIndex>
Value Constant(const CallContext&, std::span<const Value>) {
  return Value::BorrowedOpaque(&FormatValueAt(kIndex));
}

Value Validate(const CallContext&, std::span<const Value> args) {
  const OpaqueValue* o = k8s_internal::OpaqueOf(args[0], kFormatTypeName);
  if (o == nullptr) return NoMatchingOverload("validate");
  const NamedFormat& f = static_cast<const FormatValue*>(o)->format();
  Errors errs = f.validate(args[1].string_view());
  if (errs.empty()) return Value::OptionalNone();
  std::vector<Value> items;
  items.reserve(errs.size());
  for (std::string& e : errs) items.push_back(Value::String(std::move(e)));
  return Value::OptionalOf(Value::List(new VectorList(std::move(items))));
}

// Upstream estimates format equality as {1, MaxFormatSize} * 0.1; the
// generic `==` estimate reproduces that from this result size.
SizeEstimate FormatSize(std::span<const SizeEstimate>) {
  return SizeEstimate{1, 64};  // upstream cel.MaxFormatSize
}

template <size_t... kIndex>
void RegisterConstants(FunctionRegistry& registry,
                       std::index_sequence<kIndex...>) {
  (registry.Add([] {
    Overload o = MakeOverload("format." + std::string(kFormats[kIndex].key),
                              "format." + std::string(kFormats[kIndex].key),
                              false, {}, FormatType(), &Constant<kIndex>);
    o.estimate_size = &FormatSize;
    return o;
  }()),
   ...);
}

}  // namespace

const NamedFormat* FindNamedFormat(std::string_view key) {
  for (const NamedFormat& f : kFormats) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

std::span<const NamedFormat> AllNamedFormats() { return kFormats; }

bool FormatValue::Equals(const OpaqueValue& other) const {
  if (other.TypeName() != kFormatTypeName) return false;
  return format_->name == static_cast<const FormatValue&>(other).format_->name;
}

std::string FormatValue::DebugString() const {
  return "format." + std::string(format_->key) + "()";
}

Type FormatType() { return Type::Opaque(kFormatTypeName); }

void RegisterFormatLibrary(FunctionRegistry& registry) {
  const Type f = FormatType();
  const Type s = Type::String();
  registry.Add(MakeOverload("format-named", "format.named", false, {s},
                            Type::Optional(f), &Named));
  registry.Add(MakeOverload("format-validate", "validate", true, {f, s},
                            Type::Optional(Type::List(s)), &Validate,
                            &ValidateCost, &ValidateEstimate));
  RegisterConstants(registry, std::make_index_sequence<kFormats.size()>());
}

}  // namespace dralloc::cel
