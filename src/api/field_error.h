// FieldError and ErrorList: validation results in Kubernetes' format
// ("spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater
// than zero").
#ifndef DRALLOC_API_FIELD_ERROR_H_
#define DRALLOC_API_FIELD_ERROR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/field_path.h"

namespace dralloc::api {

enum class FieldErrorType {
  kNotFound,
  kRequired,
  kDuplicate,
  kInvalid,
  kNotSupported,
  kForbidden,
  kTooLong,
  kTooMany,
  kInternal,
  kTypeInvalid,
  kUnknownField,
};

// The Kubernetes spelling of the type ("Invalid value", "Required value", ...).
std::string_view FieldErrorTypeText(FieldErrorType type);
// The short name used in test case files ("Invalid", "Required", ...).
std::string_view FieldErrorTypeName(FieldErrorType type);

struct FieldError {
  FieldErrorType type;
  std::string field;      // rendered path; empty for object-level errors
  std::string bad_value;  // rendered like Go's %#v: strings quoted, numbers
                          // bare; may be empty
  std::string detail;

  std::string ToString() const;
  friend bool operator==(const FieldError&, const FieldError&) = default;
};

// Renders values the way Kubernetes prints a bad value.
std::string QuoteValue(std::string_view s);

// Constructors mirroring k8s.io/apimachinery/pkg/util/validation/field.
FieldError Required(const FieldPath& path, std::string detail = {});
FieldError Invalid(const FieldPath& path, std::string bad_value,
                   std::string detail);
FieldError InvalidString(const FieldPath& path, std::string_view value,
                         std::string detail);
FieldError Duplicate(const FieldPath& path, std::string bad_value);
FieldError NotSupported(const FieldPath& path, std::string_view value,
                        const std::vector<std::string_view>& supported);
FieldError Forbidden(const FieldPath& path, std::string detail);
FieldError TooLong(const FieldPath& path, int64_t max_length);
FieldError TooMany(const FieldPath& path, int64_t actual, int64_t max);
FieldError InternalFieldError(const FieldPath& path, std::string detail);

using ErrorList = std::vector<FieldError>;

// One error per line.
std::string ToString(const ErrorList& errors);

}  // namespace dralloc::api

#endif  // DRALLOC_API_FIELD_ERROR_H_
