#include "common/semver.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace dralloc {
namespace {

constexpr size_t kMaxQuotedLength = 64;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsIdentifierChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         c == '-';
}

bool AllDigits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), IsDigit);
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

// `s` in double quotes, shortened with "..." past kMaxQuotedLength bytes.
// Nothing is escaped, unlike GoQuote (common/text_escape.h): these messages
// keep the raw bytes they were given (the tests pin the truncated form).
std::string Quote(std::string_view s) {
  if (s.size() <= kMaxQuotedLength) return "\"" + std::string(s) + "\"";
  return "\"" + std::string(s.substr(0, kMaxQuotedLength)) + "...\"";
}

// Splits on every '.'; "" gives {""} and "a." gives {"a", ""}.
std::vector<std::string_view> SplitDots(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t dot = s.find('.'); dot != std::string_view::npos;
       dot = s.find('.', start)) {
    parts.push_back(s.substr(start, dot - start));
    start = dot + 1;
  }
  parts.push_back(s.substr(start));
  return parts;
}

// Parses one of major/minor/patch (`what` names it in errors).
StatusOr<uint64_t> ParseVersionNumber(std::string_view s,
                                      std::string_view what) {
  const std::string name(what);
  if (s.empty()) return InvalidArgumentError(name + " number is empty");
  if (!AllDigits(s)) {
    return InvalidArgumentError("invalid character(s) found in " + name +
                                " number " + Quote(s));
  }
  if (s.size() > 1 && s[0] == '0') {
    return InvalidArgumentError(name + " number " + Quote(s) +
                                " has a leading zero");
  }
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return InvalidArgumentError(name + " number " + Quote(s) +
                                " does not fit in 64 bits");
  }
  return value;
}

// Checks the dot-separated identifiers of a pre-release (`what` is
// "pre-release") or build metadata ("build metadata").
Status ValidateIdentifiers(std::string_view s, std::string_view what,
                           bool numeric_leading_zero_allowed) {
  const std::string name(what);
  if (s.empty()) return InvalidArgumentError(name + " is empty");
  for (std::string_view id : SplitDots(s)) {
    if (id.empty()) {
      return InvalidArgumentError("empty identifier in " + name + " " +
                                  Quote(s));
    }
    if (!std::all_of(id.begin(), id.end(), IsIdentifierChar)) {
      return InvalidArgumentError("invalid character(s) found in " + name +
                                  " identifier " + Quote(id));
    }
    if (!numeric_leading_zero_allowed && id.size() > 1 && id[0] == '0' &&
        AllDigits(id)) {
      return InvalidArgumentError("numeric " + name + " identifier " +
                                  Quote(id) + " has a leading zero");
    }
  }
  return OkStatus();
}

// Parses `major.minor.patch` into `out`.
Status ParseCore(std::string_view core, SemVer& out) {
  const std::vector<std::string_view> parts = SplitDots(core);
  if (parts.size() != 3) {
    return InvalidArgumentError(
        "version core " + Quote(core) +
        " must have exactly three dot-separated numbers (major.minor.patch)");
  }
  ASSIGN_OR_RETURN(out.major, ParseVersionNumber(parts[0], "major"));
  ASSIGN_OR_RETURN(out.minor, ParseVersionNumber(parts[1], "minor"));
  ASSIGN_OR_RETURN(out.patch, ParseVersionNumber(parts[2], "patch"));
  return OkStatus();
}

// ParseStrict without the "invalid semantic version" prefix on errors.
StatusOr<SemVer> ParseStrictImpl(std::string_view text) {
  if (text.empty()) return InvalidArgumentError("version string is empty");
  if (text[0] == 'v' || text[0] == 'V') {
    return InvalidArgumentError("a leading \"v\" is not allowed");
  }
  SemVer v;
  const size_t plus = text.find('+');
  if (plus != std::string_view::npos) {
    const std::string_view build = text.substr(plus + 1);
    RETURN_IF_ERROR(ValidateIdentifiers(build, "build metadata",
                                        /*numeric_leading_zero_allowed=*/true));
    v.build = std::string(build);
    text = text.substr(0, plus);
  }
  const size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    const std::string_view pre = text.substr(dash + 1);
    RETURN_IF_ERROR(
        ValidateIdentifiers(pre, "pre-release",
                            /*numeric_leading_zero_allowed=*/false));
    for (std::string_view id : SplitDots(pre)) v.pre_release.emplace_back(id);
    text = text.substr(0, dash);
  }
  RETURN_IF_ERROR(ParseCore(text, v));
  return v;
}

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// "007" -> "7", "0" -> "0"; anything not all digits is returned unchanged.
std::string_view DropLeadingZeros(std::string_view s) {
  if (!AllDigits(s)) return s;
  while (s.size() > 1 && s[0] == '0') s.remove_prefix(1);
  return s;
}

