#include "cdi/edits_merge.h"

#include <algorithm>

namespace dralloc::cdi {
namespace {

std::string_view EnvKey(std::string_view entry) {
  return entry.substr(0, entry.find('='));
}

void MergeEnv(std::vector<std::string>& into,
              const std::vector<std::string>& from) {
  for (const std::string& entry : from) {
    auto same_key = std::ranges::find_if(
        into, [&](const std::string& e) { return EnvKey(e) == EnvKey(entry); });
    if (same_key != into.end()) {
      *same_key = entry;
    } else {
      into.push_back(entry);
    }
  }
}

// Appends each of `from`, first removing an element of `into` with the same
// key(element).
template <typename T, typename KeyFn>
void ReplaceAndAppend(std::vector<T>& into, const std::vector<T>& from,
                      KeyFn key) {
  for (const T& item : from) {
    std::erase_if(into, [&](const T& e) { return key(e) == key(item); });
    into.push_back(item);
  }
}

}  // namespace

void MergeEdits(ContainerEdits& into, const ContainerEdits& from) {
  MergeEnv(into.env, from.env);
  ReplaceAndAppend(
      into.device_nodes, from.device_nodes,
      [](const DeviceNode& n) -> const std::string& { return n.path; });
  ReplaceAndAppend(
      into.mounts, from.mounts,
      [](const Mount& m) -> const std::string& { return m.container_path; });
  for (const NetDevice& device : from.net_devices) {
    auto same = std::ranges::find(into.net_devices, device.host_interface_name,
                                  &NetDevice::host_interface_name);
    if (same != into.net_devices.end()) {
      *same = device;
    } else {
      into.net_devices.push_back(device);
    }
  }
  into.hooks.insert(into.hooks.end(), from.hooks.begin(), from.hooks.end());
  for (uint32_t gid : from.additional_gids) {
    if (gid != 0 && std::ranges::find(into.additional_gids, gid) ==
                        into.additional_gids.end()) {
      into.additional_gids.push_back(gid);
    }
  }
  if (from.intel_rdt) into.intel_rdt = from.intel_rdt;
}

}  // namespace dralloc::cdi
