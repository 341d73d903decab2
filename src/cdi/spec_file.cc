#include "cdi/spec_file.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "cdi/spec_parser.h"

namespace dralloc::cdi {

namespace fs = std::filesystem;

bool IsSpecFileName(std::string_view name) {
  // A name that is only the extension (".json") is a hidden file with no
  // extension for fs::path, as before; keep that rule.
  auto has = [&](std::string_view extension) {
    return name.size() > extension.size() && name.ends_with(extension);
  };
  return has(".json") || has(".yaml");
}

StatusOr<std::vector<fs::path>> ListSpecFiles(const fs::path& dir) {
  std::error_code error;
  fs::directory_iterator it(dir, error);
  if (error == std::errc::no_such_file_or_directory) {
    return std::vector<fs::path>{};
  }
  std::vector<fs::path> files;
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    const fs::path& path = it->path();
    std::error_code ignored;
    if (IsSpecFileName(path.filename().native()) &&
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

std::optional<SpecFilePtr> LoadSpecFile(const fs::path& file, int priority,
                                        const SpecFilePtr& previous) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) {
    const int error = errno;
    struct stat link {};
    // Gone: nothing to record. A dangling symlink is a bad file, as before.
    if ((error == ENOENT || error == ENOTDIR) &&
        ::lstat(file.c_str(), &link) != 0) {
      return std::nullopt;
    }
    auto failed = std::make_shared<LoadedSpecFile>();
    failed->file = file;
    failed->priority = priority;
    failed->error = fmt::format("cdi spec {}: {}", file.string(),
                                std::generic_category().message(error));
    return failed;
  }
  if (S_ISDIR(info.st_mode)) return std::nullopt;
  const FileIdentity identity{
      static_cast<uintmax_t>(info.st_size),
      info.st_mtim.tv_sec * 1'000'000'000LL + info.st_mtim.tv_nsec,
      static_cast<uint64_t>(info.st_ino)};
  if (previous != nullptr && previous->priority == priority &&
      previous->identity == identity) {
    return previous;
  }
  auto loaded = std::make_shared<LoadedSpecFile>();
  loaded->file = file;
  loaded->priority = priority;
  loaded->identity = identity;
  StatusOr<Spec> spec = ParseSpecFile(file);
  if (!spec.ok()) {
    // A file removed between stat and read is gone, not bad.
    struct stat again {};
    if (::lstat(file.c_str(), &again) != 0 && errno == ENOENT) {
      return std::nullopt;
    }
    loaded->error = spec.status().message();
  } else {
    loaded->spec = *std::move(spec);
  }
  return loaded;
}

}  // namespace dralloc::cdi
