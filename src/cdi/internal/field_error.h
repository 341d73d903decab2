// Field paths and field errors for CDI spec messages, in the style of
// Kubernetes' field.Error: "<path>: <Type>: <value>: <detail>". Paths are
// built as JSON field names: "devices[0].containerEdits.env[1]".
#ifndef DRALLOC_CDI_INTERNAL_FIELD_ERROR_H_
#define DRALLOC_CDI_INTERNAL_FIELD_ERROR_H_

#include <span>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dralloc::cdi::internal {

// "parent.name", or "name" at the root.
std::string Child(std::string_view parent, std::string_view name);
// "parent[index]".
std::string Index(std::string_view parent, size_t index);
// "parent[key]" (a map entry, as Kubernetes renders it).
std::string Key(std::string_view parent, std::string_view key);

// All are kInvalidArgument.
// "<path>: Required value" or "<path>: Required value: <detail>".
Status RequiredError(std::string_view path, std::string_view detail = "");
// `<path>: Invalid value: "<value>": <detail>` (value Go-quoted).
Status InvalidError(std::string_view path, std::string_view value,
                    std::string_view detail);
// Like InvalidError with a value already rendered (a number, a JSON type).
Status InvalidRawError(std::string_view path, std::string_view rendered,
                       std::string_view detail);
// `<path>: Unsupported value: "<value>": supported values: "a", "b"`.
Status NotSupportedError(std::string_view path, std::string_view value,
                         std::span<const std::string_view> supported);
// `<path>: Duplicate value: "<value>"`.
Status DuplicateError(std::string_view path, std::string_view value);
// "<path>: Forbidden: <detail>".
Status ForbiddenError(std::string_view path, std::string_view detail);
// "<path>: Unknown field".
Status UnknownFieldError(std::string_view path);
// "<path>: Duplicate field" (a key given twice in one object).
Status DuplicateFieldError(std::string_view path);

}  // namespace dralloc::cdi::internal

#endif  // DRALLOC_CDI_INTERNAL_FIELD_ERROR_H_
