// CdiDeviceResolver: CDI device IDs → container edits from the spec files
// of the --cdi-dir directories (later directories win), over a
// cdi::WatchedRegistry that follows the directories with inotify.
//
// Drivers write a per-claim spec just before they answer
// NodePrepareResources, so the IDs of a new claim are usually not applied
// yet when Resolve runs; the registry then drains its pending inotify
// events and re-reads just the files they name (O(changed files), not
// O(spec files)); only an ID still unknown after that costs one rescan of
// the directories. Spec files that fail to load are logged once when seen
// (naming the file) and named again in a kNotFound message.
// Thread-safe: any number of pod workers may call Resolve at once.
#ifndef DRALLOC_NODE_CDI_DEVICE_RESOLVER_H_
#define DRALLOC_NODE_CDI_DEVICE_RESOLVER_H_

#include <filesystem>
#include <string>
#include <vector>

#include "cdi/watched_registry.h"

namespace dralloc::node {

class CdiDeviceResolver {
 public:
  explicit CdiDeviceResolver(std::vector<std::filesystem::path> dirs);

  // kNotFound "unresolvable CDI devices: ..." when an ID stays unknown;
  // spec files that failed to load are named in the message.
  StatusOr<cdi::ContainerEdits> Resolve(const std::vector<std::string>& ids);

  // The registry underneath, for diagnostics and tests.
  cdi::WatchedRegistry& registry() { return registry_; }

 private:
  cdi::WatchedRegistry registry_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_CDI_DEVICE_RESOLVER_H_
