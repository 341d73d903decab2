// Subprocess: a child process started with fork/exec whose output goes to a
// file, and which is stopped (SIGTERM, then SIGKILL) when the owner says so
// or is destroyed. Used by `dralloc local-cluster` for its components.
#ifndef DRALLOC_COMMON_SUBPROCESS_H_
#define DRALLOC_COMMON_SUBPROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace dralloc {

struct SubprocessOptions {
  // argv[0] is the program path (not searched in PATH).
  std::vector<std::string> argv;
  // "KEY=VALUE" entries added to (or replacing those of) this process's
  // environment.
  std::vector<std::string> extra_env;
  // Standard output and error are appended to this file (created with its
  // directory); empty: inherited.
  std::filesystem::path output_file;
  // Linux: the child gets SIGTERM when this process dies, even by SIGKILL,
  // so a killed parent leaves no orphans behind.
  bool terminate_with_parent = true;
  // False: the child's environment is `extra_env` only, not this process's.
  bool inherit_env = true;
  // True: argv[0] without a '/' is looked up in the PATH of the child's
  // environment (as execvp does).
  bool search_path = false;
  // The child's working directory; empty: this process's.
  std::filesystem::path working_dir;
  // True: the child leads a new process group, and Signal/Stop signal the
  // whole group (a shell's children too).
  bool new_process_group = false;
};

// The start time of process `pid` (clock ticks since boot, field 22 of
// /proc/PID/stat): with the pid it names one process, as pids are reused;
// nullopt when no such process exists.
std::optional<uint64_t> ProcessStartTime(pid_t pid);

class Subprocess {
 public:
  // Starts the child; fails when the output file cannot be opened or the
  // program cannot be executed (the exec error is reported, not a child
  // that exits 127).
  static StatusOr<std::unique_ptr<Subprocess>> Start(
      const SubprocessOptions& options);
  ~Subprocess();  // Stop(2s) if still running
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  bool running();
  // The wait status once the child has exited (see DescribeWaitStatus).
  std::optional<int> exit_status();
  // Sends `signal` if the child is still running.
  void Signal(int signal);
  // Waits up to `timeout` for the child to exit; true when it has.
  bool WaitFor(std::chrono::milliseconds timeout);
  // SIGTERM, then SIGKILL after `grace`; waits for the exit and returns its
  // wait status.
  int Stop(std::chrono::milliseconds grace);

 private:
  Subprocess(pid_t pid, bool group) : pid_(pid), group_(group) {}
  void Reap(bool block);

  pid_t pid_;
  bool group_;
  std::optional<int> status_;
};

// "exited with code 3", "killed by signal 9 (Killed)".
std::string DescribeWaitStatus(int status);

}  // namespace dralloc

#endif  // DRALLOC_COMMON_SUBPROCESS_H_
