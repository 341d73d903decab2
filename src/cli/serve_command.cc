// `dralloc serve`: a whole DRA control plane in one process — the API server
// with its embedded store, the ResourceClaim controller and the scheduler,
// the last two talking to the store in process — and the simulation
// endpoints (cli/simulate_endpoint.h) over the live state.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "apiserver/api_server.h"
#include "apiserver/in_process_api_client.h"
#include "cli/commands.h"
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
  int binders = 4;
  int controller_workers = 4;
};

// Counters of the controller and the scheduler in Prometheus text format
// (upstream's resourceclaim_controller_* names where they exist).
std::string ControlPlaneMetrics(controlplane::ControlPlane& plane) {
  const auto c = plane.controller()->metrics();
  const auto s = plane.scheduler()->stats();
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

int RunServe(const ServeFlags& flags) {
  ServedApi served;
  if (int code = StartApiServer(flags.server, served, AddSimulateEndpoint);
      code != kExitOk) {
    return code;
  }
  apiserver::ApiServer& server = *served.server;
  apiserver::InProcessApiClient api(server.storage(), flags.scheduler_name);
  controlplane::ControlPlaneOptions plane_options;
  plane_options.scheduler.scheduler_name = flags.scheduler_name;
  plane_options.scheduler.binders = flags.binders;
  plane_options.scheduler.placement = ParsePlacement(flags.placement);
  plane_options.controller.workers = flags.controller_workers;
  controlplane::ControlPlane plane(api, plane_options);
  server.AddMetricsSource([&plane] { return ControlPlaneMetrics(plane); });
  plane.Start();

  const std::string url =
      fmt::format("http://{}:{}", served.options.host, server.port());
  fmt::print("dralloc serve listening on {}\n", url);
  fmt::print(
      "Point kubectl at it with:\n"
      "  kubectl config set-cluster dralloc --server={}\n"
      "  kubectl config set-context dralloc --cluster=dralloc "
      "--namespace=default\n"
      "  kubectl config use-context dralloc\n"
      "or per command: kubectl --server={} get pods -A\n",
      url, url);
  std::fflush(stdout);
  log::Info("serve", "listening on {} storage={} revision={} scheduler={}", url,
            flags.server.storage, served.store->Revision(),
            flags.scheduler_name);
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
                  "threads writing allocations and bindings")
      ->capture_default_str();
  command
      .add_option("--controller-workers", flags.controller_workers,
                  "ResourceClaim controller worker threads")
      ->capture_default_str();
}

}  // namespace dralloc::cli
