// SpecDirWatcher: which CDI spec files changed, from inotify, so that a
// registry re-reads only those (what the CDI library's auto-refresh
// watches, as our own code).
//
// Each spec directory is watched for IN_CLOSE_WRITE (a file written in
// place), IN_MOVED_TO (the atomic write-then-rename drivers use),
// IN_MOVED_FROM and IN_DELETE (removed), IN_CREATE (only symlinks are read
// on creation: a created regular file is read when its writer closes it),
// and its own deletion or move. A directory that does not exist (yet) is
// waited for by watching its nearest existing ancestor for new
// subdirectories; when one appears every directory is re-armed, and a
// directory that became watchable is listed in full. A kernel queue
// overflow (IN_Q_OVERFLOW) asks for a rescan of every directory.
//
// Limits: a directory that is reached through a renamed ancestor is not
// noticed until the next full rescan; files made by link(2) are read at
// the next rescan or write. Not thread-safe (WatchedRegistry serialises).
#ifndef DRALLOC_CDI_SPEC_DIR_WATCHER_H_
#define DRALLOC_CDI_SPEC_DIR_WATCHER_H_

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cdi/spec_file.h"
#include "common/status.h"

namespace dralloc::cdi {

// What a batch of events asks the registry to re-read.
struct SpecDirChanges {
  // Directories (by index) to list in full: they appeared, disappeared,
  // were replaced, or events for them were lost.
  std::set<int> rescan_dirs;
  // Single files to re-read (or drop, when gone): directory index and the
  // file's native path.
  std::set<std::pair<int, std::string>> files;
  bool overflowed = false;  // the kernel dropped events: everything rescanned
  bool empty() const { return rescan_dirs.empty() && files.empty(); }
};

class SpecDirWatcher {
 public:
  // Starts watching `dirs` (indexes are the directories' priorities).
  // kUnavailable when inotify cannot be used at all (no inotify instance
  // left); a single directory that cannot be watched makes complete()
  // false instead.
  static StatusOr<std::unique_ptr<SpecDirWatcher>> Open(
      std::vector<std::filesystem::path> dirs);
  ~SpecDirWatcher();
  SpecDirWatcher(const SpecDirWatcher&) = delete;
  SpecDirWatcher& operator=(const SpecDirWatcher&) = delete;

  // The inotify descriptor (non-blocking), readable when events wait: for
  // poll(2).
  int fd() const { return fd_; }

  // Reads every queued event without blocking and says what to re-read.
  SpecDirChanges ReadEvents();

  // Whether every directory, or its nearest existing ancestor, is watched.
  // When false some changes may go unseen: callers rescan on a miss.
  bool complete() const { return complete_; }
  // Why complete() is false, per directory:
  // "cdi spec dir <dir>: cannot watch for changes: <reason>".
  const std::vector<SpecFileError>& problems() const { return problems_; }

 private:
  // What one watch descriptor stands for.
  struct WatchRole {
    std::vector<int> dirs;  // the spec directories it is (same inode)
    bool ancestor = false;  // waits for a missing directory to appear
  };

  SpecDirWatcher(int fd, std::vector<std::filesystem::path> dirs);
  // (Re)watches every directory, or its nearest existing ancestor when it
  // is missing; a directory newly watched, or no longer there, goes into
  // `changes.rescan_dirs`. Watches no longer needed are removed.
  void Arm(SpecDirChanges& changes);
  // Watches `dir`: its watch descriptor, or -1 with `error` = 0 when it is
  // missing and an ancestor's watch waits for it, else the errno.
  int WatchDirectory(const std::filesystem::path& dir,
                     std::map<int, WatchRole>& roles, int& error);
  // Watches the nearest existing ancestor of `dir`; returns the path one
  // element below it towards `dir` (what must appear next), or nullopt if
  // no ancestor could be watched.
  std::optional<std::filesystem::path> WatchAncestor(
      const std::filesystem::path& dir, std::map<int, WatchRole>& roles);
  // Folds one event into `changes`; sets `rearm` for directory events.
  void Handle(uint32_t mask, int wd, std::string_view name,
              SpecDirChanges& changes, bool& rearm) const;

  int fd_ = -1;
  std::vector<std::filesystem::path> dirs_;
  std::vector<int> dir_watches_;  // per directory; -1 while not watched
  std::map<int, WatchRole> roles_;
  bool complete_ = true;
  std::vector<SpecFileError> problems_;
};

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_SPEC_DIR_WATCHER_H_
