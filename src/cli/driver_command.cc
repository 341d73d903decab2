// `dralloc driver example`: the example DRA driver for one node (what
// kubernetes-sigs/dra-example-driver's kubelet plugin does). Publishes the
// node's simulated GPUs as ResourceSlices (and keeps them published), serves
// the kubelet plugin protocols on unix sockets and prepares claims into CDI
// spec files. Prints `ready` once slices are published and sockets listen;
// runs until SIGINT/SIGTERM, then removes its sockets. With --classic it is
// the node part of `dralloc driver classic-example` (classic DRA,
// resource.k8s.io/v1alpha2): no slices; claims are prepared from the
// resource handles the control-plane driver wrote.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/api_client_flags.h"
#include "cli/commands.h"
#include "cli/server_flags.h"
#include "common/log.h"
#include "exampledriver/device_health_list.h"
#include "exampledriver/example_driver.h"
#include "exampledriver/gpu_inventory.h"
#include "exampledriver/slice_publisher.h"
#include "kubeletplugin/plugin_server.h"

namespace dralloc::cli {
namespace {

namespace fs = std::filesystem;
constexpr char kComponent[] = "driver";

struct DriverFlags {
  std::string node_name;
  ApiClientFlags api;
  std::string driver_name;  // ResolveDriverName
  bool classic = false;
  int gpus = 8;
  int partitions = 0;
  std::string root;
  std::string plugins_dir;
  std::string registry_dir;
  std::string cdi_dir;
  std::string state_dir;
  bool fail_prepare = false;
  std::string fail_prepare_claim;
  int prepare_delay_ms = 0;
  int unprepare_delay_ms = 0;
  std::string state_sync = "always";
  std::vector<std::string> unhealthy;
  int resync_interval_ms = 3000;
  int startup_timeout_s = 30;
  std::string log_level = "info";
};

// Fills the four directories from --root (where not given) or the
// kubelet's defaults.
void ResolveDirectories(DriverFlags& flags) {
  const bool rooted = !flags.root.empty();
  const fs::path root = flags.root;
  auto fill = [&](std::string& dir, const char* under_root,
                  const char* fallback) {
    if (dir.empty()) dir = rooted ? (root / under_root).string() : fallback;
  };
  fill(flags.plugins_dir, "plugins", "/var/lib/kubelet/plugins");
  fill(flags.registry_dir, "plugins_registry",
       "/var/lib/kubelet/plugins_registry");
  fill(flags.cdi_dir, "cdi", "/var/run/cdi");
  fill(flags.state_dir, "driver-state", "/var/lib/dralloc-example-driver");
}

// --driver-name, else the example drivers' defaults: gpu.example.com, or
// gpu.classic.example.com (as `dralloc driver classic-example`) with
// --classic.
void ResolveDriverName(DriverFlags& flags) {
  if (!flags.driver_name.empty()) return;
  flags.driver_name =
      flags.classic ? "gpu.classic.example.com" : "gpu.example.com";
}

// Publishes the slices, retrying with backoff while the API server is not
// reachable yet (a node's driver may start before it), up to `timeout`.
Status PublishWithRetry(exampledriver::SlicePublisher& publisher,
                        std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto backoff = std::chrono::milliseconds(100);
  while (true) {
    auto outcome = publisher.Sync();
    if (outcome.ok()) return OkStatus();
    if (outcome.status().code() != StatusCode::kUnavailable ||
        std::chrono::steady_clock::now() + backoff > deadline) {
      return outcome.status().WithPrefix("publishing ResourceSlices");
    }
    log::Warn(kComponent, "publishing ResourceSlices: {} (retrying)",
              outcome.status().message());
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
  }
}

// The parts that run until a termination signal, in start order.
struct RunningDriver {
  std::unique_ptr<client::ApiClient> api;
  std::unique_ptr<exampledriver::ExampleDriver> driver;
  std::unique_ptr<exampledriver::SlicePublisher> publisher;
  std::unique_ptr<kubeletplugin::PluginServer> server;
};

Status StartDriver(const DriverFlags& flags,
                   const exampledriver::GpuInventory& inventory,
                   RunningDriver& running) {
  kubeletplugin::PluginServerOptions server_options;
  server_options.driver_name = flags.driver_name;
  server_options.plugins_dir = flags.plugins_dir;
  server_options.registry_dir = flags.registry_dir;
  server_options.serve_health = true;
  // The driver is thread-safe and keeps calls on one claim apart itself:
  // the kubelet's pod workers prepare different claims in parallel.
  server_options.serialize_calls = false;
  // Bad socket paths fail before anything is published.
  RETURN_IF_ERROR(kubeletplugin::ResolveSocketPaths(server_options).status());
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  ASSIGN_OR_RETURN(auto health, exampledriver::DeviceHealthList(
                                    inventory, flags.unhealthy, now));
  ASSIGN_OR_RETURN(running.api,
                   ConnectApi(flags.api, "dralloc-example-driver/0.1"));
  exampledriver::ExampleDriverOptions options;
  options.driver_name = flags.driver_name;
  options.node_name = flags.node_name;
  options.cdi_dir = flags.cdi_dir;
  options.state_dir = flags.state_dir;
  options.classic = flags.classic;
  options.fail_prepare = flags.fail_prepare;
  options.fail_prepare_claim = flags.fail_prepare_claim;
  options.prepare_delay = std::chrono::milliseconds(flags.prepare_delay_ms);
  options.unprepare_delay = std::chrono::milliseconds(flags.unprepare_delay_ms);
  options.state_sync = flags.state_sync == "never"
                           ? exampledriver::SyncMode::kNever
                           : exampledriver::SyncMode::kAlways;
  ASSIGN_OR_RETURN(running.driver, exampledriver::ExampleDriver::Create(
                                       options, running.api.get()));
  // A classic driver's GPUs are allocated by its control-plane part: slices
  // would let the scheduler hand them out a second time.
  if (!flags.classic) {
    running.publisher = std::make_unique<exampledriver::SlicePublisher>(
        running.api.get(), inventory.SliceSpecs());
    RETURN_IF_ERROR(PublishWithRetry(
        *running.publisher, std::chrono::seconds(flags.startup_timeout_s)));
  }
  ASSIGN_OR_RETURN(running.server, kubeletplugin::PluginServer::Start(
                                       server_options, running.driver.get()));
  running.server->SetDeviceHealth(std::move(health));
  if (running.publisher) {
    running.publisher->Start(
        std::chrono::milliseconds(flags.resync_interval_ms));
  }
  return OkStatus();
}

int RunExampleDriver(DriverFlags flags) {
  if (!ApplyLogLevel(flags.log_level)) return kExitBadInput;
  if (flags.classic && flags.partitions > 0) {
    fmt::print(stderr,
               "dralloc driver example: --partitions: Invalid value: {}: "
               "a classic driver (--classic) hands out whole GPUs\n",
               flags.partitions);
    return kExitBadInput;
  }
  ResolveDirectories(flags);
  ResolveDriverName(flags);
  auto inventory = exampledriver::GpuInventory::Create(
      {flags.node_name, flags.driver_name, flags.gpus, flags.partitions});
  if (!inventory.ok()) {
    fmt::print(stderr, "{}\n", inventory.status().message());
    return kExitBadInput;
  }
  // Before any thread starts, so that all of them inherit the mask.
  const sigset_t signals = BlockTerminationSignals();
  RunningDriver running;
  if (Status s = StartDriver(flags, *inventory, running); !s.ok()) {
    fmt::print(stderr, "dralloc driver example: {}\n", s.message());
    return s.code() == StatusCode::kInvalidArgument ? kExitBadInput
                                                    : kExitInvalid;
  }
  log::Info(kComponent, "driver {} on node {}: {} devices{}, sockets {} and {}",
            flags.driver_name, flags.node_name, inventory->DeviceNames().size(),
            flags.classic ? " (classic: allocated by the control-plane "
                            "driver, no ResourceSlices)"
                          : "",
            running.server->dra_socket_path().string(),
            running.server->registration_socket_path().string());
  fmt::print("ready\n");
  std::fflush(stdout);
  const int received = WaitForTermination(signals);
  log::Info(kComponent, "signal {}: shutting down", received);
  if (running.publisher) running.publisher->Stop();
  running.driver->CancelDelays();
  running.server->Stop();
  return kExitOk;
}

void AddDriverFlags(CLI::App& command, DriverFlags& flags) {
  command.add_option("--node-name", flags.node_name, "this node's name")
      ->required();
  AddApiClientFlags(command, flags.api);
  command.add_option("--driver-name", flags.driver_name,
                     "DRA driver name (default: gpu.example.com, or "
                     "gpu.classic.example.com with --classic)");
  command.add_flag(
      "--classic", flags.classic,
      "the node part of `dralloc driver classic-example` (classic DRA, "
      "resource.k8s.io/v1alpha2): publishes no ResourceSlices, prepares "
      "claims from the resource handles of its control-plane part");
  command.add_option("--gpus", flags.gpus, "simulated GPUs")
      ->capture_default_str();
  command.add_option("--partitions", flags.partitions,
                     "partitions per GPU, with shared counters (0: none)");
  command.add_option(
      "--root", flags.root,
      "default directories: ROOT/plugins, ROOT/plugins_registry, "
      "ROOT/cdi, ROOT/driver-state");
  command.add_option("--plugins-dir", flags.plugins_dir,
                     "kubelet plugins directory (DRA socket)");
  command.add_option("--registry-dir", flags.registry_dir,
                     "kubelet plugin registry directory");
  command.add_option("--cdi-dir", flags.cdi_dir, "CDI spec directory");
  command.add_option("--state-dir", flags.state_dir,
                     "driver state (prepared-claims checkpoint and journal)");
  command
      .add_option("--state-sync", flags.state_sync,
                  "always: a prepare or unprepare is fsynced before it is "
                  "answered (survives a machine crash); never: written, not "
                  "synced (survives kill -9 of the driver only; for tmpfs "
                  "and benchmarks)")
      ->check(CLI::IsMember({"always", "never"}))
      ->capture_default_str();
}

void AddTestFlags(CLI::App& command, DriverFlags& flags) {
  command.add_flag("--fail-prepare", flags.fail_prepare,
                   "test knob: every prepare fails");
  command.add_option("--fail-prepare-claim", flags.fail_prepare_claim,
                     "test knob: prepares of claims with this name fail");
  command
      .add_option("--prepare-delay", flags.prepare_delay_ms,
                  "test knob: milliseconds every prepare call waits")
      ->check(CLI::Range(0, 600000));
  command
      .add_option("--unprepare-delay", flags.unprepare_delay_ms,
                  "test knob: milliseconds every unprepare call waits")
      ->check(CLI::Range(0, 600000));
  command
      .add_option("--unhealthy", flags.unhealthy,
                  "test knob: devices reported Unhealthy (comma-separated)")
      ->delimiter(',');
  command
      .add_option("--resync-interval", flags.resync_interval_ms,
                  "milliseconds between ResourceSlice repairs")
      ->check(CLI::Range(10, 3600000))
      ->capture_default_str();
  command
      .add_option("--startup-timeout", flags.startup_timeout_s,
                  "seconds to keep retrying an unreachable API server")
      ->capture_default_str();
  command.add_option("--log-level", flags.log_level,
                     "debug, info, warn or error");
}

}  // namespace

void RegisterDriverCommands(CLI::App& app, int& exit_code) {
  CLI::App* driver = app.add_subcommand(
      "driver",
      "Example DRA drivers: the node side (example) and a classic DRA "
      "control-plane driver (classic-example)");
  driver->require_subcommand(1);
  auto [example, flags] = AddCommand<DriverFlags>(
      *driver, "example",
      "The example GPU driver for one node (as dra-example-driver): "
      "ResourceSlices, kubelet plugin sockets, CDI specs",
      exit_code, [](const DriverFlags& f) { return RunExampleDriver(f); });
  AddDriverFlags(example, flags);
  AddTestFlags(example, flags);
  AddClassicDriverCommand(*driver, exit_code);
}

}  // namespace dralloc::cli
