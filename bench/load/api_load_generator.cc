// dralloc_api_load: HTTP(S) load generator for `dralloc apiserver`.
//
// Subcommands (see README.md): writes, list-slices, watch-fanout,
// schedule-pods (bench/scheduler/README.md). Only loopback servers are
// accepted; writes and list-slices also speak https with a client
// certificate or bearer token (--ca, --cert, --key, --token, --kubeconfig).
// Exit status: 0 when the run saw no errors, 1 when requests failed or a check
// did not hold, 2 when the run could not start (bad flags, server unreachable).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "load/list_slices_scenario.h"
#include "load/load_target.h"
#include "load/schedule_pods_scenario.h"
#include "load/target_flags.h"
#include "load/watch_fanout_scenario.h"
#include "load/writes_scenario.h"

namespace {

using dralloc::StatusOr;
using namespace dralloc::load;

constexpr int kExitOk = 0;
constexpr int kExitErrorsSeen = 1;
constexpr int kExitCannotRun = 2;

int Fail(const dralloc::Status& status) {
  fmt::print(stderr, "dralloc_api_load: {}\n", status.ToString());
  return kExitCannotRun;
}

template <typename Report>
int Finish(const StatusOr<Report>& report, bool json,
           std::string (*format_text)(const Report&),
           std::string (*format_json)(const Report&)) {
  if (!report.ok()) return Fail(report.status());
  const std::string text = json ? format_json(*report) : format_text(*report);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  return report->HasErrors() ? kExitErrorsSeen : kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "dralloc_api_load: HTTP(S) load generator for the dralloc API server "
      "(loopback targets only)"};
  app.require_subcommand(1);

  TargetFlags target_flags;
  bool json_output = false;
  const auto add_common = [&](CLI::App* command) {
    command->add_option("--server", target_flags.server,
                        "http(s)://127.0.0.1:PORT (default: the kubeconfig's)");
    command->add_option("--kubeconfig", target_flags.kubeconfig,
                        "Server, CA, client certificate and token of the "
                        "current context");
    command->add_option("--ca", target_flags.ca_file,
                        "PEM CA that signed the https server's certificate");
    command->add_option("--cert", target_flags.cert_file,
                        "PEM client certificate (with --key)");
    command->add_option("--key", target_flags.key_file,
                        "PEM private key of --cert");
    command->add_option("--token", target_flags.token,
                        "Sent as 'Authorization: Bearer TOKEN'");
    command->add_flag("--json", json_output, "Print a JSON report");
  };

  WritesOptions writes;
  std::string mix = "create,get,update";
  CLI::App* writes_command = app.add_subcommand(
      "writes",
      "Create, get and update ResourceClaims from N clients for S seconds");
  add_common(writes_command);
  writes_command->add_option("--clients", writes.clients, "Client threads")
      ->check(CLI::Range(1, 256));
  writes_command
      ->add_option("--duration", writes.duration_seconds, "Seconds to run")
      ->check(CLI::Range(0.1, 3600.0));
  writes_command->add_option("--namespace", writes.namespace_name,
                             "Namespace (created if missing)");
  writes_command->add_option(
      "--mix", mix, "Operations per round, comma-separated: create,get,update");
  writes_command->add_option(
      "--ack-log", writes.ack_log_path,
      "Append 'NAME RESOURCEVERSION' of every acknowledged create here");
  writes_command->add_option(
      "--latency-trace", writes.latency_trace_path,
      "Write 'START_MS LATENCY_MS OP CLIENT' of every timed request here");
  writes_command->add_option("--run-id", writes.run_id,
                             "Name component that keeps runs apart");
  writes_command
      ->add_option("--rate", writes.rate,
                   "Open loop: requests/s offered by all clients together, "
                   "latency counted from each request's scheduled time "
                   "(0: closed loop)")
      ->check(CLI::Range(0.0, 1e7));

