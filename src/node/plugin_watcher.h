// PluginWatcher: the kubelet's plugin registry watch. Reports unix sockets
// appearing in and disappearing from one directory (the plugins registry),
// first those already there (an initial scan), then changes seen through
// inotify (IN_CREATE, IN_MOVED_TO, IN_DELETE, IN_MOVED_FROM).
//
// Only sockets count: regular files, directories and hidden names (".x")
// are ignored, as the kubelet does. A socket replaced in place (removed and
// created again) is reported as removed, then added.
//
// The loop runs on its own thread, polls the inotify fd with a bounded
// timeout and stops within that timeout after Stop().
#ifndef DRALLOC_NODE_PLUGIN_WATCHER_H_
#define DRALLOC_NODE_PLUGIN_WATCHER_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include "common/status.h"

namespace dralloc::node {

struct PluginSocketEvent {
  enum class Type { kAdded, kRemoved };
  Type type = Type::kAdded;
  std::string path;  // absolute path of the socket
  friend bool operator==(const PluginSocketEvent&,
                         const PluginSocketEvent&) = default;
};

class PluginWatcher {
 public:
  // `handler` runs on the watcher's thread, one event at a time.
  using Handler = std::function<void(const PluginSocketEvent&)>;

  PluginWatcher(std::string dir, Handler handler);
  ~PluginWatcher();
  PluginWatcher(const PluginWatcher&) = delete;
  PluginWatcher& operator=(const PluginWatcher&) = delete;

  // Creates the directory if needed, starts watching, reports the sockets
  // already there and starts the thread. kInternal when inotify fails.
  Status Start();
  // Stops the thread (within kPollInterval); idempotent.
  void Stop();

  static constexpr std::chrono::milliseconds kPollInterval{100};

 private:
  void Run();
  void ScanDirectory();
  void ReadEvents();
  void OnNameAppeared(const std::string& name);
  void OnNameGone(const std::string& name);

  const std::string dir_;
  const Handler handler_;
  int inotify_fd_ = -1;
  // Sockets reported as added and not yet removed, with their inode (a
  // socket replaced in place has a new one). Watcher thread only, and
  // Start() before the thread exists.
  std::map<std::string, ino_t> known_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_PLUGIN_WATCHER_H_
