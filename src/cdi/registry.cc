#include "cdi/registry.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
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
  // By the native string: fs::path's operator< compares element by element
  // and is several times slower on large directories.
  std::ranges::sort(files, {}, [](const fs::path& p) -> const std::string& {
    return p.native();
  });
  return files;
}

}  // namespace

Registry Registry::Load(const std::vector<fs::path>& dirs) {
  return Build(dirs, nullptr);
}

Registry Registry::Reload() const { return Build(dirs_, this); }

Registry Registry::Build(const std::vector<fs::path>& dirs,
                         const Registry* previous) {
  Registry registry;
  registry.dirs_ = dirs;
  for (size_t i = 0; i < dirs.size(); ++i) {
    registry.AddDirectory(dirs[i], static_cast<int>(i), previous);
  }
  return registry;
}

void Registry::AddDirectory(const fs::path& dir, int priority,
                            const Registry* previous) {
  StatusOr<std::vector<fs::path>> files = SpecFiles(dir);
  if (!files.ok()) {
    errors_.push_back({dir, files.status().message()});
    return;
  }
  // The definitions this directory makes, by qualified name.
  std::map<std::string, std::vector<DeviceRef>> defined;
  for (const fs::path& file : *files) {
    FilePtr loaded = ReadFile(file, priority, previous);
    files_.push_back(loaded);
    file_index_.insert_or_assign(file.native(), files_.size() - 1);
    if (!loaded->spec) {
      errors_.push_back({file, loaded->error});
      continue;
    }
    const Spec& spec = *loaded->spec;
    for (size_t d = 0; d < spec.devices.size(); ++d) {
      defined[QualifiedName(spec.kind, spec.devices[d].name)].push_back(
          {files_.size() - 1, d});
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

Registry::FilePtr Registry::ReadFile(const fs::path& file, int priority,
                                     const Registry* previous) const {
  auto loaded = std::make_shared<LoadedFile>();
  loaded->file = file;
  loaded->priority = priority;
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) {
    loaded->error = fmt::format("cdi spec {}: {}", file.string(),
                                std::generic_category().message(errno));
    return loaded;
  }
  loaded->identity = {
      static_cast<uintmax_t>(info.st_size),
      info.st_mtim.tv_sec * 1'000'000'000LL + info.st_mtim.tv_nsec,
      static_cast<uint64_t>(info.st_ino)};
  if (previous != nullptr) {
    if (FilePtr same = previous->FindFile(file);
        same != nullptr && same->priority == priority &&
        same->identity == loaded->identity) {
      return same;
    }
  }
  StatusOr<Spec> spec = ParseSpecFile(file);
  if (!spec.ok()) {
    loaded->error = spec.status().message();
  } else {
    loaded->spec = *std::move(spec);
  }
  return loaded;
}

Registry::FilePtr Registry::FindFile(const fs::path& file) const {
  auto it = file_index_.find(file.native());
  return it == file_index_.end() ? nullptr : files_[it->second];
}

void Registry::RecordConflict(const std::string& name,
                              const std::vector<DeviceRef>& definitions) {
  for (const DeviceRef& ref : definitions) {
    std::string others;
    for (const DeviceRef& other : definitions) {
      if (other.file == ref.file) continue;
      if (!others.empty()) others += ", ";
      others += files_[other.file]->file.string();
    }
    const fs::path& file = files_[ref.file]->file;
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
  std::set<size_t> specs_applied;  // indexes into files_
  std::set<const DeviceRef*> devices_applied;
  for (const DeviceRef* ref : found) {
    if (!devices_applied.insert(ref).second) continue;
    const Spec& spec = SpecOf(*ref);
    if (specs_applied.insert(ref->file).second) {
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
    out.push_back({name, files_[ref.file]->file, files_[ref.file]->priority});
  }
  return out;
}

}  // namespace dralloc::cdi
