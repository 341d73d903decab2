#include "common/subprocess.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace dralloc {
namespace {

std::filesystem::path TempDir() {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("dralloc-subprocess-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Subprocess, OutputGoesToTheFileAndEnvIsAdded) {
  const std::filesystem::path out = TempDir() / "logs" / "echo.log";
  std::filesystem::remove(out);
  auto child = Subprocess::Start(
      {.argv = {"/bin/sh", "-c", "echo hello $GREETING; echo oops >&2; exit 3"},
       .extra_env = {"GREETING=world"},
       .output_file = out});
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_TRUE((*child)->WaitFor(std::chrono::seconds(10)));
  const std::optional<int> status = (*child)->exit_status();
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(DescribeWaitStatus(*status), "exited with code 3");
  EXPECT_EQ(ReadFile(out), "hello world\noops\n");
}

TEST(Subprocess, MissingProgramIsAnErrorNotAChild) {
  auto child = Subprocess::Start({.argv = {"/nonexistent/program"}});
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status().message(),
            "cannot execute /nonexistent/program: No such file or directory");
}

TEST(Subprocess, StopEscalatesToKill) {
  // The child ignores SIGTERM, so Stop has to kill it.
  auto child = Subprocess::Start(
      {.argv = {"/bin/sh", "-c", "trap '' TERM; echo up; sleep 30"},
       .output_file = TempDir() / "stubborn.log"});
  ASSERT_TRUE(child.ok()) << child.status();
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (ReadFile(TempDir() / "stubborn.log").find("up") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const int status = (*child)->Stop(std::chrono::milliseconds(200));
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_FALSE((*child)->running());
}

TEST(Subprocess, StopEndsAWellBehavedChildWithTerm) {
  auto child = Subprocess::Start({.argv = {"/bin/sleep", "30"}});
  ASSERT_TRUE(child.ok()) << child.status();
  const int status = (*child)->Stop(std::chrono::seconds(5));
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
}

}  // namespace
}  // namespace dralloc
