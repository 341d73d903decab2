// cel-go's optional types library as Kubernetes enables it: optional.of,
// optional.ofNonZeroValue, optional.none, value, hasValue, or, orValue, and
// the runtime of the optional syntax: `_?._` (m.?f), `_[?_]` (x[?k]) and
// indexing an optional (`_[_]` on optional(list) / optional(map)).
// The list helpers (first, last, optional.unwrap, unwrapOpt) are registered
// by RegisterListsLibrary; the optMap/optFlatMap macros belong to the parser.
#ifndef DRALLOC_CEL_LIB_OPTIONAL_LIBRARY_H_
#define DRALLOC_CEL_LIB_OPTIONAL_LIBRARY_H_

#include <string_view>

#include "cel/common/function_registry.h"
#include "cel/common/value.h"

namespace dralloc::cel {

void RegisterOptionalLibrary(FunctionRegistry& registry);

// True for the values optional.ofNonZeroValue() turns into optional.none():
// null, false, 0, 0u, 0.0, "", b"", [], {}, duration 0 and the zero
// timestamp (0001-01-01T00:00:00Z, Go's zero time, as in cel-go).
bool IsZeroValue(const Value& value);

// `operand.?field`: for a map, optional.of(value) when the key is present and
// optional.none() otherwise; optionals are unwrapped first (none stays none).
Value OptionalSelect(const Value& operand, std::string_view field);

// `operand[?key]` on a list, map or optional of either: optional.of(element)
// or optional.none() when the index or key is absent.
Value OptionalIndex(const Value& operand, const Value& key);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_OPTIONAL_LIBRARY_H_
