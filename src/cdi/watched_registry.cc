#include "cdi/watched_registry.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "cdi/registry.h"

namespace dralloc::cdi {

WatchedRegistry::WatchedRegistry(std::vector<std::filesystem::path> dirs,
                                 Options options)
    : dirs_(std::move(dirs)), options_(std::move(options)) {
  std::vector<SpecFileError> problems;
  {
    MutexLock lock(refresh_mu_);
    StatusOr<std::unique_ptr<SpecDirWatcher>> watcher =
        SpecDirWatcher::Open(dirs_);
    if (watcher.ok()) {
      watcher_ = *std::move(watcher);
      watch_fd_ = watcher_->fd();
    } else {
      problems.push_back({"", watcher.status().message() +
                                  "; CDI spec changes are seen by rescans"});
    }
    std::vector<SpecFileError> found = RefreshLocked(/*full=*/true);
    problems.insert(problems.end(), found.begin(), found.end());
  }
  Report(problems);
  if (options_.background_refresh && watch_fd_ >= 0) {
    stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
    if (stop_fd_ >= 0) {
      background_ = std::thread([this] { RunBackgroundRefresh(); });
    }
  }
}

WatchedRegistry::~WatchedRegistry() {
  if (background_.joinable()) {
    const uint64_t one = 1;
    // An eventfd write of 8 bytes cannot be short; it fails only on
    // overflow of the counter, which one write cannot reach.
    [[maybe_unused]] ssize_t written = ::write(stop_fd_, &one, sizeof one);
    background_.join();
  }
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

StatusOr<ContainerEdits> WatchedRegistry::Resolve(
    std::span<const std::string> qualified_names) {
  const uint64_t seen = rescans_started_.load();
  StatusOr<ContainerEdits> edits = ResolveApplied(qualified_names);
  if (edits.ok() || edits.status().code() != StatusCode::kNotFound) {
    return edits;
  }
  Refresh();
  edits = ResolveApplied(qualified_names);
  if (edits.ok() || edits.status().code() != StatusCode::kNotFound) {
    return edits;
  }
  RescanUnlessSince(seen);
  return ResolveApplied(qualified_names);
}

StatusOr<ContainerEdits> WatchedRegistry::ResolveApplied(
    std::span<const std::string> qualified_names) const {
  ReaderMutexLock lock(index_mu_);
  return index_.Resolve(qualified_names);
}

void WatchedRegistry::Refresh() {
  std::vector<SpecFileError> errors;
  {
    MutexLock lock(refresh_mu_);
    errors = RefreshLocked(/*full=*/false);
  }
  Report(errors);
}

void WatchedRegistry::Rescan() {
  std::vector<SpecFileError> errors;
  {
    MutexLock lock(refresh_mu_);
    rescans_started_.fetch_add(1);
    ++stats_.full_rescans;
    errors = RefreshLocked(/*full=*/true);
  }
  Report(errors);
}

void WatchedRegistry::RescanUnlessSince(uint64_t seen) {
  std::vector<SpecFileError> errors;
  {
    MutexLock lock(refresh_mu_);
    // With the lock held no rescan is running: one counted after `seen`
    // started after the caller's first lookup and has finished.
    if (rescans_started_.load() > seen) return;
    rescans_started_.fetch_add(1);
    ++stats_.full_rescans;
    errors = RefreshLocked(/*full=*/true);
  }
  Report(errors);
}

std::vector<SpecFileError> WatchedRegistry::RefreshLocked(bool full) {
  SpecDirChanges changes;
  if (watcher_ != nullptr) changes = watcher_->ReadEvents();
  if (changes.overflowed) ++stats_.overflows;
  if (full) {
    for (size_t i = 0; i < dirs_.size(); ++i) {
      changes.rescan_dirs.insert(static_cast<int>(i));
    }
    changes.files.clear();
  }
  std::vector<SpecFileError> errors = Apply(changes);
  if (watcher_ != nullptr && watcher_->problems() != watch_problems_) {
    for (const SpecFileError& problem : watcher_->problems()) {
      if (std::ranges::find(watch_problems_, problem) ==
          watch_problems_.end()) {
        errors.push_back(problem);
      }
    }
    watch_problems_ = watcher_->problems();
  }
  return errors;
}

std::vector<SpecFileError> WatchedRegistry::Apply(
    const SpecDirChanges& changes) {
  if (changes.empty()) return {};
  std::vector<std::pair<int, std::vector<SpecFilePtr>>> before;
  {
    ReaderMutexLock lock(index_mu_);
    for (int dir : changes.rescan_dirs) {
      before.emplace_back(dir, index_.FilesOf(dir));
    }
  }
  // Read the disk with no index lock held: readers go on meanwhile, and
  // only this thread (holding refresh_mu_) changes the index.
  SpecIndexUpdate update;
  for (const auto& [dir, files] : before) {
    SpecIndexUpdate scan = ScanSpecDirectory(dirs_[dir], dir, files);
    ++stats_.directory_scans;
    update.removed.insert(update.removed.end(), scan.removed.begin(),
                          scan.removed.end());
    update.put.insert(update.put.end(), scan.put.begin(), scan.put.end());
    update.directory_errors.insert(update.directory_errors.end(),
                                   scan.directory_errors.begin(),
                                   scan.directory_errors.end());
  }
  for (const auto& [dir, path] : changes.files) {
    // Always parsed again: two writes within one timestamp tick can leave
    // size and mtime equal.
    std::optional<SpecFilePtr> loaded = LoadSpecFile(path, dir, nullptr);
    ++stats_.files_read;
    if (loaded) {
      update.put.push_back(*std::move(loaded));
    } else {
      update.removed.emplace_back(dir, path);
    }
  }
  WriterMutexLock lock(index_mu_);
  index_.Apply(update);
  return index_.TakeNewErrors();
}

std::vector<RegisteredDevice> WatchedRegistry::Devices() const {
  ReaderMutexLock lock(index_mu_);
  return index_.Devices();
}

std::vector<SpecFileError> WatchedRegistry::errors() const {
  ReaderMutexLock lock(index_mu_);
  return index_.Errors();
}

bool WatchedRegistry::watching() const {
  MutexLock lock(refresh_mu_);
  return watcher_ != nullptr && watcher_->complete();
}

WatchedRegistry::Stats WatchedRegistry::stats() const {
  MutexLock lock(refresh_mu_);
  return stats_;
}

void WatchedRegistry::Report(const std::vector<SpecFileError>& errors) const {
  if (!options_.on_error) return;
  for (const SpecFileError& error : errors) options_.on_error(error);
}

void WatchedRegistry::RunBackgroundRefresh() {
  pollfd fds[2] = {{watch_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
  for (;;) {
    const int ready = ::poll(fds, 2, -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0 || fds[1].revents != 0) return;
    if (fds[0].revents != 0) Refresh();
  }
}

}  // namespace dralloc::cdi
