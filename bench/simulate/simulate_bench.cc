// Autoscaler simulation benchmark (README.md here): scale-up of the pending
// pods over the node groups, and scale-down, on the cluster written by
// make_cluster.py. The cluster is loaded once; each iteration plans in a
// fork of the simulation and reverts it, so every iteration starts from
// the same state.
//
//   dralloc_simulate_bench --cluster=DIR [Google Benchmark flags]
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "allocator/offline_allocation.h"
#include "simulator/cluster_simulation.h"
#include "simulator/node_group.h"
#include "simulator/scale_down_planner.h"
#include "simulator/scale_up_planner.h"

namespace dralloc::simulator {
namespace {

std::string cluster_dir;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << path << '\n';
    std::exit(2);
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<api::Object> ClusterObjects() {
  auto objects = allocator::DecodeManifests(
      ReadText(cluster_dir + "/cluster.yaml"), "cluster.yaml");
  if (!objects.ok()) {
    std::cerr << objects.status() << '\n';
    std::exit(2);
  }
  return std::move(*objects);
}

std::unique_ptr<ClusterSimulation> LoadSimulation() {
  auto simulation = ClusterSimulation::Create(ClusterObjects());
  if (!simulation.ok()) {
    std::cerr << simulation.status() << '\n';
    std::exit(2);
  }
  return std::move(*simulation);
}

std::vector<NodeGroup> Groups() {
  auto groups =
      ParseNodeGroups(ReadText(cluster_dir + "/groups.yaml"), "groups.yaml");
  if (!groups.ok()) {
    std::cerr << groups.status() << '\n';
    std::exit(2);
  }
  return std::move(*groups);
}

// Creating the simulation: objects stored, claims of templates created,
// snapshot built (decoding excluded).
void BM_LoadCluster(benchmark::State& state) {
  const std::vector<api::Object> objects = ClusterObjects();
  for (auto _ : state) {
    auto simulation = ClusterSimulation::Create(objects);
    benchmark::DoNotOptimize(simulation);
  }
}

void BM_ScaleUp(benchmark::State& state) {
  auto simulation = LoadSimulation();
  const std::vector<NodeGroup> groups = Groups();
  size_t new_nodes = 0, placed = 0, left = 0;
  for (auto _ : state) {
    const size_t mark = simulation->StartSimulation();
    ScaleUpPlanner planner(*simulation, groups);
    const ScaleUpPlan plan = planner.Plan();
    state.PauseTiming();
    new_nodes = 0;
    for (const auto& [group, count] : plan.scale_up) new_nodes += count;
    placed = plan.placements.size();
    left = plan.unschedulable.size();
    simulation->Revert(mark);
    state.ResumeTiming();
  }
  state.counters["pending"] =
      static_cast<double>(simulation->PendingPods().size());
  state.counters["new_nodes"] = static_cast<double>(new_nodes);
  state.counters["placed"] = static_cast<double>(placed);
  state.counters["unschedulable"] = static_cast<double>(left);
}

void BM_ScaleDown(benchmark::State& state) {
  auto simulation = LoadSimulation();
  size_t removable = 0, blocked = 0;
  for (auto _ : state) {
    const size_t mark = simulation->StartSimulation();
    ScaleDownPlanner planner(*simulation);
    const ScaleDownPlan plan = planner.Plan();
    state.PauseTiming();
    removable = plan.removable.size();
    blocked = plan.blocked.size();
    simulation->Revert(mark);
    state.ResumeTiming();
  }
  state.counters["nodes"] = static_cast<double>(removable + blocked);
  state.counters["removable"] = static_cast<double>(removable);
}

BENCHMARK(BM_LoadCluster)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScaleUp)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScaleDown)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dralloc::simulator

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.starts_with("--cluster=")) {
      dralloc::simulator::cluster_dir = arg.substr(10);
    } else {
      std::cerr << "unknown flag " << arg << "\n";
      return 2;
    }
  }
  if (dralloc::simulator::cluster_dir.empty()) {
    std::cerr << "usage: dralloc_simulate_bench --cluster=DIR "
                 "[benchmark flags]\n";
    return 2;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
