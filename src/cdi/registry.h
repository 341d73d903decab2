// Registry: the CDI devices defined by the spec files of some directories,
// and their resolution into container edits (the CDI library's Cache).
//
// A Registry is immutable once built, so every const method may be called
// from any number of threads at once. To see changed files, build a new one
// with Reload(), which re-reads only the files that changed (by inode, size
// and modification time) and shares the parsed specs of the others; a
// caller that serves many requests keeps a std::shared_ptr<const Registry>
// and swaps in the reloaded one. A cheap pattern for per-claim specs, which
// appear but never change in place: Resolve, and only on kNotFound Reload
// and Resolve again.
#ifndef DRALLOC_CDI_REGISTRY_H_
#define DRALLOC_CDI_REGISTRY_H_

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cdi/spec.h"
#include "common/status.h"

namespace dralloc::cdi {

// A spec file, or a device in it, that Load ignored, and why.
struct SpecFileError {
  std::filesystem::path file;
  std::string message;  // "cdi spec <file>: ..."
  friend bool operator==(const SpecFileError&, const SpecFileError&) = default;
};

// A device the registry resolves, for diagnostics.
struct RegisteredDevice {
  std::string qualified_name;  // "vendor/class=name"
  std::filesystem::path spec_file;
  int priority = 0;  // index of the spec file's directory in Load's list
  friend bool operator==(const RegisteredDevice&,
                         const RegisteredDevice&) = default;
};

class Registry {
 public:
  // An empty registry.
  Registry() = default;

  // Reads every "*.json" and "*.yaml" file (sorted by name, not recursing)
  // in each of `dirs`. A missing directory is empty. A file that cannot be
  // read or parsed (see ParseSpec) is recorded in errors() and skipped;
  // loading never fails as a whole. Later directories have higher priority:
  // a device defined again in a later directory replaces the earlier
  // definition. A device defined by two files of the same directory is a
  // conflict: that directory's definitions are dropped (an earlier
  // directory's definition is not restored) and each file gets an error.
  static Registry Load(const std::vector<std::filesystem::path>& dirs);

  // Load() of the same directories, re-reading only files that changed.
  Registry Reload() const;

  // The edits for a container given CDI devices "vendor/class=name": for
  // each spec touched, its spec-level edits once (when its first device is
  // reached), then each device's edits, in request order, merged by
  // MergeEdits (cdi/edits_merge.h). A device named twice applies once.
  // Unless every name exists, kNotFound
  // "unresolvable CDI devices: a, b" naming each missing one in order.
  StatusOr<ContainerEdits> Resolve(
      std::span<const std::string> qualified_names) const;

  // Every resolvable device, sorted by qualified name.
  std::vector<RegisteredDevice> Devices() const;

  // Problems met by Load, in the order met.
  const std::vector<SpecFileError>& errors() const { return errors_; }

 private:
  // What identifies a version of a file without reading it.
  struct FileIdentity {
    uintmax_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
  };
  // One file as read: its spec, or why it was skipped.
  struct LoadedFile {
    std::filesystem::path file;
    int priority = 0;
    FileIdentity identity;
    std::optional<Spec> spec;
    std::string error;  // when !spec
  };
  using FilePtr = std::shared_ptr<const LoadedFile>;
  // Where a device is defined: files_[file]->spec->devices[device].
  struct DeviceRef {
    size_t file = 0;
    size_t device = 0;
  };

  // Builds from `dirs`, reusing entries of `previous` (may be null) whose
  // path, priority and identity are unchanged.
  static Registry Build(const std::vector<std::filesystem::path>& dirs,
                        const Registry* previous);
  void AddDirectory(const std::filesystem::path& dir, int priority,
                    const Registry* previous);
  FilePtr ReadFile(const std::filesystem::path& file, int priority,
                   const Registry* previous) const;
  void RecordConflict(const std::string& name,
                      const std::vector<DeviceRef>& definitions);
  const Spec& SpecOf(const DeviceRef& ref) const {
    return *files_[ref.file]->spec;
  }

  std::vector<std::filesystem::path> dirs_;
  // The file read at `file` by this registry, or null.
  FilePtr FindFile(const std::filesystem::path& file) const;

  std::vector<FilePtr> files_;  // in load order, unreadable ones included
  // Native path string -> index into files_.
  std::map<std::string, size_t, std::less<>> file_index_;
  std::map<std::string, DeviceRef, std::less<>> devices_;
  std::vector<SpecFileError> errors_;
};

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_REGISTRY_H_
