// The CEL view of a ResourceSlice device: what `device` means in selectors.
#ifndef DRALLOC_API_CEL_DEVICE_H_
#define DRALLOC_API_CEL_DEVICE_H_

#include <memory>
#include <string_view>

#include "api/types/resource_slice.h"
#include "cel/dra/dra_environment.h"

namespace dralloc::api {

// Builds the device view: attributes (ints, bools, strings, versions as
// kubernetes.Semver, and list-typed attributes as lists), capacity as
// kubernetes.Quantity, allowMultipleAllocations. String values are copied,
// so the view does not borrow from `device`.
std::unique_ptr<cel::DraDevice> ToCelDevice(std::string_view driver,
                                            const Device& device);

}  // namespace dralloc::api

#endif  // DRALLOC_API_CEL_DEVICE_H_
