#include "common/name_patterns.h"

namespace dralloc {
namespace {

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

}  // namespace

bool MatchesDns1123LabelPattern(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) {
    return false;
  }
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

bool MatchesDns1123SubdomainPattern(std::string_view s) {
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    const size_t length =
        dot == std::string_view::npos ? std::string_view::npos : dot - start;
    if (!MatchesDns1123LabelPattern(s.substr(start, length))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool MatchesQualifiedNamePartPattern(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace dralloc
