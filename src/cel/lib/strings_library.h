// cel-go's ext.Strings extension at version 2, the version Kubernetes enables:
// charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split,
// substring, trim, join, strings.quote and format. `reverse` (version 3) is
// not included. Positions count Unicode code points.
//
// Costs follow Kubernetes' library cost estimator (apiserver
// pkg/cel/library/cost.go) where it covers a function and cel-go's defaults
// otherwise (strings.quote, format).
#ifndef DRALLOC_CEL_LIB_STRINGS_LIBRARY_H_
#define DRALLOC_CEL_LIB_STRINGS_LIBRARY_H_

#include <string>

#include "cel/common/function_registry.h"
#include "cel/common/value.h"

namespace dralloc::cel {

void RegisterStringsLibrary(FunctionRegistry& registry);

// Appends the `%s` rendering of `value` used by `format` (lists as
// "[a, b]", maps as "{k: v}" sorted by rendered key, timestamps in RFC 3339,
// durations as "1.5s"). Returns false and sets `error` for values that have no
// string form (optionals, library types).
bool AppendFormattedString(const Value& value, std::string* out,
                           std::string* error);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_STRINGS_LIBRARY_H_
