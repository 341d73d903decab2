// The front door of the function libraries: the registry every standard
// Environment is built from (Environment::NewStandard).
#ifndef DRALLOC_CEL_LIB_ALL_LIBRARIES_H_
#define DRALLOC_CEL_LIB_ALL_LIBRARIES_H_

#include "cel/common/function_registry.h"

namespace dralloc::cel {

// Registers every library (standard + extensions) into `registry`.
void RegisterAllLibraries(FunctionRegistry& registry);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_ALL_LIBRARIES_H_
