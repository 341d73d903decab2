// dralloc simulate scale-up -f CLUSTER… --node-groups FILE [--expander NAME]
//                           [--seed N] [-o table|json]
// dralloc simulate scale-down -f CLUSTER… [-o table|json]
//
// Autoscaler simulation over the objects given (simulator::ClusterSimulation
// running the real scheduling framework): which nodes of which group would
// run the pending pods, and which nodes could be removed. Exit codes:
// scale-up 0 when every pending pod would run, 1 when some would not;
// scale-down 0; both 2 on invalid input.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "api/codec.h"
#include "cli/commands.h"
#include "cli/object_loader.h"
#include "common/log.h"
#include "simulator/cluster_simulation.h"
#include "simulator/node_group.h"
#include "simulator/plan_output.h"
#include "simulator/scale_down_planner.h"
#include "simulator/scale_up_planner.h"

namespace dralloc::cli {
namespace {

using simulator::ClusterSimulation;

struct SimulateFlags {
  std::vector<std::string> paths;
  std::string node_groups;
  std::string expander = "least-waste";
  uint64_t seed = 1;
  std::string output = "table";
};

// Loads, decodes and validates the cluster; prints problems to stderr.
std::unique_ptr<ClusterSimulation> LoadCluster(const SimulateFlags& flags) {
  std::vector<api::Object> objects;
  if (!LoadValidObjects(flags.paths, objects, std::cerr)) return nullptr;
  auto simulation = ClusterSimulation::Create(std::move(objects));
  if (!simulation.ok()) {
    std::cerr << "error: " << simulation.status().message() << '\n';
    return nullptr;
  }
  return std::move(*simulation);
}

StatusOr<std::vector<simulator::NodeGroup>> LoadNodeGroups(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return InvalidArgumentError(
        fmt::format("--node-groups: cannot read \"{}\"", path));
  }
  std::stringstream text;
  text << in.rdbuf();
  return simulator::ParseNodeGroups(text.str(), path);
}

int RunScaleUp(const SimulateFlags& flags) {
  log::SetLevel(log::Level::kWarn);
  auto expander = simulator::ParseExpander(flags.expander);
  if (!expander.ok()) {
    std::cerr << "error: " << expander.status().message() << '\n';
    return kExitBadInput;
  }
  auto groups = LoadNodeGroups(flags.node_groups);
  if (!groups.ok()) {
    std::cerr << "error: " << groups.status().message() << '\n';
    return kExitBadInput;
  }
  std::unique_ptr<ClusterSimulation> simulation = LoadCluster(flags);
  if (simulation == nullptr) return kExitBadInput;
  simulator::ScaleUpOptions options;
  options.expander = *expander;
  options.seed = flags.seed;
  simulator::ScaleUpPlanner planner(*simulation, std::move(*groups), options);
  const simulator::ScaleUpPlan plan = planner.Plan();
  if (flags.output == "json") {
    std::cout << simulator::ScaleUpPlanJson(plan).dump(2) << '\n';
  } else {
    std::cout << simulator::ScaleUpPlanTable(plan);
  }
  return plan.unschedulable.empty() ? kExitOk : kExitInvalid;
}

int RunScaleDown(const SimulateFlags& flags) {
  log::SetLevel(log::Level::kWarn);
  std::unique_ptr<ClusterSimulation> simulation = LoadCluster(flags);
  if (simulation == nullptr) return kExitBadInput;
  simulator::ScaleDownPlanner planner(*simulation);
  const simulator::ScaleDownPlan plan = planner.Plan();
  if (flags.output == "json") {
    std::cout << simulator::ScaleDownPlanJson(plan).dump(2) << '\n';
  } else {
    std::cout << simulator::ScaleDownPlanTable(plan);
  }
  return kExitOk;
}

void AddOutputFlag(CLI::App& command, std::string& output) {
  command.add_option("-o,--output", output, "table (default) or json")
      ->check(CLI::IsMember({"table", "json"}));
}

}  // namespace

void RegisterSimulateCommand(CLI::App& app, int& exit_code) {
  CLI::App* simulate = app.add_subcommand(
      "simulate", "Autoscaler simulation (KEP-4381) with DRA devices");
  simulate->require_subcommand(1);
  auto [up, up_flags] = AddCommand<SimulateFlags>(
      *simulate, "scale-up",
      "For the pending pods: how many nodes of which NodeGroup to add, "
      "which pod goes where, and the pods no group can run. Exit 0: every "
      "pending pod would run; 1: some would not; 2: invalid input.",
      exit_code, RunScaleUp);
  AddFilenameOption(up, up_flags.paths);
  up.add_option("--node-groups", up_flags.node_groups,
                "YAML file of NodeGroup documents (dralloc.io/v1alpha1)")
      ->required();
  up.add_option("--expander", up_flags.expander,
                "least-waste (default), most-pods, priority, random, "
                "fewest-nodes");
  up.add_option("--seed", up_flags.seed,
                "Seed of the random and priority expanders (default 1)");
  AddOutputFlag(up, up_flags.output);
  auto [down, down_flags] = AddCommand<SimulateFlags>(
      *simulate, "scale-down",
      "Which nodes can be removed because every pod on them fits "
      "elsewhere, least utilized devices first; for the others the pod "
      "that does not fit and why. Exit 0, or 2 on invalid input.",
      exit_code, RunScaleDown);
  AddFilenameOption(down, down_flags.paths);
  AddOutputFlag(down, down_flags.output);
}

}  // namespace dralloc::cli
