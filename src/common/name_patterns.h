// The character patterns of Kubernetes names, without length limits (callers
// add the limits and messages of their context: API validation, CEL format).
#ifndef DRALLOC_COMMON_NAME_PATTERNS_H_
#define DRALLOC_COMMON_NAME_PATTERNS_H_

#include <string_view>

namespace dralloc {

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool MatchesDns1123LabelPattern(std::string_view s);
// DNS-1123 label patterns joined by dots.
bool MatchesDns1123SubdomainPattern(std::string_view s);
// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]: the name part of a qualified name
// or label key.
bool MatchesQualifiedNamePartPattern(std::string_view s);

}  // namespace dralloc

#endif  // DRALLOC_COMMON_NAME_PATTERNS_H_
