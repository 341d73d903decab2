// `dralloc local-cluster`: a whole DRA cluster on one machine for trying
// things out and for end-to-end tests — `dralloc serve`, and per node a node
// agent (`dralloc node`) and the example driver (`dralloc driver example`),
// each a child process on loopback and unix sockets under --dir. With
// --classic-gpus, classic DRA (resource.k8s.io/v1alpha2) too: the control-
// plane driver `dralloc driver classic-example` for all nodes, and on each
// node its node part (`dralloc driver example --classic`). Writes
// DIR/kubeconfig, prints `ready` once every component is up, and stops them
// all (nodes, then drivers, then the control plane) on SIGTERM or SIGINT.
#include <fmt/format.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "common/log.h"
#include "common/subprocess.h"

namespace dralloc::cli {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

struct LocalClusterFlags {
  int nodes = 1;
  int gpus = 4;
  int partitions = 0;
  int classic_gpus = 0;
  std::string dir;
  std::string listen = "127.0.0.1:0";
  std::string runtime = "simulated";
  std::string log_level = "info";
  int start_timeout_seconds = 60;
};

// One child process and where its output goes.
struct Component {
  std::string name;  // "control-plane", "node-1 agent", ...
  fs::path log;
  std::unique_ptr<Subprocess> process;
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Starts `args` of this binary with output to DIR/logs/<log_name>.log.
StatusOr<Component> StartComponent(const std::string& name,
                                   const std::string& log_name,
                                   const fs::path& dir,
                                   std::vector<std::string> args) {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) {
    return Status(StatusCode::kInternal,
                  "cannot find this program: " + error.message());
  }
  args.insert(args.begin(), self.string());
  Component component{name, dir / "logs" / (log_name + ".log"), nullptr};
  std::error_code ignored;
  fs::remove(component.log, ignored);
  auto process =
      Subprocess::Start({.argv = args, .output_file = component.log});
  if (!process.ok()) return process.status().WithPrefix(name);
  component.process = std::move(*process);
  return component;
}

// Waits until the component's output matches `pattern`; returns the first
// capture group (or the whole match). Fails when it exits or times out.
StatusOr<std::string> AwaitOutput(Component& component,
                                  const std::regex& pattern, seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const std::string output = ReadFile(component.log);
    std::smatch match;
    if (std::regex_search(output, match, pattern)) {
      return match.size() > 1 ? match[1].str() : match[0].str();
    }
    if (auto status = component.process->exit_status()) {
      return Status(
          StatusCode::kUnavailable,
          fmt::format("{} {} before it was ready (log: {})", component.name,
                      DescribeWaitStatus(*status), component.log.string()));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status(
          StatusCode::kDeadlineExceeded,
          fmt::format("{} not ready after {}s (log: {})", component.name,
                      timeout.count(), component.log.string()));
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
}

Status WriteKubeconfig(const fs::path& file, const std::string& server) {
  const std::string text = fmt::format(
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- name: dralloc-local\n"
      "  cluster:\n"
      "    server: {}\n"
      "contexts:\n"
      "- name: dralloc-local\n"
      "  context:\n"
      "    cluster: dralloc-local\n"
      "    namespace: default\n"
      "    user: dralloc-local\n"
      "current-context: dralloc-local\n"
      "users:\n"
      "- name: dralloc-local\n"
      "  user: {{}}\n",
      server);
  const fs::path temp = file.string() + ".tmp";
  {
    std::ofstream out(temp);
    out << text;
    if (!out.flush()) {
      return Status(StatusCode::kUnavailable, "cannot write " + temp.string());
    }
  }
  std::error_code error;
  fs::rename(temp, file, error);
  if (error) {
    return Status(
        StatusCode::kUnavailable,
        fmt::format("cannot write {}: {}", file.string(), error.message()));
  }
  return Status();
}

// The components of one cluster, stopped in reverse start order by
// StopAll: node agents before drivers, drivers before the control plane.
class LocalCluster {
 public:
  explicit LocalCluster(const LocalClusterFlags& flags) : flags_(flags) {}
  ~LocalCluster() { StopAll(); }

  Status Start();
  // Logs components that exited on their own; false once the control plane
  // is gone (nothing works without it).
  bool CheckHealth();
  void StopAll();
  const std::string& server() const { return server_; }

 private:
  Status StartControlPlane();
  Status StartClassicDriver();
  Status StartNode(int index);
  Status Add(StatusOr<Component> component, const std::regex& ready,
             std::string* captured = nullptr);

  const LocalClusterFlags& flags_;
  std::vector<Component> components_;
  std::vector<bool> reported_exit_;
  std::string server_;
};

Status LocalCluster::Add(StatusOr<Component> component, const std::regex& ready,
                         std::string* captured) {
  if (!component.ok()) return component.status();
  components_.push_back(std::move(*component));
  reported_exit_.push_back(false);
  auto output = AwaitOutput(components_.back(), ready,
                            seconds(flags_.start_timeout_seconds));
  if (!output.ok()) return output.status();
  if (captured != nullptr) *captured = *output;
  log::Info("local-cluster", "{} ready (log: {})", components_.back().name,
            components_.back().log.string());
  return Status();
}

Status LocalCluster::StartControlPlane() {
  const fs::path dir(flags_.dir);
  return Add(StartComponent("control plane", "serve", dir,
                            {"serve", "--listen", flags_.listen, "--storage",
                             "sqlite:" + (dir / "store").string(),
                             "--log-level", flags_.log_level}),
             std::regex(R"(dralloc serve listening on (http://\S+))"),
             &server_);
}

Status LocalCluster::StartClassicDriver() {
  std::string nodes;
  for (int i = 1; i <= flags_.nodes; ++i) {
    nodes += fmt::format("{}node-{}", i > 1 ? "," : "", i);
  }
  return Add(StartComponent(
                 "classic driver", "classic-driver", fs::path(flags_.dir),
                 {"driver", "classic-example", "--server", server_, "--nodes",
                  nodes, "--gpus-per-node", std::to_string(flags_.classic_gpus),
                  "--log-level", flags_.log_level}),
             std::regex(R"((^|\n)ready(\n|$))"));
}

Status LocalCluster::StartNode(int index) {
  const fs::path dir(flags_.dir);
  const std::string node = fmt::format("node-{}", index);
  const std::string root = (dir / "nodes" / node).string();
  const std::regex ready(R"((^|\n)ready(\n|$))");
  std::vector<std::string> driver = {"driver",      "example",
                                     "--node-name", node,
                                     "--server",    server_,
                                     "--root",      root,
                                     "--gpus",      std::to_string(flags_.gpus),
                                     "--log-level", flags_.log_level};
  if (flags_.partitions > 0) {
    driver.insert(driver.end(),
                  {"--partitions", std::to_string(flags_.partitions)});
  }
  if (Status s =
          Add(StartComponent(node + " driver", node + "-driver", dir, driver),
              ready);
      !s.ok()) {
    return s;
  }
  if (flags_.classic_gpus > 0) {
    // Its own state directory: the prepared-claims store is per driver.
    if (Status s =
            Add(StartComponent(node + " classic driver",
                               node + "-classic-driver", dir,
                               {"driver", "example", "--classic", "--node-name",
                                node, "--server", server_, "--root", root,
                                "--state-dir", root + "/classic-driver-state",
                                "--gpus", std::to_string(flags_.classic_gpus),
                                "--log-level", flags_.log_level}),
                ready);
        !s.ok()) {
      return s;
    }
  }
  return Add(StartComponent(node + " agent", node + "-agent", dir,
                            {"node", "--node-name", node, "--server", server_,
                             "--root", root, "--runtime", flags_.runtime,
                             "--log-level", flags_.log_level}),
             ready);
}

Status LocalCluster::Start() {
  std::error_code error;
  fs::create_directories(flags_.dir, error);
  if (error) {
    return Status(StatusCode::kInvalidArgument,
                  fmt::format("--dir {}: {}", flags_.dir, error.message()));
  }
  if (Status s = StartControlPlane(); !s.ok()) return s;
  if (Status s = WriteKubeconfig(fs::path(flags_.dir) / "kubeconfig", server_);
      !s.ok()) {
    return s;
  }
  if (flags_.classic_gpus > 0) {
    if (Status s = StartClassicDriver(); !s.ok()) return s;
  }
  for (int i = 1; i <= flags_.nodes; ++i) {
    if (Status s = StartNode(i); !s.ok()) return s;
  }
  return Status();
}

bool LocalCluster::CheckHealth() {
  for (size_t i = 0; i < components_.size(); ++i) {
    if (reported_exit_[i]) continue;
    if (auto status = components_[i].process->exit_status()) {
      reported_exit_[i] = true;
      log::Error("local-cluster", "{} {} (log: {})", components_[i].name,
                 DescribeWaitStatus(*status), components_[i].log.string());
      if (i == 0) return false;
    }
  }
  return true;
}

void LocalCluster::StopAll() {
  for (auto it = components_.rbegin(); it != components_.rend(); ++it) {
    if (it->process->running()) {
      log::Info("local-cluster", "stopping {}", it->name);
      it->process->Stop(seconds(10));
    }
  }
  components_.clear();
  reported_exit_.clear();
}

// Waits for SIGTERM or SIGINT (blocked by the caller), checking the
// components every 200 ms. Returns the exit code.
int Supervise(LocalCluster& cluster, const sigset_t& signals) {
  const timespec tick{0, 200'000'000};
  while (true) {
    const int received = sigtimedwait(&signals, nullptr, &tick);
    if (received > 0) {
      log::Info("local-cluster", "signal {}: stopping", received);
      return kExitOk;
    }
    if (!cluster.CheckHealth()) {
      log::Error("local-cluster", "the control plane is gone; stopping");
      return kExitInvalid;
    }
  }
}

int RunLocalCluster(const LocalClusterFlags& flags) {
  log::Level level;
  if (log::ParseLevel(flags.log_level, level)) log::SetLevel(level);
  if (flags.runtime != "simulated" && flags.runtime != "process") {
    std::fprintf(stderr,
                 "local-cluster: --runtime: Unsupported value: \"%s\": "
                 "supported values: \"simulated\", \"process\"\n",
                 flags.runtime.c_str());
    return kExitBadInput;
  }
  // Blocked before any child starts (children unblock them again), so a
  // signal during start-up is taken by Supervise or ends the wait below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  LocalCluster cluster(flags);
  if (Status s = cluster.Start(); !s.ok()) {
    std::fprintf(stderr, "local-cluster: %s\n", s.message().c_str());
    return kExitInvalid;
  }
  const fs::path kubeconfig = fs::path(flags.dir) / "kubeconfig";
  std::fprintf(stderr,
               "local-cluster: %d node(s) with %d GPU(s) each at %s\n"
               "  export KUBECONFIG=%s\n",
               flags.nodes, flags.gpus, cluster.server().c_str(),
               kubeconfig.c_str());
  std::printf("ready\n");
  std::fflush(stdout);
  const int code = Supervise(cluster, signals);
  cluster.StopAll();
  return code;
}

}  // namespace

void RegisterLocalClusterCommand(CLI::App& app, int& exit_code) {
  auto [command, flags] = AddCommand<LocalClusterFlags>(
      app, "local-cluster",
      "a control plane plus N node agents and example drivers as child "
      "processes under --dir (writes DIR/kubeconfig)",
      exit_code, RunLocalCluster);
  command.add_option("--dir", flags.dir, "state, sockets, logs, kubeconfig")
      ->required();
  command.add_option("--nodes", flags.nodes, "number of nodes")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  command.add_option("--gpus", flags.gpus, "example GPUs per node")
      ->check(CLI::Range(0, 128))
      ->capture_default_str();
  command
      .add_option("--classic-gpus", flags.classic_gpus,
                  "classic DRA (resource.k8s.io/v1alpha2) GPUs per node, "
                  "allocated by `dralloc driver classic-example` (driver "
                  "gpu.classic.example.com); 0: no classic driver")
      ->check(CLI::Range(0, 128))
      ->capture_default_str();
  command
      .add_option("--partitions", flags.partitions,
                  "partitions per GPU (shared counters); 0: whole GPUs")
      ->check(CLI::Range(0, 16))
      ->capture_default_str();
  command.add_option("--listen", flags.listen, "API server address")
      ->capture_default_str();
  command
      .add_option("--runtime", flags.runtime,
                  "node agents' runtime: simulated or process (runs pod "
                  "commands as local processes, no isolation)")
      ->capture_default_str();
  command.add_option("--log-level", flags.log_level, "for every component")
      ->capture_default_str();
  command
      .add_option("--start-timeout", flags.start_timeout_seconds,
                  "seconds each component may take to become ready")
      ->capture_default_str();
}

}  // namespace dralloc::cli
