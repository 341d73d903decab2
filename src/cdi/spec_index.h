// SpecIndex: the CDI devices of a set of loaded spec files, kept up to date
// one file at a time. Adding, replacing or removing a file costs
// O(d log N) for a file of d devices among N files: nothing else is copied
// or rebuilt. Registry (an immutable snapshot) and WatchedRegistry (kept
// current with inotify) are both built on it.
//
// The rules (the CDI library's): each file belongs to the directory of
// index `priority`; later directories win, so a device resolves to its
// definition in the highest-priority directory that defines it. A device
// defined by two files of that same directory is a conflict: it is not
// resolvable (an earlier directory's definition is not restored) and each
// of those files gets an error. Files that failed to load are kept, with
// their error, and define nothing.
//
// Not thread-safe: const methods may run concurrently with each other,
// mutations need exclusive access (WatchedRegistry holds a reader/writer
// lock around it).
#ifndef DRALLOC_CDI_SPEC_INDEX_H_
#define DRALLOC_CDI_SPEC_INDEX_H_

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cdi/spec.h"
#include "cdi/spec_file.h"
#include "common/status.h"

namespace dralloc::cdi {

// A device the registry resolves, for diagnostics.
struct RegisteredDevice {
  std::string qualified_name;  // "vendor/class=name"
  std::filesystem::path spec_file;
  int priority = 0;  // index of the spec file's directory
  friend bool operator==(const RegisteredDevice&,
                         const RegisteredDevice&) = default;
};

// A batch of changes for SpecIndex::Apply, made without the index's lock.
struct SpecIndexUpdate {
  std::vector<std::pair<int, std::string>> removed;  // priority, native path
  std::vector<SpecFilePtr> put;
  // Directory errors to set (or clear, nullopt), by priority.
  std::vector<std::pair<int, std::optional<SpecFileError>>> directory_errors;
  bool empty() const {
    return removed.empty() && put.empty() && directory_errors.empty();
  }
};

class SpecIndex {
 public:
  // Adds `file`, or replaces the file of the same priority and path.
  void Put(SpecFilePtr file);
  // Removes the file of `priority` at `path`, if present.
  void Remove(int priority, const std::string& path);
  // The file of `priority` at `path`, or null.
  SpecFilePtr Find(int priority, const std::string& path) const;
  // The files of directory `priority`, by path.
  std::vector<SpecFilePtr> FilesOf(int priority) const;
  // Records that directory `priority` could not be listed (replacing any
  // earlier such error); nullopt clears it.
  void SetDirectoryError(int priority, std::optional<SpecFileError> error);

  // Removes, then puts, then sets directory errors, as listed.
  void Apply(const SpecIndexUpdate& update);

  // See Registry::Resolve.
  StatusOr<ContainerEdits> Resolve(
      std::span<const std::string> qualified_names) const;
  // Every resolvable device, sorted by qualified name.
  std::vector<RegisteredDevice> Devices() const;
  // Every current problem in load order: by directory; in each, the
  // directory's own error, then bad files by name, then conflicts by device
  // name (one error per file of the conflict, by file name).
  std::vector<SpecFileError> Errors() const;
  // Problems that appeared since the last call (a bad file put, a conflict
  // made or changed), oldest first; for logging each once.
  std::vector<SpecFileError> TakeNewErrors();

  size_t file_count() const { return files_.size(); }

 private:
  using FileKey = std::pair<int, std::string>;  // priority, native path
  struct Definition {
    SpecFilePtr file;
    size_t device = 0;  // index into file->spec->devices
  };
  // Definitions of one device name in one directory, by file path.
  using DirectoryDefinitions = std::map<std::string, Definition>;
  // Definitions of one device name, by directory priority.
  using NameDefinitions = std::map<int, DirectoryDefinitions>;

  void AddDefinitions(const SpecFilePtr& file);
  void RemoveDefinitions(const LoadedSpecFile& file);
  // Keeps conflicts_ in step with definitions_[name][priority].
  void UpdateConflict(const std::string& name, int priority);
  // The winning definition of `name`, or null.
  static const Definition* Winner(const NameDefinitions& definitions);
  std::vector<SpecFileError> ConflictErrors(const std::string& name,
                                            int priority) const;
  int MaxPriority() const;

  std::map<FileKey, SpecFilePtr> files_;
  std::set<FileKey> bad_files_;  // files_ entries without a spec
  std::map<std::string, NameDefinitions, std::less<>> definitions_;
  std::set<std::pair<int, std::string>> conflicts_;  // priority, name
  std::map<int, SpecFileError> directory_errors_;
  std::vector<SpecFileError> new_errors_;
};

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_SPEC_INDEX_H_
