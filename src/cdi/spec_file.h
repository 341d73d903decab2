// LoadedSpecFile: one CDI spec file as read from a spec directory (its spec,
// or why it was skipped), and the directory helpers shared by Registry (full
// scans) and WatchedRegistry (single files named by inotify events).
#ifndef DRALLOC_CDI_SPEC_FILE_H_
#define DRALLOC_CDI_SPEC_FILE_H_

#include <compare>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cdi/spec.h"
#include "common/status.h"

namespace dralloc::cdi {

// A spec file, a device in it, or a directory that was ignored (or could
// not be watched), and why.
struct SpecFileError {
  std::filesystem::path file;
  std::string message;  // "cdi spec <file>: ..."
  friend bool operator==(const SpecFileError&, const SpecFileError&) = default;
};

// What identifies a version of a file without reading it.
struct FileIdentity {
  uintmax_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t inode = 0;
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

// One file as read. Immutable once made; shared between registries.
struct LoadedSpecFile {
  std::filesystem::path file;
  int priority = 0;  // index of the file's directory in the registry's list
  FileIdentity identity;
  std::optional<Spec> spec;
  std::string error;  // "cdi spec <file>: ..." when !spec
};
using SpecFilePtr = std::shared_ptr<const LoadedSpecFile>;

// Whether a directory entry named `name` is read as a spec file: it ends in
// ".json" or ".yaml" (the CDI library's rule; ".yml" is not one).
bool IsSpecFileName(std::string_view name);

// The spec files of `dir` sorted by name (native string order), directories
// left out. A missing directory is empty; an error only for a directory that
// exists but cannot be listed (kUnavailable "cdi spec dir <dir>: ...").
StatusOr<std::vector<std::filesystem::path>> ListSpecFiles(
    const std::filesystem::path& dir);

// Reads `file` of the directory of index `priority`. When `previous` (may be
// null) has the same priority and identity (inode, size, mtime), returns it
// instead of parsing again. A file that cannot be stat'ed, read or parsed
// comes back with `error` set (a dangling symlink too). nullopt when the
// name is gone (ENOENT, ENOTDIR) or is a directory: nothing to record.
std::optional<SpecFilePtr> LoadSpecFile(const std::filesystem::path& file,
                                        int priority,
                                        const SpecFilePtr& previous);

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_SPEC_FILE_H_
