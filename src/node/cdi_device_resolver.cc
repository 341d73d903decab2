#include "node/cdi_device_resolver.h"

#include "common/log.h"

namespace dralloc::node {
namespace {

cdi::WatchedRegistry::Options RegistryOptions() {
  cdi::WatchedRegistry::Options options;
  options.background_refresh = true;
  options.on_error = [](const cdi::SpecFileError& error) {
    log::Warn("cdi", "{}", error.message);
  };
  return options;
}

}  // namespace

CdiDeviceResolver::CdiDeviceResolver(std::vector<std::filesystem::path> dirs)
    : registry_(std::move(dirs), RegistryOptions()) {}

StatusOr<cdi::ContainerEdits> CdiDeviceResolver::Resolve(
    const std::vector<std::string>& ids) {
  StatusOr<cdi::ContainerEdits> edits = registry_.Resolve(ids);
  if (edits.ok() || edits.status().code() != StatusCode::kNotFound) {
    return edits;
  }
  // Name the spec files that did not load: the likely cause.
  std::string message = edits.status().message();
  for (const cdi::SpecFileError& error : registry_.errors()) {
    message += "; " + error.message;
  }
  return Status(edits.status().code(), message);
}

}  // namespace dralloc::node
