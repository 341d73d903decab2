#include "node/cdi_device_resolver.h"

#include <algorithm>

#include "common/log.h"

namespace dralloc::node {
namespace {

// Logs the spec files that fail to load in `now` and did not in `before`,
// so a driver's malformed spec is reported once, naming the file.
void LogNewSpecErrors(const cdi::Registry& before, const cdi::Registry& now) {
  for (const cdi::SpecFileError& error : now.errors()) {
    const bool known =
        std::any_of(before.errors().begin(), before.errors().end(),
                    [&](const cdi::SpecFileError& old) {
                      return old.message == error.message;
                    });
    if (!known) log::Warn("cdi", "{}", error.message);
  }
}

}  // namespace

CdiDeviceResolver::CdiDeviceResolver(std::vector<std::filesystem::path> dirs)
    : registry_(
          std::make_shared<const cdi::Registry>(cdi::Registry::Load(dirs))) {
  LogNewSpecErrors(cdi::Registry(), *registry_);
}

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
  LogNewSpecErrors(*registry, *reloaded);
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
