#include "cdi/registry.h"

namespace dralloc::cdi {

namespace fs = std::filesystem;

Registry Registry::Load(const std::vector<fs::path>& dirs) {
  return Build(dirs, nullptr);
}

Registry Registry::Reload() const { return Build(dirs_, this); }

Registry Registry::Build(const std::vector<fs::path>& dirs,
                         const Registry* previous) {
  Registry registry;
  registry.dirs_ = dirs;
  if (previous != nullptr) registry.index_ = previous->index_;
  for (size_t i = 0; i < dirs.size(); ++i) {
    const int priority = static_cast<int>(i);
    registry.index_.Apply(ScanSpecDirectory(dirs[i], priority,
                                            registry.index_.FilesOf(priority)));
  }
  registry.errors_ = registry.index_.Errors();
  registry.index_.TakeNewErrors();
  return registry;
}

SpecIndexUpdate ScanSpecDirectory(const fs::path& dir, int priority,
                                  const std::vector<SpecFilePtr>& before) {
  SpecIndexUpdate update;
  StatusOr<std::vector<fs::path>> files = ListSpecFiles(dir);
  if (!files.ok()) {
    for (const SpecFilePtr& file : before) {
      update.removed.emplace_back(priority, file->file.native());
    }
    update.directory_errors.emplace_back(
        priority, SpecFileError{dir, files.status().message()});
    return update;
  }
  update.directory_errors.emplace_back(priority, std::nullopt);
  // Both lists are sorted by native path: walk them together.
  auto old = before.begin();
  for (const fs::path& file : *files) {
    for (; old != before.end() && (*old)->file.native() < file.native();
         ++old) {
      update.removed.emplace_back(priority, (*old)->file.native());
    }
    SpecFilePtr previous;
    if (old != before.end() && (*old)->file.native() == file.native()) {
      previous = *old++;
    }
    std::optional<SpecFilePtr> loaded = LoadSpecFile(file, priority, previous);
    if (!loaded) {
      if (previous) update.removed.emplace_back(priority, file.native());
    } else if (*loaded != previous) {
      update.put.push_back(*std::move(loaded));
    }
  }
  for (; old != before.end(); ++old) {
    update.removed.emplace_back(priority, (*old)->file.native());
  }
  return update;
}

}  // namespace dralloc::cdi
