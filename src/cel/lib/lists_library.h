// List functions available to Kubernetes CEL expressions:
//
//  * Kubernetes' library.Lists: isSorted, sum, min, max, indexOf, lastIndexOf
//    and DRA's `includes` (scalar equality or list membership, lists of at
//    most 48 values);
//  * cel-go's ext.Lists version 3: lists.range, slice, flatten, distinct,
//    reverse, sort and the internal @sortByAssociatedKeys behind the sortBy
//    macro;
//  * the list helpers of cel-go's optional library (version 2): first, last,
//    optional.unwrap and unwrapOpt.
#ifndef DRALLOC_CEL_LIB_LISTS_LIBRARY_H_
#define DRALLOC_CEL_LIB_LISTS_LIBRARY_H_

#include <cstdint>

#include "cel/common/function_registry.h"
#include "cel/common/value.h"

namespace dralloc::cel {

void RegisterListsLibrary(FunctionRegistry& registry);

// Kubernetes' traversalCost: 1 per scalar, trunc(bytes * 0.1) per string or
// bytes value, the sum over the elements of lists and the keys and values of
// maps. The runtime cost of isSorted, sum, min, max, indexOf, lastIndexOf
// and includes on their receiver.
uint64_t TraversalCost(const Value& value);

// DRA's limit for `includes` on lists
// (ResourceSliceMaxAttributeValuesPerDevice).
inline constexpr size_t kMaxIncludesListSize = 48;

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_LISTS_LIBRARY_H_
