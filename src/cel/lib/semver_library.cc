#include "cel/lib/semver_library.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/lib/kubernetes_library_util.h"

namespace dralloc::cel {
namespace {

using k8s_internal::ArgTraversalCost;
using k8s_internal::GoQuote;
using k8s_internal::MakeOverload;
using k8s_internal::RegisterComparable;
using k8s_internal::ScaleEstimate;
using k8s_internal::UnitSize;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsAlphanum(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         c == '-';
}

bool AllDigits(std::string_view s) {
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

bool AllAlphanum(std::string_view s) {
  for (char c : s) {
    if (!IsAlphanum(c)) return false;
  }
  return true;
}

bool HasLeadingZeroes(std::string_view s) {
  return s.size() > 1 && s[0] == '0';
}

// Splits on every `sep` (Go strings.Split), or into at most `limit` parts.
std::vector<std::string_view> Split(std::string_view s, char sep,
                                    size_t limit = 0) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (limit == 0 || parts.size() + 1 < limit) {
    const size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) break;
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
  parts.push_back(s.substr(start));
  return parts;
}

// strconv.ParseUint(s, 10, 64) for a string of digits only.
Status ParseUint64(std::string_view s, uint64_t* out) {
  if (s.empty()) {
    return InvalidArgumentError("strconv.ParseUint: parsing " + GoQuote(s) +
                                ": invalid syntax");
  }
  uint64_t v = 0;
  for (char c : s) {
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) {
      return InvalidArgumentError("strconv.ParseUint: parsing " + GoQuote(s) +
                                  ": value out of range");
    }
    v = v * 10 + d;
  }
  *out = v;
  return OkStatus();
}

// major or minor: digits, no leading zero, fits in uint64.
Status ParseNumber(std::string_view s, std::string_view lower,
                   std::string_view upper, uint64_t* out) {
  if (!AllDigits(s)) {
    return InvalidArgumentError("Invalid character(s) found in " +
                                std::string(lower) + " number " + GoQuote(s));
  }
  if (HasLeadingZeroes(s)) {
    return InvalidArgumentError(std::string(upper) +
                                " number must not contain leading zeroes " +
                                GoQuote(s));
  }
  return ParseUint64(s, out);
}

// blang/semver v4 Parse: strict semver 2.0 with its error messages.
StatusOr<SemVer> StrictParse(std::string_view s) {
  if (s.empty()) return InvalidArgumentError("Version string empty");
  const std::vector<std::string_view> parts = Split(s, '.', 3);
  if (parts.size() != 3) {
    return InvalidArgumentError("No Major.Minor.Patch elements found");
  }
  SemVer v;
  Status st = ParseNumber(parts[0], "major", "Major", &v.major);
  if (!st.ok()) return st;
  st = ParseNumber(parts[1], "minor", "Minor", &v.minor);
  if (!st.ok()) return st;

  std::string_view patch = parts[2];
  std::string_view build;
  bool has_build = false;
  if (size_t plus = patch.find('+'); plus != std::string_view::npos) {
    build = patch.substr(plus + 1);
    has_build = true;
    patch = patch.substr(0, plus);
  }
  std::string_view pre;
  bool has_pre = false;
  if (size_t dash = patch.find('-'); dash != std::string_view::npos) {
    pre = patch.substr(dash + 1);
    has_pre = true;
    patch = patch.substr(0, dash);
  }
  st = ParseNumber(patch, "patch", "Patch", &v.patch);
  if (!st.ok()) return st;

  if (has_pre) {
    for (std::string_view id : Split(pre, '.')) {
      if (id.empty()) return InvalidArgumentError("Prerelease is empty");
      if (AllDigits(id)) {
        if (HasLeadingZeroes(id)) {
          return InvalidArgumentError(
              "Numeric PreRelease version must not contain leading zeroes " +
              GoQuote(id));
        }
        uint64_t unused = 0;
        st = ParseUint64(id, &unused);
        if (!st.ok()) return st;
      } else if (!AllAlphanum(id)) {
        return InvalidArgumentError(
            "Invalid character(s) found in prerelease " + GoQuote(id));
      }
      v.pre_release.emplace_back(id);
    }
  }
  if (has_build) {
    for (std::string_view id : Split(build, '.')) {
      if (id.empty()) return InvalidArgumentError("Build meta data is empty");
      if (!AllAlphanum(id)) {
        return InvalidArgumentError(
            "Invalid character(s) found in build meta data " + GoQuote(id));
      }
    }
    v.build = std::string(build);
  }
  return v;
}

// Upstream's normalizeAndParse rewrite.
StatusOr<SemVer> NormalizeAndParse(std::string_view s) {
  if (!s.empty() && s[0] == 'v') s.remove_prefix(1);
  std::vector<std::string> parts;
  for (std::string_view p : Split(s, '.', 3)) {
    std::string part(p);
    if (part.size() > 1) {
      const size_t first = part.find_first_not_of('0');
      part = first == std::string::npos ? std::string() : part.substr(first);
      if (part.empty() || !IsDigit(part[0])) part.insert(0, "0");
    }
    parts.push_back(std::move(part));
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      return InvalidArgumentError(
          "short version cannot contain PreRelease/Build meta data");
    }
    while (parts.size() < 3) parts.emplace_back("0");
  }
  return StrictParse(parts[0] + "." + parts[1] + "." + parts[2]);
}

