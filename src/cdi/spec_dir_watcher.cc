#include "cdi/spec_dir_watcher.h"

#include <fmt/format.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace dralloc::cdi {
namespace {

namespace fs = std::filesystem;

// IN_MASK_ADD: one inode may be both a spec directory and the ancestor of a
// missing one; its two masks must not replace each other.
constexpr uint32_t kDirMask =
    IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE |
    IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK | IN_MASK_ADD;
constexpr uint32_t kAncestorMask = IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF |
                                   IN_MOVE_SELF | IN_ONLYDIR | IN_MASK_ADD;

std::string ErrnoText(int error) {
  return std::generic_category().message(error);
}

bool IsSymlink(const fs::path& file) {
  struct stat info {};
  return ::lstat(file.c_str(), &info) == 0 && S_ISLNK(info.st_mode);
}

}  // namespace

StatusOr<std::unique_ptr<SpecDirWatcher>> SpecDirWatcher::Open(
    std::vector<fs::path> dirs) {
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) {
    return UnavailableError(
        fmt::format("cdi spec dirs: inotify_init1: {}", ErrnoText(errno)));
  }
  std::unique_ptr<SpecDirWatcher> watcher(
      new SpecDirWatcher(fd, std::move(dirs)));
  SpecDirChanges initial;  // the caller lists every directory anyway
  watcher->Arm(initial);
  return watcher;
}

SpecDirWatcher::SpecDirWatcher(int fd, std::vector<fs::path> dirs)
    : fd_(fd), dirs_(std::move(dirs)), dir_watches_(dirs_.size(), -1) {}

SpecDirWatcher::~SpecDirWatcher() { ::close(fd_); }

void SpecDirWatcher::Arm(SpecDirChanges& changes) {
  std::map<int, WatchRole> roles;
  std::vector<int> watches(dirs_.size(), -1);
  complete_ = true;
  problems_.clear();
  for (size_t i = 0; i < dirs_.size(); ++i) {
    const int dir = static_cast<int>(i);
    int error = 0;
    const int wd = WatchDirectory(dirs_[i], roles, error);
    if (wd >= 0) {
      watches[i] = wd;
      roles[wd].dirs.push_back(dir);
      if (wd != dir_watches_[i]) changes.rescan_dirs.insert(dir);
      continue;
    }
    if (dir_watches_[i] >= 0) changes.rescan_dirs.insert(dir);  // gone
    if (error == 0) continue;  // missing; an ancestor waits for it
    if (error != ENOENT && error != ENOTDIR) {
      changes.rescan_dirs.insert(dir);  // there, but unwatched: list it
    }
    complete_ = false;
    problems_.push_back(
        {dirs_[i], fmt::format("cdi spec dir {}: cannot watch for changes: {}",
                               dirs_[i].string(), ErrnoText(error))});
  }
  for (const auto& [wd, role] : roles_) {
    if (!roles.contains(wd)) ::inotify_rm_watch(fd_, wd);
  }
  roles_ = std::move(roles);
  dir_watches_ = std::move(watches);
}

int SpecDirWatcher::WatchDirectory(const fs::path& dir,
                                   std::map<int, WatchRole>& roles,
                                   int& error) {
  // A directory on the path may appear after the watch of `dir` failed and
  // before its ancestor is watched; that creation would go unseen, so look
  // again while the watched ancestor's next path element exists.
  for (int attempt = 0; attempt < 16; ++attempt) {
    const int wd = ::inotify_add_watch(fd_, dir.c_str(), kDirMask);
    if (wd >= 0) return wd;
    error = errno;
    if (error != ENOENT && error != ENOTDIR) return -1;
    std::optional<fs::path> next = WatchAncestor(dir, roles);
    if (!next) return -1;
    struct stat info {};
    if (::stat(next->c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
      error = 0;  // the ancestor's watch will see it appear
      return -1;
    }
  }
  error = EAGAIN;  // the path keeps changing under us
  return -1;
}

std::optional<fs::path> SpecDirWatcher::WatchAncestor(
    const fs::path& dir, std::map<int, WatchRole>& roles) {
  std::error_code error;
  fs::path next = fs::absolute(dir, error);
  if (error) return std::nullopt;
  for (fs::path path = next.parent_path();;
       next = path, path = path.parent_path()) {
    const int wd = ::inotify_add_watch(fd_, path.c_str(), kAncestorMask);
    if (wd >= 0) {
      roles[wd].ancestor = true;
      return next;
    }
    if ((errno != ENOENT && errno != ENOTDIR) || path == path.parent_path()) {
      return std::nullopt;
    }
  }
}

SpecDirChanges SpecDirWatcher::ReadEvents() {
  SpecDirChanges changes;
  bool rearm = false;
  alignas(inotify_event) char buffer[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) changes.overflowed = true;  // unknown loss
    if (n <= 0) break;
    for (ssize_t offset = 0; offset < n;) {
      const auto* event =
          reinterpret_cast<const inotify_event*>(buffer + offset);
      const std::string_view name =
          event->len > 0 ? std::string_view(event->name) : std::string_view();
      Handle(event->mask, event->wd, name, changes, rearm);
      offset += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
  }
  if (changes.overflowed) {
    Arm(changes);
    for (size_t i = 0; i < dirs_.size(); ++i) {
      changes.rescan_dirs.insert(static_cast<int>(i));
    }
  } else if (rearm) {
    Arm(changes);
  }
  // A directory listed in full covers its single files.
  std::erase_if(changes.files, [&](const std::pair<int, std::string>& file) {
    return changes.rescan_dirs.contains(file.first);
  });
  return changes;
}

void SpecDirWatcher::Handle(uint32_t mask, int wd, std::string_view name,
                            SpecDirChanges& changes, bool& rearm) const {
  if (mask & IN_Q_OVERFLOW) {
    changes.overflowed = true;
    return;
  }
  auto role = roles_.find(wd);
  if (role == roles_.end()) return;  // a watch already dropped
  if (mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT)) {
    rearm = true;
    return;
  }
  if (mask & IN_ISDIR) {
    rearm = true;  // maybe a missing spec directory (or its parent) appeared
    return;
  }
  if (name.empty() || !IsSpecFileName(name)) return;
  for (int dir : role->second.dirs) {
    fs::path file = dirs_[dir] / name;
    // A new regular file is read once its writer closes it (IN_CLOSE_WRITE)
    // rather than half-written; a symlink is complete when made.
    if ((mask & IN_CREATE) && !IsSymlink(file)) continue;
    changes.files.emplace(dir, file.native());
  }
}

}  // namespace dralloc::cdi
