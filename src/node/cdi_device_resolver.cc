#include "node/cdi_device_resolver.h"

namespace dralloc::node {

CdiDeviceResolver::CdiDeviceResolver(std::vector<std::filesystem::path> dirs)
    : registry_(
          std::make_shared<const cdi::Registry>(cdi::Registry::Load(dirs))) {}

StatusOr<cdi::ContainerEdits> CdiDeviceResolver::Resolve(
    const std::vector<std::string>& ids) {
  std::shared_ptr<const cdi::Registry> registry;
  {
    MutexLock lock(mu_);
    registry = registry_;
  }
  auto edits = registry->Resolve(ids);
  if (edits.ok() || edits.status().code() != StatusCode::kNotFound) {
    return edits;
  }
  auto reloaded = std::make_shared<const cdi::Registry>(registry->Reload());
  {
    MutexLock lock(mu_);
    registry_ = reloaded;
  }
  edits = reloaded->Resolve(ids);
  if (edits.ok() || reloaded->errors().empty()) return edits;
  // Name the spec files that did not load: the likely cause.
  std::string message = edits.status().message();
  for (const cdi::SpecFileError& error : reloaded->errors()) {
    message += "; " + error.message;
  }
  return Status(edits.status().code(), message);
}

}  // namespace dralloc::node
