#include "exampledriver/device_health_list.h"

#include <set>

namespace dralloc::exampledriver {

StatusOr<std::vector<kubeletplugin::DeviceHealth>> DeviceHealthList(
    const GpuInventory& inventory, const std::vector<std::string>& unhealthy,
    int64_t now_unix_seconds) {
  const std::vector<std::string> names = inventory.DeviceNames();
  const std::set<std::string> known(names.begin(), names.end());
  for (const std::string& name : unhealthy) {
    if (!known.contains(name)) {
      return InvalidArgumentError("--unhealthy: Invalid value: \"" + name +
                                  "\": no such device on this node");
    }
  }
  const std::set<std::string> bad(unhealthy.begin(), unhealthy.end());
  std::vector<kubeletplugin::DeviceHealth> list;
  for (const std::string& name : names) {
    const bool is_bad = bad.contains(name);
    list.push_back({inventory.pool_name(), name,
                    is_bad ? kubeletplugin::DeviceHealthStatus::kUnhealthy
                           : kubeletplugin::DeviceHealthStatus::kHealthy,
                    now_unix_seconds, 0,
                    is_bad ? "marked unhealthy by --unhealthy" : ""});
  }
  return list;
}

}  // namespace dralloc::exampledriver
