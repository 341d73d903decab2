// DeviceHealthList: the health the example driver reports for its devices:
// every device Healthy except those named unhealthy (a test knob).
#ifndef DRALLOC_EXAMPLEDRIVER_DEVICE_HEALTH_LIST_H_
#define DRALLOC_EXAMPLEDRIVER_DEVICE_HEALTH_LIST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "exampledriver/gpu_inventory.h"
#include "kubeletplugin/driver_callbacks.h"

namespace dralloc::exampledriver {

// One entry per device of `inventory`, stamped `now_unix_seconds`; a name in
// `unhealthy` that is no device of the inventory is an error naming
// --unhealthy.
StatusOr<std::vector<kubeletplugin::DeviceHealth>> DeviceHealthList(
    const GpuInventory& inventory, const std::vector<std::string>& unhealthy,
    int64_t now_unix_seconds);

}  // namespace dralloc::exampledriver

#endif  // DRALLOC_EXAMPLEDRIVER_DEVICE_HEALTH_LIST_H_
