#include "node/plugin_watcher.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <vector>

#include "node/node_test_util.h"

namespace dralloc::node {
namespace {

using testing::BindUnixSocket;
using testing::TempDir;
using testing::WaitFor;
using Type = PluginSocketEvent::Type;

class Recorder {
 public:
  void Add(const PluginSocketEvent& event) {
    std::lock_guard lock(mu_);
    events_.push_back(event);
  }
  std::vector<PluginSocketEvent> events() {
    std::lock_guard lock(mu_);
    return events_;
  }
  size_t size() { return events().size(); }

 private:
  std::mutex mu_;
  std::vector<PluginSocketEvent> events_;
};

TEST(PluginWatcher, ReportsExistingSocketsButNotOtherFiles) {
  TempDir dir;
  int existing = BindUnixSocket(dir.Sub("a-reg.sock"), true);
  ASSERT_GE(existing, 0);
  std::ofstream(dir.Sub("not-a-socket")) << "x";
  std::filesystem::create_directory(dir.Sub("subdir"));
  int hidden = BindUnixSocket(dir.Sub(".hidden.sock"), true);

  Recorder recorder;
  PluginWatcher watcher(dir.path(), [&](const auto& e) { recorder.Add(e); });
  ASSERT_TRUE(watcher.Start().ok());
  ASSERT_TRUE(WaitFor([&] { return recorder.size() >= 1; }));
  // Give a wrongly reported file the time to show up.
  std::ofstream(dir.Sub("later-file")) << "x";
  int marker = BindUnixSocket(dir.Sub("marker.sock"), true);
  ASSERT_TRUE(WaitFor([&] { return recorder.size() >= 2; }));
  watcher.Stop();

  std::vector<PluginSocketEvent> want = {
      {Type::kAdded, dir.Sub("a-reg.sock")},
      {Type::kAdded, dir.Sub("marker.sock")}};
  EXPECT_EQ(recorder.events(), want);
  ::close(existing);
  ::close(hidden);
  ::close(marker);
}

TEST(PluginWatcher, SocketCreatedRemovedAndReplaced) {
  TempDir dir;
  Recorder recorder;
  PluginWatcher watcher(dir.path(), [&](const auto& e) { recorder.Add(e); });
  ASSERT_TRUE(watcher.Start().ok());

  const std::string path = dir.Sub("drv-reg.sock");
  int fd = BindUnixSocket(path, true);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(WaitFor([&] { return recorder.size() == 1; }));
  ::close(fd);
  ::unlink(path.c_str());
  ASSERT_TRUE(WaitFor([&] { return recorder.size() == 2; }));

  // Renamed over an existing socket: removal of the old, addition of the new.
  int first = BindUnixSocket(path, true);
  ASSERT_TRUE(WaitFor([&] { return recorder.size() == 3; }));
  int second = BindUnixSocket(dir.Sub(".tmp.sock"), true);
  ASSERT_EQ(::rename(dir.Sub(".tmp.sock").c_str(), path.c_str()), 0);
  ASSERT_TRUE(WaitFor([&] { return recorder.size() == 5; }));
  watcher.Stop();

  std::vector<PluginSocketEvent> want = {{Type::kAdded, path},
                                         {Type::kRemoved, path},
                                         {Type::kAdded, path},
                                         {Type::kRemoved, path},
                                         {Type::kAdded, path}};
  EXPECT_EQ(recorder.events(), want);
  ::close(first);
  ::close(second);
}

TEST(PluginWatcher, StopIsPromptAndIdempotent) {
  TempDir dir;
  PluginWatcher watcher(dir.Sub("created/registry"), [](const auto&) {});
  ASSERT_TRUE(watcher.Start().ok());
  EXPECT_TRUE(std::filesystem::is_directory(dir.Sub("created/registry")));
  auto start = std::chrono::steady_clock::now();
  watcher.Stop();
  watcher.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace dralloc::node
