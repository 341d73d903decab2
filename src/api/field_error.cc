#include "api/field_error.h"

#include <fmt/format.h>

namespace dralloc::api {

std::string_view FieldErrorTypeText(FieldErrorType type) {
  switch (type) {
    case FieldErrorType::kNotFound:
      return "Not found";
    case FieldErrorType::kRequired:
      return "Required value";
    case FieldErrorType::kDuplicate:
      return "Duplicate value";
    case FieldErrorType::kInvalid:
      return "Invalid value";
    case FieldErrorType::kNotSupported:
      return "Unsupported value";
    case FieldErrorType::kForbidden:
      return "Forbidden";
    case FieldErrorType::kTooLong:
      return "Too long";
    case FieldErrorType::kTooMany:
      return "Too many";
    case FieldErrorType::kInternal:
      return "Internal error";
    case FieldErrorType::kTypeInvalid:
      return "Invalid value";
    case FieldErrorType::kUnknownField:
      return "Unknown field";
  }
  return "Unknown error";
}

std::string_view FieldErrorTypeName(FieldErrorType type) {
  switch (type) {
    case FieldErrorType::kNotFound:
      return "NotFound";
    case FieldErrorType::kRequired:
      return "Required";
    case FieldErrorType::kDuplicate:
      return "Duplicate";
    case FieldErrorType::kInvalid:
      return "Invalid";
    case FieldErrorType::kNotSupported:
      return "NotSupported";
    case FieldErrorType::kForbidden:
      return "Forbidden";
    case FieldErrorType::kTooLong:
      return "TooLong";
    case FieldErrorType::kTooMany:
      return "TooMany";
    case FieldErrorType::kInternal:
      return "Internal";
    case FieldErrorType::kTypeInvalid:
      return "TypeInvalid";
    case FieldErrorType::kUnknownField:
      return "UnknownField";
  }
  return "Unknown";
}

// Not GoQuote (common/text_escape.h): this quoting escapes only '"', '\\',
// \n and \t by name, writes other controls below 0x20 (\r included) as
// \xXX and passes DEL and every non-ASCII byte through, while Go's %q names
// \a \b \f \r \v, escapes DEL and invalid UTF-8 and escapes non-printable
// runes. Field error messages are compared by tests and clients, so switching
// is a visible change to be made on its own.
std::string QuoteValue(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string FieldError::ToString() const {
  std::string out;
  if (!field.empty()) {
    out += field;
    out += ": ";
  }
  out += FieldErrorTypeText(type);
  if (!bad_value.empty()) {
    out += ": ";
    out += bad_value;
  }
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
  return out;
}

FieldError Required(const FieldPath& path, std::string detail) {
  return {FieldErrorType::kRequired, path.ToString(), "", std::move(detail)};
}

FieldError Invalid(const FieldPath& path, std::string bad_value,
                   std::string detail) {
  return {FieldErrorType::kInvalid, path.ToString(), std::move(bad_value),
          std::move(detail)};
}

FieldError InvalidString(const FieldPath& path, std::string_view value,
                         std::string detail) {
  return Invalid(path, QuoteValue(value), std::move(detail));
}

FieldError Duplicate(const FieldPath& path, std::string bad_value) {
  return {FieldErrorType::kDuplicate, path.ToString(), std::move(bad_value),
          ""};
}

FieldError NotSupported(const FieldPath& path, std::string_view value,
                        const std::vector<std::string_view>& supported) {
  std::string detail = "supported values: ";
  for (size_t i = 0; i < supported.size(); ++i) {
    if (i > 0) detail += ", ";
    detail += QuoteValue(supported[i]);
  }
  return {FieldErrorType::kNotSupported, path.ToString(), QuoteValue(value),
          std::move(detail)};
}

FieldError Forbidden(const FieldPath& path, std::string detail) {
  return {FieldErrorType::kForbidden, path.ToString(), "", std::move(detail)};
}

FieldError TooLong(const FieldPath& path, int64_t max_length) {
  return {FieldErrorType::kTooLong, path.ToString(), "",
          fmt::format("may not be more than {} bytes", max_length)};
}

FieldError TooMany(const FieldPath& path, int64_t actual, int64_t max) {
  return {FieldErrorType::kTooMany, path.ToString(), std::to_string(actual),
          fmt::format("must have at most {} items", max)};
}

FieldError InternalFieldError(const FieldPath& path, std::string detail) {
  return {FieldErrorType::kInternal, path.ToString(), "", std::move(detail)};
}

std::string ToString(const ErrorList& errors) {
  std::string out;
  for (const FieldError& e : errors) {
    out += e.ToString();
    out += '\n';
  }
  return out;
}

}  // namespace dralloc::api
