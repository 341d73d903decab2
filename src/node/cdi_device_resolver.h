// CdiDeviceResolver: CDI device IDs → container edits from the spec files
// of the --cdi-dir directories (later directories win), over a
// cdi::Registry. Drivers write per-claim specs just before they answer
// NodePrepareResources, so an ID the registry does not know makes it
// re-read the directories (changed files only) once before giving up.
// Thread-safe.
#ifndef DRALLOC_NODE_CDI_DEVICE_RESOLVER_H_
#define DRALLOC_NODE_CDI_DEVICE_RESOLVER_H_

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cdi/registry.h"
#include "common/mutex.h"

namespace dralloc::node {

class CdiDeviceResolver {
 public:
  explicit CdiDeviceResolver(std::vector<std::filesystem::path> dirs);

  // kNotFound "unresolvable CDI devices: ..." when an ID stays unknown;
  // spec files that failed to load are named in the message.
  StatusOr<cdi::ContainerEdits> Resolve(const std::vector<std::string>& ids)
      EXCLUDES(mu_);

 private:
  mutable Mutex mu_;
  std::shared_ptr<const cdi::Registry> registry_ GUARDED_BY(mu_);
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_CDI_DEVICE_RESOLVER_H_
