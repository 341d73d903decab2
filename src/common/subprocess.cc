#include "common/subprocess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

extern char** environ;

namespace dralloc {
namespace {

// The child's environment: ours with `extra` applied.
std::vector<std::string> ChildEnvironment(const std::vector<std::string>& extra,
                                          bool inherit) {
  std::map<std::string, std::string> merged;
  auto add = [&merged](std::string_view entry) {
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos) return;
    merged[std::string(entry.substr(0, eq))] = std::string(entry);
  };
  if (inherit) {
    for (char** entry = environ; *entry != nullptr; ++entry) add(*entry);
  }
  for (const std::string& entry : extra) add(entry);
  std::vector<std::string> out;
  for (auto& [key, entry] : merged) out.push_back(std::move(entry));
  return out;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// argv[0] looked up in the PATH entry of `env` (or the default PATH) when it
// has no '/': the first executable candidate, else `program` unchanged.
std::string ResolveProgram(const std::string& program,
                           const std::vector<std::string>& env) {
  if (program.find('/') != std::string::npos) return program;
  std::string path =
      "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  for (const std::string& entry : env) {
    if (entry.starts_with("PATH=")) path = entry.substr(5);
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return program;
}

struct ChildSetup {
  int out_fd = -1;
  int error_fd = -1;
  bool terminate_with_parent = false;
  bool new_process_group = false;
  const char* working_dir = nullptr;  // null: unchanged
  pid_t parent = 0;
};

// Runs in the child after fork: only async-signal-safe calls. Writes errno
// to `error_fd` when chdir or exec fails.
[[noreturn]] void ExecChild(char* const* argv, char* const* envp,
                            const ChildSetup& setup) {
  const int error_fd = setup.error_fd;
  const int out_fd = setup.out_fd;
  if (setup.terminate_with_parent) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != setup.parent) _exit(127);  // the parent died already
  }
  if (setup.new_process_group) setpgid(0, 0);
  if (setup.working_dir != nullptr && chdir(setup.working_dir) != 0) {
    const int error = errno;
    (void)!write(error_fd, &error, sizeof error);
    _exit(127);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);
  if (out_fd >= 0) {
    dup2(out_fd, STDOUT_FILENO);
    dup2(out_fd, STDERR_FILENO);
  }
  execve(argv[0], argv, envp);
  const int error = errno;
  (void)!write(error_fd, &error, sizeof error);
  _exit(127);
}

}  // namespace

StatusOr<std::unique_ptr<Subprocess>> Subprocess::Start(
    const SubprocessOptions& options) {
  if (options.argv.empty()) {
    return Status(StatusCode::kInvalidArgument, "subprocess: empty argv");
  }
  int out_fd = -1;
  if (!options.output_file.empty()) {
    std::error_code ignored;
    std::filesystem::create_directories(options.output_file.parent_path(),
                                        ignored);
    out_fd = open(options.output_file.c_str(),
                  O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out_fd < 0) {
      return Status(StatusCode::kUnavailable,
                    fmt::format("{}: {}", options.output_file.string(),
                                std::strerror(errno)));
    }
  }
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) {
    if (out_fd >= 0) close(out_fd);
    return Status(StatusCode::kUnavailable,
                  fmt::format("pipe: {}", std::strerror(errno)));
  }
  std::vector<std::string> argv = options.argv;
  std::vector<std::string> env =
      ChildEnvironment(options.extra_env, options.inherit_env);
  if (options.search_path) argv[0] = ResolveProgram(argv[0], env);
  std::vector<char*> argv_ptrs = Pointers(argv);
  std::vector<char*> env_ptrs = Pointers(env);
  const std::string working_dir = options.working_dir.string();
  ChildSetup setup{out_fd,
                   error_pipe[1],
                   options.terminate_with_parent,
                   options.new_process_group,
                   working_dir.empty() ? nullptr : working_dir.c_str(),
                   getpid()};
  const pid_t pid = fork();
  if (pid == 0) {
    ExecChild(argv_ptrs.data(), env_ptrs.data(), setup);
  }
  const int fork_errno = errno;
  close(error_pipe[1]);
  if (out_fd >= 0) close(out_fd);
  if (pid < 0) {
    close(error_pipe[0]);
    return Status(StatusCode::kUnavailable,
                  fmt::format("fork: {}", std::strerror(fork_errno)));
  }
  int exec_errno = 0;
  const ssize_t n = read(error_pipe[0], &exec_errno, sizeof exec_errno);
  close(error_pipe[0]);
  // Also set here, so that the group exists before Start returns.
  if (options.new_process_group) setpgid(pid, pid);
  auto child = std::unique_ptr<Subprocess>(
      new Subprocess(pid, options.new_process_group));
  if (n == sizeof exec_errno) {
    child->Reap(/*block=*/true);
    return Status(StatusCode::kNotFound,
                  fmt::format("cannot execute {}: {}", options.argv[0],
                              std::strerror(exec_errno)));
  }
  return child;
}

Subprocess::~Subprocess() {
  if (running()) Stop(std::chrono::seconds(2));
}

void Subprocess::Reap(bool block) {
  if (status_) return;
  int status = 0;
  pid_t done;
  do {
    done = waitpid(pid_, &status, block ? 0 : WNOHANG);
  } while (done < 0 && errno == EINTR);
  if (done == pid_) status_ = status;
}

bool Subprocess::running() {
  Reap(/*block=*/false);
  return !status_;
}

std::optional<int> Subprocess::exit_status() {
  Reap(/*block=*/false);
  return status_;
}

void Subprocess::Signal(int signal) {
  if (running()) kill(group_ ? -pid_ : pid_, signal);
}

bool Subprocess::WaitFor(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

int Subprocess::Stop(std::chrono::milliseconds grace) {
  Signal(SIGTERM);
  if (!WaitFor(grace)) {
    Signal(SIGKILL);
    Reap(/*block=*/true);
  }
  return *status_;
}

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) {
    return fmt::format("exited with code {}", WEXITSTATUS(status));
  }
  if (WIFSIGNALED(status)) {
    return fmt::format("killed by signal {} ({})", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  }
  return fmt::format("wait status {}", status);
}

std::optional<uint64_t> ProcessStartTime(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // The command name (field 2) may hold spaces and ')': count after the
  // last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 > stat.size()) {
    return std::nullopt;
  }
  std::istringstream fields(stat.substr(close + 2));
  std::string skipped;
  for (int field = 3; field < 22; ++field) {
    if (!(fields >> skipped)) return std::nullopt;
  }
  uint64_t start = 0;
  if (!(fields >> start)) return std::nullopt;
  return start;
}

}  // namespace dralloc