// ---- costs ----

uint64_t ParseCost(std::span<const Value> args, const Value&) {
  return ArgTraversalCost(args, 0);
}
CostEstimate ParseEstimate(std::span<const SizeEstimate> args) {
  return ScaleEstimate(args[0], k8s_internal::kStringTraversalCostFactor);
}

// ---- implementations ----

Value ToValue(StatusOr<SemVer> v) {
  if (!v.ok()) return Value::Error(v.status().message());
  return MakeSemverValue(std::move(*v));
}

Value StringToSemver(const CallContext&, std::span<const Value> args) {
  return ToValue(StrictParse(args[0].string_view()));
}

Value StringBoolToSemver(const CallContext&, std::span<const Value> args) {
  return ToValue(
      ParseSemverForCel(args[0].string_view(), args[1].bool_value()));
}

Value IsSemver(const CallContext&, std::span<const Value> args) {
  return Value::Bool(StrictParse(args[0].string_view()).ok());
}

Value IsSemverNormalize(const CallContext&, std::span<const Value> args) {
  return Value::Bool(
      ParseSemverForCel(args[0].string_view(), args[1].bool_value()).ok());
}

template <typename Fn>
Value Unary(std::span<const Value> args, std::string_view function, Fn fn) {
  const SemVer* v = AsSemver(args[0]);
  if (v == nullptr) return NoMatchingOverload(function);
  return fn(*v);
}

// Upstream converts the uint64 fields with types.Int(v.Major) (wrapping).
Value Major(const CallContext&, std::span<const Value> args) {
  return Unary(args, "major", [](const SemVer& v) {
    return Value::Int(static_cast<int64_t>(v.major));
  });
}

Value Minor(const CallContext&, std::span<const Value> args) {
  return Unary(args, "minor", [](const SemVer& v) {
    return Value::Int(static_cast<int64_t>(v.minor));
  });
}

Value Patch(const CallContext&, std::span<const Value> args) {
  return Unary(args, "patch", [](const SemVer& v) {
    return Value::Int(static_cast<int64_t>(v.patch));
  });
}

// Prechecked variants (Overload::prechecked_impl): the dispatcher has
// matched both arguments to kubernetes.Semver, whose only implementation is
// SemverValue.
const SemVer& Checked(const Value& v) {
  return static_cast<const SemverValue&>(v.opaque()).semver();
}

}  // namespace

bool SemverValue::Equals(const OpaqueValue& other) const {
  if (other.TypeName() != kSemverTypeName) return false;
  return semver_.Compare(static_cast<const SemverValue&>(other).semver_) == 0;
}

std::string SemverValue::DebugString() const { return semver_.ToString(); }

Type SemverType() { return Type::Opaque(kSemverTypeName); }

Value MakeSemverValue(SemVer v) {
  return Value::Opaque(new SemverValue(std::move(v)));
}

StatusOr<SemVer> ParseSemverForCel(std::string_view text, bool normalize) {
  return normalize ? NormalizeAndParse(text) : StrictParse(text);
}

void RegisterSemverLibrary(FunctionRegistry& registry) {
  const Type v = SemverType();
  const Type s = Type::String();
  const Type b = Type::Bool();

  Overload parse = MakeOverload("string_to_semver", "semver", false, {s}, v,
                                &StringToSemver, &ParseCost, &ParseEstimate);
  parse.estimate_size = &UnitSize;
  registry.Add(std::move(parse));
  Overload parse_normalize =
      MakeOverload("string_bool_to_semver", "semver", false, {s, b}, v,
                   &StringBoolToSemver, &ParseCost, &ParseEstimate);
  parse_normalize.estimate_size = &UnitSize;
  registry.Add(std::move(parse_normalize));
  registry.Add(MakeOverload("is_semver_string", "isSemver", false, {s}, b,
                            &IsSemver, &ParseCost, &ParseEstimate));
  registry.Add(MakeOverload("is_semver_string_bool", "isSemver", false, {s, b},
                            b, &IsSemverNormalize, &ParseCost, &ParseEstimate));
  RegisterComparable<&AsSemver, &Checked>(registry, "semver", v);
  registry.Add(
      MakeOverload("semver_major", "major", true, {v}, Type::Int(), &Major));
  registry.Add(
      MakeOverload("semver_minor", "minor", true, {v}, Type::Int(), &Minor));
  registry.Add(
      MakeOverload("semver_patch", "patch", true, {v}, Type::Int(), &Patch));
}

}  // namespace dralloc::cel
