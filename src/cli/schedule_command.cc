// dralloc schedule -f PATH… [-o table|yaml|json|none] [--stats]: an offline
// what-if run. The objects are validated and go into an in-memory API
// (client::MemoryApiClient, with API defaulting), the claim controller and the
// scheduler run to quiescence, and the result is printed: pod → node → claim →
// devices, and the pods that could not be scheduled with the scheduler's
// reasons. Exit 0: every pod is scheduled; 1: some pod is not; 2: invalid
// input.
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/resource_registry.h"
#include "cli/commands.h"
#include "cli/object_loader.h"
#include "cli/server_flags.h"
#include "client/api_client.h"
#include "common/log.h"
#include "controlplane/what_if.h"
#include "encoding/yaml_writer.h"

namespace dralloc::cli {
namespace {

// CPU time of all the process's threads so far (user + system).
double ProcessCpuSeconds() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct ScheduleFlags {
  std::vector<std::string> paths;
  std::string output = "table";
  std::string scheduler_name = "dralloc-scheduler";
  std::string placement = "default";
  int threads = 2;
  bool stats = false;
  int classic_gpus_per_node = 0;
};

template <typename T>
std::vector<const T*> Sorted(const std::vector<client::ObjectPtr>& objects) {
  std::vector<const T*> out;
  for (const client::ObjectPtr& o : objects) {
    if (const T* typed = client::As<T>(o)) out.push_back(typed);
  }
  std::sort(out.begin(), out.end(), [](const T* a, const T* b) {
    return std::tie(a->metadata.namespace_, a->metadata.name) <
           std::tie(b->metadata.namespace_, b->metadata.name);
  });
  return out;
}

void PrintTable(const std::vector<controlplane::PodPlacement>& placements) {
  std::cout << fmt::format("{:<36} {:<20} {:<40} {}\n", "POD", "NODE", "CLAIMS",
                           "DEVICES");
  for (const controlplane::PodPlacement& p : placements) {
    if (p.node.empty()) continue;
    std::cout << fmt::format(
        "{:<36} {:<20} {:<40} {}\n",
        p.pod->metadata.namespace_ + "/" + p.pod->metadata.name, p.node,
        p.claims.empty() ? "-" : fmt::format("{}", fmt::join(p.claims, ",")),
        p.devices.empty() ? "-"
                          : fmt::format("{}", fmt::join(p.devices, ", ")));
  }
  bool header = false;
  for (const controlplane::PodPlacement& p : placements) {
    if (!p.node.empty()) continue;
    if (!header) {
      std::cout << "\nUNSCHEDULABLE\n";
      header = true;
    }
    std::cout << fmt::format("{}/{}: {}\n", p.pod->metadata.namespace_,
                             p.pod->metadata.name, p.reason);
  }
}

int PrintObjects(controlplane::ControlPlane& plane, const std::string& output) {
  std::vector<api::Json> items;
  auto add = [&](const auto& typed) -> bool {
    StatusOr<api::Json> json = api::EncodeObject(
        api::Object(*typed), api::PreferredVersion(api::Object(*typed)));
    if (!json.ok()) {
      std::cerr << "error: " << json.status().message() << '\n';
      return false;
    }
    items.push_back(std::move(*json));
    return true;
  };
  for (const auto* claim : Sorted<api::ResourceClaim>(plane.claims().List())) {
    if (!add(claim)) return kExitBadInput;
  }
  for (const auto* pod : Sorted<api::Pod>(plane.pods().List())) {
    if (!add(pod)) return kExitBadInput;
  }
  api::Json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
  if (output == "json") {
    std::cout << list.dump(4, ' ', false, api::Json::error_handler_t::replace)
              << '\n';
  } else {
    std::cout << encoding::ToYaml(list);
  }
  return kExitOk;
}

int RunSchedule(const ScheduleFlags& flags) {
  // Reasons are part of the output; progress logs would only be noise.
  log::SetLevel(log::Level::kWarn);
  std::vector<api::Object> objects;
  if (!LoadValidObjects(flags.paths, objects, std::cerr)) return kExitBadInput;

  scheduler::SchedulerOptions options;
  options.scheduler_name = flags.scheduler_name;
  options.placement = ParsePlacement(flags.placement);
  // Two threads: controller work of one batch of pods overlaps scheduling
  // of the previous batch; placements are the same as with one.
  constexpr size_t kPipelineBatch = 512;
  // Offline, classic DRA's informers matter only when the input has
  // resource.k8s.io/v1alpha2 objects.
  const bool classic = std::ranges::any_of(objects, [](const api::Object& o) {
    return api::ResourceInfoOf(o).IsClassic();
  });
  controlplane::WhatIf what_if(options, flags.threads > 1 ? kPipelineBatch : 0,
                               classic);
  if (Status loaded = what_if.Load(std::move(objects)); !loaded.ok()) {
    std::cerr << "error: " << loaded.message() << '\n';
    return kExitBadInput;
  }
  if (flags.classic_gpus_per_node > 0) {
    if (Status simulated =
            what_if.SimulateClassicDrivers(flags.classic_gpus_per_node);
        !simulated.ok()) {
      std::cerr << "error: " << simulated.message() << '\n';
      return kExitBadInput;
    }
  }
  controlplane::ControlPlane& plane = what_if.plane();
  // Cluster state (nodes, slices, classes) is synced before the clock
  // starts, as in upstream's scheduler_perf; --stats reports both.
  const auto warm_start = std::chrono::steady_clock::now();
  Status run = what_if.WarmUp();
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = ProcessCpuSeconds();
  if (run.ok()) run = what_if.Run();
  const double cpu_seconds = ProcessCpuSeconds() - cpu_start;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const double warm_seconds =
      std::chrono::duration<double>(start - warm_start).count();
  if (!run.ok()) {
    std::cerr << "error: " << run.message() << '\n';
    return kExitBadInput;
  }
  const std::vector<controlplane::PodPlacement> placements =
      what_if.Placements();
  const size_t ours = placements.size();
  const size_t scheduled = static_cast<size_t>(std::count_if(
      placements.begin(), placements.end(),
      [](const controlplane::PodPlacement& p) { return !p.node.empty(); }));
  if (flags.stats) {
    const scheduler::SchedulerStats stats = plane.scheduler()->stats();
    const auto controller = plane.controller()->metrics();
    std::cerr << fmt::format(
        "scheduled {}/{} pods in {:.3f} s ({:.0f} pods/s); {} claims "
        "created, {} nodes evaluated, {} allocator calls, {} failed "
        "attempts, {:.3f} s of CPU; cluster state synced in {:.3f} s "
        "before\n",
        scheduled, ours, seconds, seconds > 0 ? scheduled / seconds : 0.0,
        controller.create_attempts - controller.create_failures,
        stats.nodes_evaluated, stats.allocator_calls, stats.unschedulable,
        cpu_seconds, warm_seconds);
  }
  int code = kExitOk;
  if (flags.output == "table") {
    PrintTable(placements);
  } else if (flags.output == "yaml" || flags.output == "json") {
    code = PrintObjects(plane, flags.output);
  }
  if (code != kExitOk) return code;
  return scheduled == ours ? kExitOk : kExitInvalid;
}

}  // namespace

void RegisterScheduleCommand(CLI::App& app, int& exit_code) {
  auto [command, flags] = AddCommand<ScheduleFlags>(
      app, "schedule",
      "Offline what-if: load nodes, slices, classes, claims, templates and "
      "pods into an in-memory API, run the claim controller and the "
      "scheduler until nothing changes, and print where each pod landed "
      "with its devices, and why the others did not. Exit 0: every pod "
      "scheduled; 1: some pod unschedulable; 2: invalid input.",
      exit_code, RunSchedule);
  AddFilenameOption(command, flags.paths);
  command
      .add_option("-o,--output", flags.output,
                  "table (default), yaml or json (claims and pods after "
                  "scheduling), none")
      ->check(CLI::IsMember({"table", "yaml", "json", "none"}));
  command.add_option("--scheduler-name", flags.scheduler_name,
                     "Schedule pods with this schedulerName (and pods "
                     "without one)");
  AddPlacementFlag(command, flags.placement,
                   "default (first fit, like kube-scheduler), pack or "
                   "spread (prefer nodes whose devices are most/least used)");
  command
      .add_option("--threads", flags.threads,
                  "1: run controller and scheduler on one thread; 2 "
                  "(default): overlap them (same placements)")
      ->check(CLI::Range(1, 2));
  command.add_flag("--stats", flags.stats,
                   "Print scheduling throughput and counters to stderr");
  command
      .add_option("--classic-gpus-per-node", flags.classic_gpus_per_node,
                  "Simulate a classic DRA (resource.k8s.io/v1alpha2) "
                  "control-plane driver for every ResourceClass's driver, "
                  "answering as `dralloc driver classic-example` would, with "
                  "this many GPUs on every node (0: none; classic claims then "
                  "wait for their driver)")
      ->check(CLI::Range(0, 128));
}

}  // namespace dralloc::cli
