#include "cdi/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <system_error>

#include "cdi/edits_merge.h"
#include "cdi/spec_parser.h"

namespace dralloc::cdi {
namespace {

namespace fs = std::filesystem;

// The spec files of `dir` sorted by name; an error only for a directory that
// exists but cannot be listed.
StatusOr<std::vector<fs::path>> SpecFiles(const fs::path& dir) {
  std::error_code error;
  fs::directory_iterator it(dir, error);
  if (error == std::errc::no_such_file_or_directory) {
    return std::vector<fs::path>{};
  }
  std::vector<fs::path> files;
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    const fs::path& path = it->path();
    std::string extension = path.extension().string();
    std::error_code ignored;
    if ((extension == ".json" || extension == ".yaml") &&
        !it->is_directory(ignored)) {
      files.push_back(path);
    }
  }
  if (error) {
    return UnavailableError(
        fmt::format("cdi spec dir {}: {}", dir.string(), error.message()));
  }
  std::ranges::sort(files);
  return files;
}

// The file's bytes, refusing files larger than kMaxSpecFileBytes.
StatusOr<std::string> ReadSpecFile(const fs::path& file) {
  std::error_code error;
  uintmax_t size = fs::file_size(file, error);
  if (error) {
    return UnavailableError(
        fmt::format("cdi spec {}: {}", file.string(), error.message()));
  }
  if (size > kMaxSpecFileBytes) {
    return ResourceExhaustedError(
        fmt::format("cdi spec {}: {} bytes is larger than the limit of {}",
                    file.string(), size, kMaxSpecFileBytes));
  }
  std::ifstream in(file, std::ios::binary);
  if (!in.is_open()) {
    return UnavailableError(
        fmt::format("cdi spec {}: cannot open the file", file.string()));
  }
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  // The file may have shrunk since file_size; keep what was read.
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

}  // namespace

Registry Registry::Load(const std::vector<fs::path>& dirs) {
  Registry registry;
  for (size_t i = 0; i < dirs.size(); ++i) {
    registry.LoadDirectory(dirs[i], static_cast<int>(i));
  }
  return registry;
}

void Registry::LoadDirectory(const fs::path& dir, int priority) {
  StatusOr<std::vector<fs::path>> files = SpecFiles(dir);
  if (!files.ok()) {
    errors_.push_back({dir, files.status().message()});
    return;
  }
  // The definitions this directory makes, by qualified name.
  std::map<std::string, std::vector<DeviceRef>> defined;
  for (const fs::path& file : *files) {
    if (!LoadFile(file, priority)) continue;
    const Spec& spec = specs_.back().spec;
    for (size_t d = 0; d < spec.devices.size(); ++d) {
      defined[QualifiedName(spec.kind, spec.devices[d].name)].push_back(
          {specs_.size() - 1, d});
    }
  }
  for (const auto& [name, definitions] : defined) {
    if (definitions.size() == 1) {
      devices_.insert_or_assign(name, definitions.front());
    } else {
      devices_.erase(name);
      RecordConflict(name, definitions);
    }
  }
}

bool Registry::LoadFile(const fs::path& file, int priority) {
  StatusOr<std::string> text = ReadSpecFile(file);
  if (!text.ok()) {
    errors_.push_back({file, text.status().message()});
    return false;
  }
  StatusOr<Spec> spec = ParseSpec(*text, file.string());
  if (!spec.ok()) {
    errors_.push_back({file, spec.status().message()});
    return false;
  }
  specs_.push_back({file, priority, *std::move(spec)});
  return true;
}

void Registry::RecordConflict(const std::string& name,
                              const std::vector<DeviceRef>& definitions) {
  for (const DeviceRef& ref : definitions) {
    std::string others;
    for (const DeviceRef& other : definitions) {
      if (other.spec == ref.spec) continue;
      if (!others.empty()) others += ", ";
      others += specs_[other.spec].file.string();
    }
    const fs::path& file = specs_[ref.spec].file;
    errors_.push_back(
        {file, fmt::format("cdi spec {}: device \"{}\" is also defined in {} "
                           "in the same directory; all its definitions there "
                           "are ignored",
                           file.string(), name, others)});
  }
}

StatusOr<ContainerEdits> Registry::Resolve(
    std::span<const std::string> qualified_names) const {
  std::vector<const DeviceRef*> found;
  std::string unresolved;
  for (const std::string& name : qualified_names) {
    auto it = devices_.find(name);
    if (it == devices_.end()) {
      unresolved += unresolved.empty() ? name : ", " + name;
    } else {
      found.push_back(&it->second);
    }
  }
  if (!unresolved.empty()) {
    return NotFoundError("unresolvable CDI devices: " + unresolved);
  }
  ContainerEdits edits;
  std::set<size_t> specs_applied;
  std::set<const DeviceRef*> devices_applied;
  for (const DeviceRef* ref : found) {
    if (!devices_applied.insert(ref).second) continue;
    const Spec& spec = specs_[ref->spec].spec;
    if (specs_applied.insert(ref->spec).second) {
      MergeEdits(edits, spec.container_edits);
    }
    MergeEdits(edits, spec.devices[ref->device].container_edits);
  }
  return edits;
}

std::vector<RegisteredDevice> Registry::Devices() const {
  std::vector<RegisteredDevice> out;
  out.reserve(devices_.size());
  for (const auto& [name, ref] : devices_) {
    out.push_back({name, specs_[ref.spec].file, specs_[ref.spec].priority});
  }
  return out;
}

}  // namespace dralloc::cdi
