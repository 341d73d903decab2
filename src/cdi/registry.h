// Registry: an immutable snapshot of the CDI devices defined by the spec
// files of some directories, and their resolution into container edits (the
// CDI library's Cache with auto-refresh off).
//
// Every const method may be called from any number of threads at once.
// Reload() builds a new snapshot: it lists every directory and stats every
// file (re-parsing only files whose inode, size or modification time
// changed), so it costs O(number of spec files) however little changed. A
// caller that must see new files often, such as the node agent after each
// NodePrepareResources, uses WatchedRegistry (cdi/watched_registry.h)
// instead: it applies inotify events one file at a time.
#ifndef DRALLOC_CDI_REGISTRY_H_
#define DRALLOC_CDI_REGISTRY_H_

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "cdi/spec.h"
#include "cdi/spec_index.h"
#include "common/status.h"

namespace dralloc::cdi {

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

  // Load() of the same directories, re-reading only files that changed
  // (by inode, size and modification time) and sharing the parsed specs of
  // the others. O(number of spec files).
  Registry Reload() const;

  // The edits for a container given CDI devices "vendor/class=name": for
  // each spec touched, its spec-level edits once (when its first device is
  // reached), then each device's edits, in request order, merged by
  // MergeEdits (cdi/edits_merge.h). A device named twice applies once.
  // Unless every name exists, kNotFound
  // "unresolvable CDI devices: a, b" naming each missing one in order.
  StatusOr<ContainerEdits> Resolve(
      std::span<const std::string> qualified_names) const {
    return index_.Resolve(qualified_names);
  }

  // Every resolvable device, sorted by qualified name.
  std::vector<RegisteredDevice> Devices() const { return index_.Devices(); }

  // Problems met by Load, in the order met: by directory; in each, bad
  // files by name, then conflicts by device name.
  const std::vector<SpecFileError>& errors() const { return errors_; }

  const std::vector<std::filesystem::path>& dirs() const { return dirs_; }

 private:
  // Builds from `dirs`, reusing the files of `previous` (may be null) whose
  // path, priority and identity are unchanged.
  static Registry Build(const std::vector<std::filesystem::path>& dirs,
                        const Registry* previous);

  std::vector<std::filesystem::path> dirs_;
  SpecIndex index_;
  std::vector<SpecFileError> errors_;
};

// What makes directory `priority` of an index hold exactly the spec files
// now in `dir`, given the files it holds now (`before`, sorted by path, as
// SpecIndex::FilesOf returns them): files gone are removed, the others
// loaded, reusing a file of `before` whose identity is unchanged. Reads the
// disk but not the index, so a caller may run it without the index's lock
// and apply the result under it. O(files in dir).
SpecIndexUpdate ScanSpecDirectory(const std::filesystem::path& dir,
                                  int priority,
                                  const std::vector<SpecFilePtr>& before);

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_REGISTRY_H_
