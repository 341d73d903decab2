// `dralloc scheduler` and `dralloc controller`: the scheduler or the
// ResourceClaim controller as a separate process against any
// Kubernetes-compatible API server, configured from a kubeconfig.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/leader_election_flags.h"
#include "cli/server_flags.h"
#include "client/http_api_client.h"
#include "common/log.h"
#include "controlplane/control_plane.h"

namespace dralloc::cli {
namespace {

struct ControlPlaneFlags {
  std::string kubeconfig;
  std::string context;
  std::string log_level = "info";
  std::string scheduler_name = "dralloc-scheduler";
  std::string placement = "default";
  bool default_pods = false;
  int binders = 4;
  int binding_timeout_seconds = 600;
  int workers = 4;
  LeaderElectionFlags leader_election;
};

int RunControlPlane(const ControlPlaneFlags& flags, bool scheduler) {
  if (!ApplyLogLevel(flags.log_level)) return kExitBadInput;
  auto config = client::LoadKubeconfig(flags.kubeconfig, flags.context);
  if (!config.ok()) {
    fmt::print(stderr, "{}\n", config.status().message());
    return kExitBadInput;
  }
  client::HttpClientOptions http;
  http.user_agent =
      scheduler ? "dralloc-scheduler/0.1" : "dralloc-controller/0.1";
  auto api = client::NewHttpApiClient(*config, http);
  if (!api.ok()) {
    fmt::print(stderr, "{}\n", api.status().message());
    return kExitBadInput;
  }
  const sigset_t signals = BlockTerminationSignals();
  controlplane::ControlPlaneOptions options;
  options.run_scheduler = scheduler;
  options.run_controller = !scheduler;
  options.run_quota_controller = !scheduler;
  options.run_service_accounts_controller = !scheduler;
  options.controller.workers = flags.workers;
  options.scheduler.scheduler_name = flags.scheduler_name;
  options.scheduler.schedule_default_pods = flags.default_pods;
  options.scheduler.binders = flags.binders;
  options.scheduler.binding_wait.timeout =
      std::chrono::seconds(flags.binding_timeout_seconds);
  options.scheduler.placement = ParsePlacement(flags.placement);
  controlplane::ControlPlane plane(**api, options);
  const char* what = scheduler ? "scheduler" : "controller";
  fmt::print("dralloc {} running against {}{}\n", what, config->server,
             flags.leader_election.enabled ? " (leader election on)" : "");
  std::fflush(stdout);
  if (flags.leader_election.enabled) {
    // The plane runs only while this process holds the lease; every Start
    // and Stop happens on the elector's thread.
    return RunElected(**api, flags.leader_election,
                      {{.lease_name = flags.leader_election.resource_name,
                        .start = [&plane] { plane.Start(); },
                        .stop = [&plane] { plane.Stop(); }}},
                      signals);
  }
  plane.Start();
  const int received = WaitForTermination(signals);
  log::Info(what, "signal {}: shutting down", received);
  plane.Stop();
  return kExitOk;
}

void AddCommonFlags(CLI::App& command, ControlPlaneFlags& flags,
                    std::string lease_name) {
  command.add_option("--kubeconfig", flags.kubeconfig,
                     "kubeconfig file (default: $KUBECONFIG, then "
                     "~/.kube/config)");
  command.add_option("--context", flags.context,
                     "kubeconfig context (default: current-context)");
  command.add_option("--log-level", flags.log_level,
                     "debug, info, warn or error");
  AddLeaderElectionFlags(command, flags.leader_election, std::move(lease_name));
}

}  // namespace

void RegisterControlPlaneCommands(CLI::App& app, int& exit_code) {
  auto [scheduler, scheduler_flags] = AddCommand<ControlPlaneFlags>(
      app, "scheduler",
      "The DRA scheduler as its own process against any Kubernetes-compatible "
      "API server",
      exit_code, [](const ControlPlaneFlags& flags) {
        return RunControlPlane(flags, true);
      });
  AddCommonFlags(scheduler, scheduler_flags, "dralloc-scheduler");
  scheduler
      .add_option("--scheduler-name", scheduler_flags.scheduler_name,
                  "schedule pods with this spec.schedulerName")
      ->capture_default_str();
  scheduler.add_flag("--schedule-default-pods", scheduler_flags.default_pods,
                     "also schedule pods with no schedulerName or "
                     "default-scheduler (only where no kube-scheduler runs)");
  AddPlacementFlag(scheduler, scheduler_flags.placement);
  scheduler.add_option("--binders", scheduler_flags.binders,
                       "threads writing allocations and bindings");
  AddBindingTimeoutFlag(scheduler, scheduler_flags.binding_timeout_seconds);

  auto [controller, controller_flags] = AddCommand<ControlPlaneFlags>(
      app, "controller",
      "The ResourceClaim controller as its own process against any "
      "Kubernetes-compatible API server",
      exit_code, [](const ControlPlaneFlags& flags) {
        return RunControlPlane(flags, false);
      });
  AddCommonFlags(controller, controller_flags, "dralloc-controller");
  controller.add_option("--workers", controller_flags.workers,
                        "worker threads");
}

}  // namespace dralloc::cli
