// Helpers shared by the files of the standard library (standard_library.cc,
// standard_conversions.cc).
#ifndef DRALLOC_CEL_LIB_STANDARD_LIBRARY_INTERNAL_H_
#define DRALLOC_CEL_LIB_STANDARD_LIBRARY_INTERNAL_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cel/common/function_registry.h"
#include "cel/common/types.h"
#include "cel/common/value.h"

namespace dralloc::cel::standard_internal {

using Args = std::span<const Value>;

Value UintOverflow();
Value ConversionError(std::string_view from, std::string_view to);
// Runtime and estimated cost of traversing the first argument (a string).
uint64_t FirstArgTraversalRuntimeCost(Args args, const Value& result);
CostEstimate FirstArgTraversalEstimate(std::span<const SizeEstimate> args);
// The type parameter `A`.
Type A();
// An overload with the default cost (1) and no preparation.
void AddSimple(FunctionRegistry& r, std::string id, std::string function,
               std::vector<Type> params, Type result, FunctionImpl impl);

// The type conversions (int(), uint(), double(), string(), bytes(), bool(),
// dyn(), type()) of cel-spec's standard library.
void RegisterConversions(FunctionRegistry& r);

}  // namespace dralloc::cel::standard_internal

#endif  // DRALLOC_CEL_LIB_STANDARD_LIBRARY_INTERNAL_H_