// Rewrites an informal version into the strict form (see ParseTolerant).
std::string NormalizeTolerant(std::string_view text) {
  text = TrimSpace(text);
  if (!text.empty() && (text[0] == 'v' || text[0] == 'V')) {
    text.remove_prefix(1);
  }
  const size_t core_end = std::min(text.find_first_of("-+"), text.size());
  const std::vector<std::string_view> parts =
      SplitDots(text.substr(0, core_end));
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '.';
    out += DropLeadingZeros(parts[i]);
  }
  for (size_t i = parts.size(); i < 3; ++i) out += ".0";
  out += text.substr(core_end);
  return out;
}

// Compares two pre-release identifiers per semver precedence.
int CompareIdentifiers(std::string_view a, std::string_view b) {
  const bool a_numeric = !a.empty() && AllDigits(a);
  const bool b_numeric = !b.empty() && AllDigits(b);
  if (a_numeric && b_numeric) {
    a = DropLeadingZeros(a);
    b = DropLeadingZeros(b);
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  } else if (a_numeric != b_numeric) {
    return a_numeric ? -1 : 1;
  }
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

int ComparePreRelease(const std::vector<std::string>& a,
                      const std::vector<std::string>& b) {
  if (a.empty() || b.empty()) {
    // A release (no identifiers) ranks above any pre-release.
    return a.empty() == b.empty() ? 0 : (a.empty() ? 1 : -1);
  }
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (int c = CompareIdentifiers(a[i], b[i]); c != 0) return c;
  }
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

int CompareNumbers(uint64_t a, uint64_t b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

Status WithInput(const Status& status, std::string_view text) {
  return status.WithPrefix("invalid semantic version " + Quote(text));
}

}  // namespace

StatusOr<SemVer> SemVer::ParseStrict(std::string_view text) {
  StatusOr<SemVer> v = ParseStrictImpl(text);
  if (!v.ok()) return WithInput(v.status(), text);
  return v;
}

StatusOr<SemVer> SemVer::ParseTolerant(std::string_view text) {
  if (TrimSpace(text).empty()) {
    return WithInput(InvalidArgumentError("version string is empty"), text);
  }
  StatusOr<SemVer> v = ParseStrictImpl(NormalizeTolerant(text));
  if (!v.ok()) return WithInput(v.status(), text);
  return v;
}

int SemVer::Compare(const SemVer& other) const {
  if (int c = CompareNumbers(major, other.major); c != 0) return c;
  if (int c = CompareNumbers(minor, other.minor); c != 0) return c;
  if (int c = CompareNumbers(patch, other.patch); c != 0) return c;
  return ComparePreRelease(pre_release, other.pre_release);
}

std::string SemVer::ToString() const {
  std::string out = std::to_string(major) + "." + std::to_string(minor) + "." +
                    std::to_string(patch);
  for (size_t i = 0; i < pre_release.size(); ++i) {
    out += i == 0 ? '-' : '.';
    out += pre_release[i];
  }
  if (!build.empty()) out += "+" + build;
  return out;
}

std::ostream& operator<<(std::ostream& os, const SemVer& v) {
  return os << v.ToString();
}

namespace {

// A numeric identifier of the version core: "0" or no leading zero, fits
// uint64.
bool IsCoreNumber(std::string_view digits) {
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return false;
  uint64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10)
      return false;
    value = value * 10 + digit;
  }
  return true;
}

// Dot-separated non-empty identifiers; with `numeric_rule`, all-digit
// identifiers must not have leading zeros (pre-release, not build).
bool IsIdentifierList(std::string_view list, bool numeric_rule) {
  while (true) {
    const size_t dot = list.find('.');
    const std::string_view id = list.substr(0, dot);
    if (id.empty()) return false;
    bool all_digits = true;
    for (char c : id) {
      if (!IsIdentifierChar(c)) return false;
      all_digits = all_digits && c >= '0' && c <= '9';
    }
    if (numeric_rule && all_digits && id.size() > 1 && id[0] == '0')
      return false;
    if (dot == std::string_view::npos) return true;
    list.remove_prefix(dot + 1);
  }
}

}  // namespace

bool SemVer::IsStrict(std::string_view text) {
  std::string_view build, pre_release;
  const size_t plus = text.find('+');
  if (plus != std::string_view::npos) {
    build = text.substr(plus + 1);
    text = text.substr(0, plus);
    if (!IsIdentifierList(build, /*numeric_rule=*/false)) return false;
  }
  const size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    pre_release = text.substr(dash + 1);
    text = text.substr(0, dash);
    if (!IsIdentifierList(pre_release, /*numeric_rule=*/true)) return false;
  }
  for (int part = 0; part < 3; ++part) {
    const size_t dot = text.find('.');
    if ((part < 2) == (dot == std::string_view::npos)) return false;
    if (!IsCoreNumber(text.substr(0, dot))) return false;
    if (dot != std::string_view::npos) text.remove_prefix(dot + 1);
  }
  return true;
}

}  // namespace dralloc
