#include "node/plugin_watcher.h"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "common/log.h"

namespace dralloc::node {
namespace {

constexpr std::string_view kComponent = "plugin-watcher";

// The socket's inode, or 0 when `path` is not a socket.
ino_t SocketInode(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return 0;
  return st.st_ino;
}

bool IsHidden(std::string_view name) {
  return name.empty() || name.front() == '.';
}

}  // namespace

PluginWatcher::PluginWatcher(std::string dir, Handler handler)
    : dir_(std::move(dir)), handler_(std::move(handler)) {}

PluginWatcher::~PluginWatcher() {
  Stop();
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
}

Status PluginWatcher::Start() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    return InternalError("plugins registry " + dir_ +
                         ": cannot create: " + ec.message());
  }
  inotify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotify_fd_ < 0) {
    return InternalError(std::string("inotify_init1: ") + std::strerror(errno));
  }
  constexpr uint32_t kMask =
      IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM;
  if (::inotify_add_watch(inotify_fd_, dir_.c_str(), kMask) < 0) {
    return InternalError("plugins registry " + dir_ +
                         ": inotify_add_watch: " + std::strerror(errno));
  }
  // Watch first, then scan: a socket created in between is seen twice and
  // reported once (known_ deduplicates).
  ScanDirectory();
  thread_ = std::thread([this] { Run(); });
  return OkStatus();
}

void PluginWatcher::Stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void PluginWatcher::Run() {
  while (!stopping_) {
    pollfd fd{inotify_fd_, POLLIN, 0};
    int ready = ::poll(&fd, 1, static_cast<int>(kPollInterval.count()));
    if (ready < 0 && errno != EINTR) {
      log::Error(kComponent, "poll on inotify of {}: {}", dir_,
                 std::strerror(errno));
      return;
    }
    if (ready > 0) ReadEvents();
  }
}

void PluginWatcher::ScanDirectory() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    OnNameAppeared(entry.path().filename().string());
  }
  if (ec) log::Warn(kComponent, "scan of {}: {}", dir_, ec.message());
}

void PluginWatcher::ReadEvents() {
  alignas(inotify_event) char buffer[16 * 1024];
  while (true) {
    ssize_t n = ::read(inotify_fd_, buffer, sizeof(buffer));
    if (n <= 0) return;  // EAGAIN: drained
    for (ssize_t offset = 0; offset < n;) {
      const auto* event =
          reinterpret_cast<const inotify_event*>(buffer + offset);
      offset += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      if (event->mask & IN_Q_OVERFLOW) {
        log::Warn(kComponent, "inotify queue overflow on {}: rescanning", dir_);
        ScanDirectory();
        continue;
      }
      if (event->len == 0) continue;
      std::string name(event->name);
      if (event->mask & (IN_CREATE | IN_MOVED_TO)) OnNameAppeared(name);
      if (event->mask & (IN_DELETE | IN_MOVED_FROM)) OnNameGone(name);
    }
  }
}

void PluginWatcher::OnNameAppeared(const std::string& name) {
  if (IsHidden(name)) return;
  std::string path = dir_ + "/" + name;
  const ino_t inode = SocketInode(path);
  if (inode == 0) return;
  auto it = known_.find(path);
  if (it != known_.end()) {
    if (it->second == inode) return;  // seen by the scan and by inotify
    // Replaced in place without a removal event (renamed over it).
    handler_({PluginSocketEvent::Type::kRemoved, path});
  }
  known_[path] = inode;
  handler_({PluginSocketEvent::Type::kAdded, path});
}

void PluginWatcher::OnNameGone(const std::string& name) {
  std::string path = dir_ + "/" + name;
  if (known_.erase(path) == 0) return;
  handler_({PluginSocketEvent::Type::kRemoved, path});
}

}  // namespace dralloc::node
