// Helpers shared by the node agent's tests: temp dirs, bound waits and
// plain unix sockets.
#ifndef DRALLOC_NODE_NODE_TEST_UTIL_H_
#define DRALLOC_NODE_NODE_TEST_UTIL_H_

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

namespace dralloc::node::testing {

// A fresh directory under $TMPDIR (or /tmp), removed on destruction. Kept
// short: unix socket paths are limited to 108 bytes.
class TempDir {
 public:
  TempDir() {
    std::string pattern = "/tmp/drn-XXXXXX";
    char* made = ::mkdtemp(pattern.data());
    path_ = made != nullptr ? made : "/tmp";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Polls `condition` every 5 ms until it holds or `timeout` passes.
inline bool WaitFor(
    const std::function<bool()>& condition,
    std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return condition();
}

// Binds (and optionally listens on) a unix socket at `path`; returns the
// fd (-1 on failure). Closing a bound, non-listening socket leaves a stale
// socket file behind: what a crashed plugin leaves.
inline int BindUnixSocket(const std::string& path, bool listen) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      (listen && ::listen(fd, 4) != 0)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace dralloc::node::testing

#endif  // DRALLOC_NODE_NODE_TEST_UTIL_H_
