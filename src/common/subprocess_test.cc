#include "common/subprocess.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

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

TEST(Subprocess, OwnEnvironmentPathLookupAndWorkingDirectory) {
  const std::filesystem::path dir = TempDir() / "work";
  std::filesystem::create_directories(dir);
  const std::filesystem::path out = TempDir() / "own-env.log";
  std::filesystem::remove(out);
  ::setenv("DRALLOC_SUBPROCESS_LEAK", "leaked", 1);
  auto child = Subprocess::Start(
      {.argv = {"sh", "-c", "echo ${DRALLOC_SUBPROCESS_LEAK-unset} $A; pwd"},
       .extra_env = {"PATH=/usr/bin:/bin", "A=a"},
       .output_file = out,
       .inherit_env = false,
       .search_path = true,
       .working_dir = dir});
  ::unsetenv("DRALLOC_SUBPROCESS_LEAK");
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_TRUE((*child)->WaitFor(std::chrono::seconds(10)));
  EXPECT_EQ(ReadFile(out),
            "unset a\n" + std::filesystem::canonical(dir).string() + "\n");
}

TEST(Subprocess, ProcessGroupIsSignalledAsAWhole) {
  const std::filesystem::path out = TempDir() / "group.log";
  std::filesystem::remove(out);
  // SIGTERM to the shell alone would leave its `sleep` running.
  auto child =
      Subprocess::Start({.argv = {"/bin/sh", "-c", "sleep 30 & echo $!; wait"},
                         .output_file = out,
                         .new_process_group = true});
  ASSERT_TRUE(child.ok()) << child.status();
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (ReadFile(out).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const pid_t sleeper = std::atoi(ReadFile(out).c_str());
  ASSERT_GT(sleeper, 0);
  (*child)->Stop(std::chrono::seconds(10));
  // The orphaned sleeper is reaped by init soon after it dies.
  while (::kill(sleeper, 0) == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_NE(::kill(sleeper, 0), 0) << "sleep " << sleeper << " survived";
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
