// `dralloc node --node-name NAME`: the node agent (the kubelet's DRA side)
// against an API server given by --kubeconfig or --server. Prints one line
// `ready` once the Node is registered and the plugin watcher runs; stops on
// SIGTERM or SIGINT.
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/api_client_flags.h"
#include "cli/commands.h"
#include "cli/duration_flag.h"
#include "cli/server_flags.h"
#include "common/log.h"
#include "node/node_agent.h"

namespace dralloc::cli {
namespace {

struct NodeFlags {
  std::string node_name;
  ApiClientFlags api;
  std::string root;
  std::string plugins_registry;
  std::string plugins_dir;
  std::vector<std::string> cdi_dirs;
  std::string state_dir;
  std::string pod_resources_socket;
  std::string runtime = "simulated";
  int kubelet_port = 0;
  std::string node_ip = "127.0.0.1";
  std::string prepare_timeout = "45s";
  std::string wiping_delay = "30s";
  std::string node_status_update_frequency = "10s";
  std::string backoff_max = "60s";
  int pod_workers = 16;
  int64_t max_pods = 110;
  std::string log_level = "info";
};

// Fills directories left empty: under --root when given, else the
// kubelet's defaults.
void ApplyDirectoryDefaults(NodeFlags& flags) {
  const bool rooted = !flags.root.empty();
  const std::string base = rooted ? flags.root : "/var/lib/kubelet";
  if (flags.plugins_registry.empty()) {
    flags.plugins_registry = base + "/plugins_registry";
  }
  if (flags.plugins_dir.empty()) flags.plugins_dir = base + "/plugins";
  if (flags.state_dir.empty()) {
    flags.state_dir = rooted ? base + "/state" : base;
  }
  if (flags.pod_resources_socket.empty()) {
    flags.pod_resources_socket = base + "/pod-resources/kubelet.sock";
  }
  if (flags.cdi_dirs.empty()) {
    flags.cdi_dirs = rooted
                         ? std::vector<std::string>{base + "/cdi"}
                         : std::vector<std::string>{"/etc/cdi", "/var/run/cdi"};
  }
  // Socket addresses (unix://PATH) need absolute paths; all are made
  // absolute so that relative flags mean "from where it was started".
  auto absolute = [](std::string& path) {
    std::error_code ec;
    std::filesystem::path made = std::filesystem::absolute(path, ec);
    if (!ec) path = made.lexically_normal().string();
  };
  for (std::string* path :
       {&flags.root, &flags.plugins_registry, &flags.plugins_dir,
        &flags.state_dir, &flags.pod_resources_socket}) {
    if (!path->empty()) absolute(*path);
  }
  for (std::string& dir : flags.cdi_dirs) absolute(dir);
}

// The agent's options from the flags; an error message on bad input.
StatusOr<node::NodeAgentOptions> AgentOptions(NodeFlags flags) {
  if (flags.runtime != "simulated" && flags.runtime != "process") {
    return InvalidArgumentError(
        "--runtime: Unsupported value: \"" + flags.runtime +
        "\": supported values: \"process\", \"simulated\"");
  }
  if (flags.kubelet_port < 0 || flags.kubelet_port > 65535) {
    return InvalidArgumentError(
        "--kubelet-port: Invalid value: " + std::to_string(flags.kubelet_port) +
        ": must be between 0 and 65535, inclusive");
  }
  ApplyDirectoryDefaults(flags);
  node::NodeAgentOptions options;
  options.node_name = flags.node_name;
  options.host_ip = flags.node_ip;
  options.plugins_registry = flags.plugins_registry;
  options.plugins_dir = flags.plugins_dir;
  options.cdi_dirs = flags.cdi_dirs;
  options.state_dir = flags.state_dir;
  options.pod_resources_socket = flags.pod_resources_socket;
  options.runtime = flags.runtime;
  options.pods_dir = flags.root.empty() ? flags.state_dir : flags.root;
  options.kubelet_port = static_cast<uint16_t>(flags.kubelet_port);
  options.pod_workers = flags.pod_workers;
  options.max_pods = flags.max_pods;
  const std::pair<const char*,
                  std::pair<std::string*, std::chrono::milliseconds*>>
      durations[] = {
          {"--prepare-timeout",
           {&flags.prepare_timeout, &options.prepare_timeout}},
          {"--wiping-delay", {&flags.wiping_delay, &options.wiping_delay}},
          {"--node-status-update-frequency",
           {&flags.node_status_update_frequency,
            &options.node_status_update_frequency}},
          {"--backoff-max", {&flags.backoff_max, &options.backoff_max}}};
  for (const auto& [name, target] : durations) {
    auto parsed = ParseGoDuration(*target.first, name);
    if (!parsed.ok()) return parsed.status();
    *target.second = *parsed;
  }
  return options;
}

int RunNode(const NodeFlags& flags) {
  if (!ApplyLogLevel(flags.log_level)) return kExitBadInput;
  auto options = AgentOptions(flags);
  if (!options.ok()) {
    fmt::print(stderr, "{}\n", options.status().message());
    return kExitBadInput;
  }
  auto api =
      ConnectApi(flags.api, "dralloc-node/0.1 (" + flags.node_name + ")");
  if (!api.ok()) {
    fmt::print(stderr, "{}\n", api.status().message());
    return kExitBadInput;
  }
  const sigset_t signals = BlockTerminationSignals();
  node::NodeAgent agent(**api, *options);
  Status started = agent.Start();
  if (!started.ok()) {
    fmt::print(stderr, "dralloc node {}: {}\n", flags.node_name,
               started.message());
    agent.Stop();
    return kExitInvalid;
  }
  log::Info("node",
            "node {} ready: plugins registry {}, state {}, runtime {}, "
            "container logs on {}:{}",
            flags.node_name, options->plugins_registry, options->state_dir,
            options->runtime, options->host_ip, agent.kubelet_port());
  fmt::print("ready\n");
  std::fflush(stdout);
  const int received = WaitForTermination(signals);
  log::Info("node", "signal {}: shutting down", received);
  agent.Stop();
  return kExitOk;
}

}  // namespace

void RegisterNodeCommand(CLI::App& app, int& exit_code) {
  auto [command, flags] = AddCommand<NodeFlags>(
      app, "node",
      "The node agent: registers a Node, DRA drivers and prepares the "
      "resource claims of the node's pods (the kubelet's DRA side)",
      exit_code, RunNode);
  command.add_option("--node-name", flags.node_name, "this node's name")
      ->required();
  AddApiClientFlags(command, flags.api);
  command.add_option("--root", flags.root,
                     "base of the directories below (DIR/plugins_registry, "
                     "DIR/plugins, DIR/cdi, DIR/state, "
                     "DIR/pod-resources/kubelet.sock)");
  command.add_option("--plugins-registry", flags.plugins_registry,
                     "where drivers put their registration sockets");
  command.add_option("--plugins-dir", flags.plugins_dir,
                     "where drivers put their DRA service sockets");
  command.add_option("--cdi-dir", flags.cdi_dirs,
                     "CDI spec directory (repeatable; later ones win)");
  command.add_option("--state-dir", flags.state_dir,
                     "where the prepared-claim checkpoint is kept");
  command.add_option("--pod-resources-socket", flags.pod_resources_socket,
                     "PodResources v1 API socket (List, Get)");
  command
      .add_option("--runtime", flags.runtime,
                  "simulated (containers are reported running) or process "
                  "(each container's command runs as a local process, "
                  "WITHOUT isolation: local development only)")
      ->capture_default_str();
  command
      .add_option("--kubelet-port", flags.kubelet_port,
                  "port of the container log endpoint on --node-ip (0: a "
                  "free port; reported in the Node's daemonEndpoints)")
      ->capture_default_str();
  command
      .add_option("--node-ip", flags.node_ip,
                  "the node's address (status.addresses, pod hostIP)")
      ->capture_default_str();
  command
      .add_option("--prepare-timeout", flags.prepare_timeout,
                  "deadline of each NodePrepare/NodeUnprepare call")
      ->capture_default_str();
  command
      .add_option("--wiping-delay", flags.wiping_delay,
                  "how long an unregistered driver's ResourceSlices stay")
      ->capture_default_str();
  command
      .add_option("--node-status-update-frequency",
                  flags.node_status_update_frequency,
                  "heartbeat period of the Node's conditions")
      ->capture_default_str();
  command
      .add_option("--backoff-max", flags.backoff_max,
                  "longest wait between retries of a failing pod")
      ->capture_default_str();
  command
      .add_option("--pod-workers", flags.pod_workers,
                  "pods prepared and started at once (the kubelet's per-pod "
                  "workers; each waits on driver calls and status writes)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  command
      .add_option("--max-pods", flags.max_pods,
                  "the Node's pods capacity (as the kubelet's --max-pods)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}))
      ->capture_default_str();
  command.add_option("--log-level", flags.log_level,
                     "debug, info, warn or error");
}

}  // namespace dralloc::cli
