// WatchedRegistry: the CDI devices of some spec directories, kept current
// with inotify (the CDI library's Cache with auto-refresh on), for callers
// that see new spec files all the time: the node agent resolves the IDs of
// a per-claim spec its driver wrote a moment before.
//
// Cost. The devices live in one mutable SpecIndex behind a reader/writer
// lock. A refresh reads the queued inotify events (SpecDirWatcher) and
// re-reads only the files they name: k changed files among N cost
// O(k log N) (plus parsing the k files), and nothing is copied. Whole
// directories are listed only at start, when a directory appears, is
// replaced or disappears, when the kernel's event queue overflows, and as
// the last resort of Resolve below.
//
// Freshness. inotify queues an event before the write, rename or unlink
// that caused it returns, so a file written before Resolve is called is
// either applied already or waiting in the queue. Resolve looks up the IDs
// under the reader lock; on a miss it drains the queue (Refresh) and looks
// again; only if an ID is still unknown does it list every directory once
// (Rescan), unless another caller's rescan started after this call began.
// With background_refresh a thread of its own applies events as they come,
// so bad files are reported promptly and the queue stays short.
//
// Thread-safe: any number of threads may call any method at once.
#ifndef DRALLOC_CDI_WATCHED_REGISTRY_H_
#define DRALLOC_CDI_WATCHED_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "cdi/spec.h"
#include "cdi/spec_dir_watcher.h"
#include "cdi/spec_index.h"
#include "common/mutex.h"
#include "common/status.h"
#include "common/thread_annotations.h"

namespace dralloc::cdi {

class WatchedRegistry {
 public:
  struct Options {
    // Apply events on a thread of this object as they arrive. Without it
    // they are applied by Refresh(), Rescan() and Resolve misses only.
    bool background_refresh = true;
    // Called once for each new problem (a bad file, a conflict, a directory
    // that cannot be listed or watched), on the thread that found it, with
    // no lock of this object held. May be empty.
    std::function<void(const SpecFileError&)> on_error;
  };

  // Counters for tests and benchmarks: what refreshing has cost so far.
  struct Stats {
    uint64_t files_read = 0;       // single files re-read for events
    uint64_t directory_scans = 0;  // directories listed in full
    uint64_t full_rescans = 0;     // Rescan() calls that ran (not skipped)
    uint64_t overflows = 0;        // IN_Q_OVERFLOW (or a failed read) seen
  };

  // Watches `dirs` (later directories win, as for Registry::Load), then
  // lists them. Never fails: when inotify cannot be used, or a directory
  // cannot be watched, the problem goes to on_error and Resolve falls back
  // to a rescan on a miss.
  WatchedRegistry(std::vector<std::filesystem::path> dirs, Options options);
  ~WatchedRegistry();
  WatchedRegistry(const WatchedRegistry&) = delete;
  WatchedRegistry& operator=(const WatchedRegistry&) = delete;

  // As Registry::Resolve, on current files (see Freshness above).
  StatusOr<ContainerEdits> Resolve(std::span<const std::string> qualified_names)
      EXCLUDES(refresh_mu_, index_mu_);
  // As Registry::Resolve, on what has been applied so far: no refresh.
  StatusOr<ContainerEdits> ResolveApplied(
      std::span<const std::string> qualified_names) const EXCLUDES(index_mu_);

  // Applies the queued inotify events now (cost: the files they name).
  void Refresh() EXCLUDES(refresh_mu_, index_mu_);
  // Applies queued events, then lists every directory again (re-parsing
  // only files whose identity changed): O(number of spec files).
  void Rescan() EXCLUDES(refresh_mu_, index_mu_);

  // Every resolvable device, sorted by qualified name.
  std::vector<RegisteredDevice> Devices() const EXCLUDES(index_mu_);
  // Every current problem, in Registry::errors() order.
  std::vector<SpecFileError> errors() const EXCLUDES(index_mu_);
  // Whether inotify watches every directory (or its missing ancestor).
  bool watching() const EXCLUDES(refresh_mu_);
  Stats stats() const EXCLUDES(refresh_mu_);

 private:
  // Applies `changes`: loads files without the index lock, then updates
  // the index under the writer lock. Returns the new problems.
  std::vector<SpecFileError> Apply(const SpecDirChanges& changes)
      REQUIRES(refresh_mu_) EXCLUDES(index_mu_);
  // Refresh/Rescan with refresh_mu_ held; `full` lists every directory.
  std::vector<SpecFileError> RefreshLocked(bool full) REQUIRES(refresh_mu_)
      EXCLUDES(index_mu_);
  // Rescan, unless one started after `seen` rescans had started.
  void RescanUnlessSince(uint64_t seen) EXCLUDES(refresh_mu_, index_mu_);
  void Report(const std::vector<SpecFileError>& errors) const;
  void RunBackgroundRefresh() EXCLUDES(refresh_mu_, index_mu_);

  const std::vector<std::filesystem::path> dirs_;
  const Options options_;

  // Held while reading events and changing the index: one refresher.
  mutable Mutex refresh_mu_;
  std::unique_ptr<SpecDirWatcher> watcher_ GUARDED_BY(refresh_mu_);
  Stats stats_ GUARDED_BY(refresh_mu_);
  // The watcher's problems last reported, so each is reported once.
  std::vector<SpecFileError> watch_problems_ GUARDED_BY(refresh_mu_);
  std::atomic<uint64_t> rescans_started_{0};

  mutable SharedMutex index_mu_ ACQUIRED_AFTER(refresh_mu_);
  SpecIndex index_ GUARDED_BY(index_mu_);

  int watch_fd_ = -1;  // the watcher's inotify fd, for poll; -1 without
  int stop_fd_ = -1;   // eventfd that wakes the background thread to exit
  std::thread background_;
};

}  // namespace dralloc::cdi

#endif  // DRALLOC_CDI_WATCHED_REGISTRY_H_
