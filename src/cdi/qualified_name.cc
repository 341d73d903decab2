#include "cdi/qualified_name.h"

#include <fmt/format.h>

#include "common/text_escape.h"

namespace dralloc::cdi {
namespace {

constexpr size_t kMaxVendorBytes = 253;
constexpr size_t kMaxClassBytes = 63;

bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsAlphanumeric(char c) { return IsLetter(c) || (c >= '0' && c <= '9'); }

// `c` rendered for a message: printable ASCII as 'c', else Go-quoted.
std::string Char(char c) {
  if (c > ' ' && c < 0x7f) return fmt::format("'{}'", c);
  return GoQuote(std::string_view(&c, 1));
}

// "'-', '_' and '.'" for "-_.".
std::string CharList(std::string_view chars) {
  std::string out;
  for (size_t i = 0; i < chars.size(); ++i) {
    if (i > 0) out += i + 1 == chars.size() ? " and " : ", ";
    out += Char(chars[i]);
  }
  return out;
}

// The shared shape: a letter (or, unless `letter_first`, a digit) first,
// alphanumerics or `inner` in the middle, alphanumeric last, at most
// `max_bytes`.
Status CheckShape(std::string_view name, bool letter_first,
                  std::string_view inner, size_t max_bytes) {
  if (name.empty()) return InvalidArgumentError("must not be empty");
  if (name.size() > max_bytes) {
    return InvalidArgumentError(
        fmt::format("must be no more than {} bytes", max_bytes));
  }
  if (letter_first ? !IsLetter(name.front()) : !IsAlphanumeric(name.front())) {
    return InvalidArgumentError(letter_first
                                    ? "must start with a letter"
                                    : "must start with a letter or digit");
  }
  for (size_t i = 1; i + 1 < name.size(); ++i) {
    char c = name[i];
    if (!IsAlphanumeric(c) && inner.find(c) == std::string_view::npos) {
      return InvalidArgumentError(fmt::format(
          "invalid character {} at offset {}: only letters, digits, {} "
          "are allowed",
          Char(c), i, CharList(inner)));
    }
  }
  if (!IsAlphanumeric(name.back())) {
    return InvalidArgumentError("must end with a letter or digit");
  }
  return OkStatus();
}

}  // namespace

std::string QualifiedDeviceName::ToString() const {
  return kind.ToString() + "=" + device;
}

Status ValidateVendorName(std::string_view vendor) {
  return CheckShape(vendor, /*letter_first=*/true, "-_.", kMaxVendorBytes);
}

Status ValidateClassName(std::string_view class_name) {
  return CheckShape(class_name, /*letter_first=*/true, "-_.", kMaxClassBytes);
}

Status ValidateDeviceName(std::string_view device) {
  return CheckShape(device, /*letter_first=*/false,
                    "-_.:", std::string_view::npos);
}

namespace {

// Splits and validates "vendor/class"; the error is the problem alone.
StatusOr<Kind> SplitKind(std::string_view kind) {
  size_t slash = kind.find('/');
  if (slash == std::string_view::npos) {
    return InvalidArgumentError("must be vendor/class, e.g. vendor.com/gpu");
  }
  Kind out{std::string(kind.substr(0, slash)),
           std::string(kind.substr(slash + 1))};
  if (Status s = ValidateVendorName(out.vendor); !s.ok()) {
    return InvalidArgumentError(
        fmt::format("vendor {}: {}", GoQuote(out.vendor), s.message()));
  }
  if (Status s = ValidateClassName(out.class_name); !s.ok()) {
    return InvalidArgumentError(
        fmt::format("class {}: {}", GoQuote(out.class_name), s.message()));
  }
  return out;
}

}  // namespace

Status ValidateKind(std::string_view kind) { return SplitKind(kind).status(); }

StatusOr<Kind> ParseKind(std::string_view kind) {
  StatusOr<Kind> parsed = SplitKind(kind);
  if (!parsed.ok()) {
    return InvalidArgumentError(fmt::format(
        "invalid CDI kind {}: {}", GoQuote(kind), parsed.status().message()));
  }
  return parsed;
}

StatusOr<QualifiedDeviceName> ParseQualifiedName(std::string_view text) {
  auto fail = [&](std::string_view problem) {
    return InvalidArgumentError(
        fmt::format("invalid CDI device name {}: {}", GoQuote(text), problem));
  };
  size_t equals = text.find('=');
  if (equals == std::string_view::npos) {
    return fail("must be vendor/class=device, e.g. vendor.com/gpu=gpu0");
  }
  StatusOr<Kind> kind = SplitKind(text.substr(0, equals));
  if (!kind.ok()) return fail(kind.status().message());
  std::string_view device = text.substr(equals + 1);
  if (Status s = ValidateDeviceName(device); !s.ok()) {
    return fail(fmt::format("device {}: {}", GoQuote(device), s.message()));
  }
  return QualifiedDeviceName{*std::move(kind), std::string(device)};
}

}  // namespace dralloc::cdi
