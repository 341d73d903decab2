// Kubernetes' library.Regex: `s.find(re)` returns the first match or "", and
// `s.findAll(re[, limit])` the list of non-overlapping matches (all of them
// when limit < 0). Patterns are RE2 syntax, unanchored. Constant patterns are
// compiled once when the program is planned; an invalid constant pattern is a
// compile error.
#ifndef DRALLOC_CEL_LIB_REGEX_LIBRARY_H_
#define DRALLOC_CEL_LIB_REGEX_LIBRARY_H_

#include "cel/common/function_registry.h"

namespace dralloc::cel {

void RegisterRegexLibrary(FunctionRegistry& registry);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_REGEX_LIBRARY_H_
