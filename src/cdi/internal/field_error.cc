#include "cdi/internal/field_error.h"

#include <fmt/format.h>

#include "common/text_escape.h"

namespace dralloc::cdi::internal {

std::string Child(std::string_view parent, std::string_view name) {
  if (parent.empty()) return std::string(name);
  return fmt::format("{}.{}", parent, name);
}

std::string Index(std::string_view parent, size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

std::string Key(std::string_view parent, std::string_view key) {
  return fmt::format("{}[{}]", parent, key);
}

Status RequiredError(std::string_view path, std::string_view detail) {
  if (detail.empty()) {
    return InvalidArgumentError(fmt::format("{}: Required value", path));
  }
  return InvalidArgumentError(
      fmt::format("{}: Required value: {}", path, detail));
}

Status InvalidError(std::string_view path, std::string_view value,
                    std::string_view detail) {
  return InvalidRawError(path, GoQuote(value), detail);
}

Status InvalidRawError(std::string_view path, std::string_view rendered,
                       std::string_view detail) {
  return InvalidArgumentError(
      fmt::format("{}: Invalid value: {}: {}", path, rendered, detail));
}

Status NotSupportedError(std::string_view path, std::string_view value,
                         std::span<const std::string_view> supported) {
  std::string list;
  for (std::string_view s : supported) {
    if (!list.empty()) list += ", ";
    list += GoQuote(s);
  }
  return InvalidArgumentError(
      fmt::format("{}: Unsupported value: {}: supported values: {}", path,
                  GoQuote(value), list));
}

Status DuplicateError(std::string_view path, std::string_view value) {
  return InvalidArgumentError(
      fmt::format("{}: Duplicate value: {}", path, GoQuote(value)));
}

Status ForbiddenError(std::string_view path, std::string_view detail) {
  return InvalidArgumentError(fmt::format("{}: Forbidden: {}", path, detail));
}

Status UnknownFieldError(std::string_view path) {
  return InvalidArgumentError(fmt::format("{}: Unknown field", path));
}

Status DuplicateFieldError(std::string_view path) {
  return InvalidArgumentError(fmt::format("{}: Duplicate field", path));
}

}  // namespace dralloc::cdi::internal