  ListSlicesOptions slices;
  CLI::App* slices_command = app.add_subcommand(
      "list-slices",
      "Create many ResourceSlices, then time full and paginated lists");
  add_common(slices_command);
  slices_command->add_option("--slices", slices.slices, "Slices to create")
      ->check(CLI::Range(1, 1000000));
  slices_command
      ->add_option("--devices", slices.devices, "Devices per slice (max 128)")
      ->check(CLI::Range(1, 128));
  slices_command->add_option("--clients", slices.clients, "Creating threads")
      ->check(CLI::Range(1, 256));
  slices_command
      ->add_option("--repetitions", slices.repetitions,
                   "Timed full lists and paginated walks")
      ->check(CLI::Range(1, 100));
  slices_command->add_option("--limit", slices.page_limit, "Page size")
      ->check(CLI::Range(1, 100000));
  slices_command->add_option("--server-pid", slices.server_pid,
                             "Sample this process's VmRSS");
  slices_command->add_flag("--cleanup", slices.cleanup,
                           "Delete the created slices at the end");
  slices_command
      ->add_option("--timeout", slices.timeout_seconds,
                   "Bound on the whole run, seconds")
      ->check(CLI::Range(1.0, 7200.0));

  WatchFanoutOptions fanout;
  CLI::App* fanout_command = app.add_subcommand(
      "watch-fanout",
      "Open many ResourceClaim watches, write, check every watcher got "
      "every event");
  add_common(fanout_command);
  fanout_command->add_option("--watchers", fanout.watchers, "Watch streams")
      ->check(CLI::Range(1, 10000));
  fanout_command->add_option("--writes", fanout.writes, "Creates")
      ->check(CLI::Range(1, 10000000));
  fanout_command->add_option("--clients", fanout.clients, "Writing threads")
      ->check(CLI::Range(1, 256));
  fanout_command->add_option("--namespace", fanout.namespace_name,
                             "Namespace (default: a fresh one)");
  fanout_command
      ->add_option("--open-window", fanout.open_window,
                   "Watch requests in flight while opening")
      ->check(CLI::Range(1, 10000));
  fanout_command
      ->add_option("--timeout", fanout.timeout_seconds,
                   "Bound on the whole run, seconds")
      ->check(CLI::Range(1.0, 7200.0));

  SchedulePodsOptions schedule;
  CLI::App* schedule_command = app.add_subcommand(
      "schedule-pods",
      "Create a cluster and pods, measure how fast the server's scheduler "
      "binds them, check no device is allocated twice");
  add_common(schedule_command);
  schedule_command
      ->add_option("--setup", schedule.setup_path,
                   "JSON lines: objects created in order before the pods")
      ->required();
  schedule_command
      ->add_option("--pods", schedule.pods_path,
                   "JSON lines: the Pods (one namespace)")
      ->required();
  schedule_command
      ->add_option("--clients", schedule.clients, "Creating threads")
      ->check(CLI::Range(1, 256));
  schedule_command
      ->add_option("--timeout", schedule.timeout_seconds,
                   "Bound on creating and binding, seconds")
      ->check(CLI::Range(1.0, 7200.0));

  CLI11_PARSE(app, argc, argv);

  StatusOr<LoadTarget> target = ResolveLoadTarget(target_flags);
  if (!target.ok()) return Fail(target.status());

  if (writes_command->parsed()) {
    StatusOr<std::vector<WriteOp>> ops = ParseWriteMix(mix);
    if (!ops.ok()) return Fail(ops.status());
    writes.target = *target;
    writes.mix = *ops;
    return Finish(RunWritesScenario(writes), json_output,
                  &FormatWritesReportText, &FormatWritesReportJson);
  }
  if (slices_command->parsed()) {
    slices.target = *target;
    return Finish(RunListSlicesScenario(slices), json_output,
                  &FormatListSlicesReportText, &FormatListSlicesReportJson);
  }
  if (target->tls) {
    // Their watch streams are raw Asio connections without TLS.
    return Fail(dralloc::InvalidArgumentError(
        "watch-fanout and schedule-pods support http:// servers only"));
  }
  if (schedule_command->parsed()) {
    schedule.target = *target;
    return Finish(RunSchedulePodsScenario(schedule), json_output,
                  &FormatSchedulePodsReportText, &FormatSchedulePodsReportJson);
  }
  fanout.target = *target;
  return Finish(RunWatchFanoutScenario(fanout), json_output,
                &FormatWatchFanoutReportText, &FormatWatchFanoutReportJson);
}
