// cel-go's ext.Sets: sets.contains, sets.equivalent and sets.intersects over
// lists, with CEL's heterogeneous equality (1 == 1u == 1.0).
#ifndef DRALLOC_CEL_LIB_SETS_LIBRARY_H_
#define DRALLOC_CEL_LIB_SETS_LIBRARY_H_

#include "cel/common/function_registry.h"

namespace dralloc::cel {

void RegisterSetsLibrary(FunctionRegistry& registry);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_SETS_LIBRARY_H_
