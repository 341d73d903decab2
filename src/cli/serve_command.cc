// `dralloc serve`: a whole DRA control plane in one process — the API server
// with its embedded store, the ResourceClaim controller and the scheduler,
// the last two talking to the store in process — and the simulation
// endpoints (cli/simulate_endpoint.h) over the live state.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "apiserver/api_server.h"
#include "apiserver/in_process_api_client.h"
#include "cli/commands.h"
#include "cli/leader_election_flags.h"
#include "cli/server_flags.h"
#include "cli/simulate_endpoint.h"
#include "common/log.h"
#include "controlplane/control_plane.h"

namespace dralloc::cli {
namespace {

struct ServeFlags {
  ServerFlags server;
  std::string scheduler_name = "dralloc-scheduler";
  std::string placement = "default";
  // 0: 4, or 16 on a store shared with other servers (etcd), whose writes
  // take longer, so more of them must be in flight for the same rate.
  int binders = 0;
  int binding_timeout_seconds = 600;
  int controller_workers = 0;
  LeaderElectionFlags leader_election;
};

// Counters of the controller and the scheduler in Prometheus text format
// (upstream's resourceclaim_controller_* names where they exist). The two
// may run in one plane or, under leader election, in two.
std::string ControlPlaneMetrics(controlplane::ControlPlane& controller_plane,
                                controlplane::ControlPlane& scheduler_plane) {
  const auto c = controller_plane.controller()->metrics();
  const auto s = scheduler_plane.scheduler()->stats();
  std::string out;
  auto counter = [&out](std::string_view name, std::string_view help,
                        uint64_t value) {
    out += fmt::format("# HELP {} {}\n# TYPE {} counter\n{} {}\n", name, help,
                       name, name, value);
  };
  counter("resourceclaim_controller_create_attempts_total",
          "ResourceClaims the controller tried to create", c.create_attempts);
  counter("resourceclaim_controller_create_failures_total",
          "ResourceClaim creations that failed", c.create_failures);
  counter("resourceclaim_controller_reservations_removed_total",
          "reservedFor entries removed for gone or finished pods",
          c.reservations_removed);
  counter("resourceclaim_controller_deallocations_total",
          "claims deallocated because nobody reserves them", c.deallocations);
  counter("resourceclaim_controller_claims_deleted_total",
          "generated claims deleted with their pod", c.claims_deleted);
  counter("resourceclaim_controller_syncs_total",
          "pod and claim keys the controller processed", c.syncs);
  counter("dralloc_scheduler_pods_scheduled_total", "pods bound to a node",
          s.scheduled);
  counter("dralloc_scheduler_unschedulable_attempts_total",
          "scheduling attempts that found no node", s.unschedulable);
  counter("dralloc_scheduler_bind_failures_total",
          "PreBind or Bind failures (the pod is retried)", s.bind_failures);
  counter("dralloc_scheduler_nodes_evaluated_total", "nodes filtered",
          s.nodes_evaluated);
  counter("dralloc_scheduler_allocator_calls_total",
          "structured allocator runs", s.allocator_calls);
  counter("dralloc_scheduler_deallocations_total",
          "claims deallocated by PostFilter", s.deallocations);
  return out;
}

void PrintBanner(const ServeFlags& flags, const ServedApi& served) {
  const std::string url = served.Url();
  fmt::print("dralloc serve listening on {}{}\n", url,
             flags.leader_election.enabled ? " (leader election on)" : "");
  if (served.tls) {
    fmt::print(
        "Point kubectl at it with a kubeconfig that `dralloc certs init` "
        "wrote for this server, e.g.\n"
        "  kubectl --kubeconfig PKI_DIR/admin.kubeconfig get pods -A\n");
  } else {
    fmt::print(
        "Point kubectl at it with:\n"
        "  kubectl config set-cluster dralloc --server={}\n"
        "  kubectl config set-context dralloc --cluster=dralloc "
        "--namespace=default\n"
        "  kubectl config use-context dralloc\n"
        "or per command: kubectl --server={} get pods -A\n",
        url, url);
  }
  std::fflush(stdout);
  log::Info("serve", "listening on {} storage={} revision={} scheduler={}", url,
            flags.server.storage, served.store->Revision(),
            flags.scheduler_name);
}

controlplane::ControlPlaneOptions PlaneOptions(const ServeFlags& flags,
                                               const ServedApi& served) {
  const int threads = served.store->Shared() ? 16 : 4;
  controlplane::ControlPlaneOptions options;
  options.scheduler.scheduler_name = flags.scheduler_name;
  options.scheduler.binders = flags.binders > 0 ? flags.binders : threads;
  options.scheduler.binding_wait.timeout =
      std::chrono::seconds(flags.binding_timeout_seconds);
  options.scheduler.placement = ParsePlacement(flags.placement);
  options.controller.workers =
      flags.controller_workers > 0 ? flags.controller_workers : threads;
  options.run_quota_controller = true;
  options.run_service_accounts_controller = true;
  return options;
}

// Several `serve` processes on one store: the scheduler and the controller
// (with the pod GC) each run only while holding their own Lease.
int RunElectedPlanes(const ServeFlags& flags, ServedApi& served,
                     apiserver::InProcessApiClient& api) {
  controlplane::ControlPlaneOptions scheduler_options =
      PlaneOptions(flags, served);
  scheduler_options.run_controller = false;
  scheduler_options.run_pod_gc = false;
  scheduler_options.run_quota_controller = false;
  scheduler_options.run_service_accounts_controller = false;
  controlplane::ControlPlaneOptions controller_options =
      PlaneOptions(flags, served);
  controller_options.run_scheduler = false;
  controlplane::ControlPlane scheduler_plane(api, scheduler_options);
  controlplane::ControlPlane controller_plane(api, controller_options);
  served.server->AddMetricsSource(
      [&] { return ControlPlaneMetrics(controller_plane, scheduler_plane); });
  PrintBanner(flags, served);
  const int code = RunElected(api, flags.leader_election,
                              {{.lease_name = "dralloc-scheduler",
                                .start = [&] { scheduler_plane.Start(); },
                                .stop = [&] { scheduler_plane.Stop(); }},
                               {.lease_name = "dralloc-controller",
                                .start = [&] { controller_plane.Start(); },
                                .stop = [&] { controller_plane.Stop(); }}},
                              served.signals);
  served.server->Stop();
  return code;
}

int RunServe(const ServeFlags& flags) {
  ServedApi served;
  if (int code = StartApiServer(flags.server, served, AddSimulateEndpoint);
      code != kExitOk) {
    return code;
  }
  apiserver::ApiServer& server = *served.server;
  apiserver::InProcessApiClient api(server.storage(), flags.scheduler_name);
  if (flags.leader_election.enabled) {
    return RunElectedPlanes(flags, served, api);
  }
  controlplane::ControlPlane plane(api, PlaneOptions(flags, served));
  server.AddMetricsSource(
      [&plane] { return ControlPlaneMetrics(plane, plane); });
  plane.Start();
  PrintBanner(flags, served);
  const int received = WaitForTermination(served.signals);
  log::Info("serve", "signal {}: shutting down", received);
  plane.Stop();
  server.Stop();
  return kExitOk;
}

}  // namespace

void RegisterServeCommand(CLI::App& app, int& exit_code) {
  auto [command, flags] = AddCommand<ServeFlags>(
      app, "serve",
      "API server (embedded store) + ResourceClaim controller + scheduler in "
      "one process",
      exit_code, RunServe);
  AddServerFlags(command, flags.server);
  command
      .add_option("--scheduler-name", flags.scheduler_name,
                  "schedule pods with this schedulerName (and pods with "
                  "none or default-scheduler)")
      ->capture_default_str();
  AddPlacementFlag(command, flags.placement);
  command
      .add_option("--binders", flags.binders,
                  "threads writing allocations and bindings (default 4; 16 "
                  "with --storage etcd)")
      ->check(CLI::NonNegativeNumber);
  AddBindingTimeoutFlag(command, flags.binding_timeout_seconds);
  command
      .add_option("--controller-workers", flags.controller_workers,
                  "ResourceClaim controller worker threads (default 4; 16 "
                  "with --storage etcd)")
      ->check(CLI::NonNegativeNumber);
  // serve runs two components, each with its lease of the usual name
  // (dralloc-scheduler, dralloc-controller).
  AddLeaderElectionFlags(command, flags.leader_election, "",
                         /*with_resource_name=*/false);
}

}  // namespace dralloc::cli
