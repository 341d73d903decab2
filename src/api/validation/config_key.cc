#include "api/validation/config_key.h"

#include <fmt/format.h>

namespace dralloc::api {
namespace {

constexpr size_t kMaxKeyLength = 253;  // a DNS-1123 subdomain's

bool IsKeyCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

bool MatchesKeyPattern(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (!IsKeyCharacter(c)) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> ConfigMapKeyErrors(std::string_view key) {
  std::vector<std::string> errors;
  if (key.size() > kMaxKeyLength) {
    errors.push_back(
        fmt::format("must be no more than {} characters", kMaxKeyLength));
  }
  if (!MatchesKeyPattern(key)) {
    errors.push_back(
        "a valid config key must consist of alphanumeric characters, '-', "
        "'_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex "
        "used for validation is '[-._a-zA-Z0-9]+')");
  }
  // Keys become file names in volumes: no way out of the directory.
  if (key == ".") {
    errors.push_back("must not be '.'");
  } else if (key == "..") {
    errors.push_back("must not be '..'");
  } else if (key.starts_with("..")) {
    errors.push_back("must not start with '..'");
  }
  return errors;
}

}  // namespace dralloc::api
