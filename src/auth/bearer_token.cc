#include "auth/bearer_token.h"

#include <string>

namespace dralloc::auth {
namespace {

// Go's unicode.IsSpace for the ASCII range (strings.TrimSpace).
bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

std::string_view TrimSpace(std::string_view text) {
  while (!text.empty() && IsAsciiSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsAsciiSpace(text.back())) text.remove_suffix(1);
  return text;
}

bool EqualsIgnoringAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace

Credentials BearerTokenCredentials(std::string_view header_value,
                                   bool present) {
  Credentials credentials;
  credentials.has_authorization_header = present;
  const std::string_view value = TrimSpace(header_value);
  const size_t first_space = value.find(' ');
  if (first_space == std::string_view::npos) return credentials;
  if (!EqualsIgnoringAsciiCase(value.substr(0, first_space), "bearer")) {
    return credentials;
  }
  std::string_view rest = value.substr(first_space + 1);
  const size_t next_space = rest.find(' ');
  if (next_space != std::string_view::npos) rest = rest.substr(0, next_space);
  credentials.bearer_token = std::string(rest);
  return credentials;
}

}  // namespace dralloc::auth
