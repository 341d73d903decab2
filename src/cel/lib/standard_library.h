// The cel-spec standard library: arithmetic, comparison, equality, indexing,
// `in`, `size`, the string functions contains/startsWith/endsWith/matches, the
// conversions int/uint/double/string/bytes/bool/dyn/type and the arithmetic
// and ordering of timestamps and durations (their constructors, formatting
// and accessors live in time_library.h).
//
// Overload ids are cel-go's ("add_int64", "less_int64_uint64", "size_string",
// ...). Runtime costs and estimates follow cel-go's CostTracker and checker
// cost rules (cel.md §4.2), including their asymmetries:
//   - `==`, `!=` and string/bytes ordering cost ceil(min(size_a, size_b) * 0.1)
//     (0 when one side is empty);
//   - startsWith/endsWith charge the receiver's length at runtime but the
//     argument's length in the estimate, as cel-go's estimator does;
//   - only the receiver form `s.matches(re)` is priced by length; the global
//     `matches(s, re)` costs 1, as in cel-go.
#ifndef DRALLOC_CEL_LIB_STANDARD_LIBRARY_H_
#define DRALLOC_CEL_LIB_STANDARD_LIBRARY_H_

#include <string>
#include <string_view>

#include "cel/common/function_registry.h"
#include "cel/common/value.h"

namespace dralloc::cel {

void RegisterStandardLibrary(FunctionRegistry& registry);

// `string(double)`: the shortest round-trip digits laid out like Go's
// strconv.FormatFloat(d, 'g', -1, 64) ("1", "-0.0045", "1e+06", "1.5e-05",
// "NaN", "+Inf", "-Inf").
std::string FormatCelDouble(double d);

// True when `s` is well-formed UTF-8 (no overlongs, surrogates or code points
// above U+10FFFF).
bool IsWellFormedUtf8(std::string_view s);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_STANDARD_LIBRARY_H_
