// Structured allocator benchmarks (issue #4). Each scheduler_perf-shaped case
// has a "floor": a bare first-free-device scan over the same nodes and
// devices, to report how far the full allocator is from the cheapest possible
// loop. Goals: >= 200,000 allocations/s for (a); every case (d)-(e) < 10 ms.
//
//   (a) BM_AllocFill/0        500 nodes x 10 devices, one 1-device claim per
//                             pod (pod i -> node i % 500) until full
//   (b) BM_AllocFill/1        the same with a CEL request selector
//   (c) BM_AllocFill/2        two requests under matchAttribute (numa)
//       BM_FirstFreeScanFloor the floor for (a)-(c)
//   (d) BM_AllocPartitionableBacktracking  8 partitionable devices, count 7
//   (e) BM_AllocMatchAttributeGroups       64 devices, 4 requests, one group
//   fits
//       BM_AllocCelContiguous              CEL: 4 contiguous of 16
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "allocator/allocator.h"
#include "allocator/offline_allocation.h"

namespace dralloc::allocator {
namespace {

constexpr int kNodes = 500;
constexpr int kDevicesPerNode = 10;

std::vector<api::Object> Decode(const std::string& yaml) {
  auto objects = DecodeManifests(yaml, "bench.yaml");
  if (!objects.ok()) {
    fmt::print(stderr, "bench input: {}\n", objects.status().message());
    std::abort();
  }
  return std::move(*objects);
}

// Everything one benchmark case needs: inventory, claims to allocate.
struct Scenario {
  DeviceInventory inventory;
  std::vector<api::ResourceClaim> claims;
  std::vector<api::ResourceClaim> allocated;  // in-use state
};

void Load(Scenario& scenario, const std::string& yaml) {
  std::vector<api::ResourceSlice> slices;
  std::vector<api::DeviceClass> classes;
  for (api::Object& object : Decode(yaml)) {
    if (auto* s = std::get_if<api::ResourceSlice>(&object)) {
      slices.push_back(std::move(*s));
    } else if (auto* c = std::get_if<api::DeviceClass>(&object)) {
      classes.push_back(std::move(*c));
    } else if (auto* claim = std::get_if<api::ResourceClaim>(&object)) {
      (claim->status.allocation ? scenario.allocated : scenario.claims)
          .push_back(std::move(*claim));
    }
  }
  scenario.inventory.Update(std::move(slices), {}, {}, std::move(classes));
}

std::string DriverClass() {
  return "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: "
         "test-class}\nspec:\n  selectors:\n  - cel: {expression: "
         "'device.driver == \"dra.example.com\"'}\n";
}

// scheduler_perf's node-local slices: instance-N with model, family,
// driverVersion, numa (numa = N / 2 so that pairs share a value) and memory.
std::string ClusterYaml() {
  std::string yaml = DriverClass();
  for (int n = 0; n < kNodes; ++n) {
    yaml += fmt::format(
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: "
        "{{name: node-{0}}}\nspec:\n  driver: dra.example.com\n  nodeName: "
        "node-{0}\n  pool: {{name: node-{0}, generation: 1, "
        "resourceSliceCount: 1}}\n  devices:\n",
        n);
    for (int d = 0; d < kDevicesPerNode; ++d) {
      yaml += fmt::format(
          "  - name: instance-{}\n    attributes:\n      model: {{string: "
          "A100}}\n      family: {{string: GPU}}\n      driverVersion: "
          "{{version: 1.2.3}}\n      dra.example.com/numa: {{int: {}}}\n    "
          "capacity:\n      memory: {{value: 1Gi}}\n",
          d, d / 2);
    }
  }
  return yaml;
}

std::string ClaimYaml(int variant) {
  std::string request =
      "    - name: req-0\n      exactly:\n        deviceClassName: "
      "test-class\n";
  if (variant == 1) {
    request +=
        "        selectors:\n        - cel: {expression: "
        "'device.attributes[\"dra.example.com\"].driverVersion.major() >= 1 "
        "&& device.capacity[\"dra.example.com\"].memory.isGreaterThan("
        "quantity(\"1Mi\"))'}\n";
  }
  std::string claim =
      "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: "
      "{name: pod-claim, namespace: default}\nspec:\n  devices:\n    "
      "requests:\n" +
      request;
  if (variant == 2) {
    claim +=
        "    - name: req-1\n      exactly:\n        deviceClassName: "
        "test-class\n    constraints:\n    - requests: [req-0, req-1]\n      "
        "matchAttribute: dra.example.com/numa\n";
  }
  return claim;
}

// (a)-(c): fill the cluster, one claim per pod, pod i on node i % 500.
void BM_AllocFill(benchmark::State& state) {
  const int variant = static_cast<int>(state.range(0));
  Scenario scenario;
  Load(scenario, ClusterYaml() + ClaimYaml(variant));
  std::vector<NodeInfo> nodes;
  for (int n = 0; n < kNodes; ++n)
    nodes.push_back({fmt::format("node-{}", n), {}});
  const api::ResourceClaim* claims[] = {&scenario.claims[0]};
  const int devices_per_claim = variant == 2 ? 2 : 1;
  const int pods = kNodes * kDevicesPerNode / devices_per_claim;
  int64_t allocations = 0;
  uint64_t steps = 0;
  for (auto _ : state) {
    AllocatedState allocated;
    Allocator allocator(scenario.inventory, allocated);
    for (int i = 0; i < pods; ++i) {
      auto outcome = allocator.Allocate(nodes[i % kNodes], claims);
      if (!outcome.ok() || !outcome->allocated) {
        state.SkipWithError("allocation failed before the cluster was full");
        return;
      }
      steps += outcome->stats.steps;
      allocated.AddAllocation(outcome->results[0]);
      ++allocations;
    }
  }
  state.counters["allocs_per_s"] = benchmark::Counter(
      static_cast<double>(allocations), benchmark::Counter::kIsRate);
  state.counters["steps_per_alloc"] =
      static_cast<double>(steps) / static_cast<double>(allocations);
}
BENCHMARK(BM_AllocFill)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// The floor: per node a vector of devices and an in-use flag each; every pod
// takes the first free device of its node.
void BM_FirstFreeScanFloor(benchmark::State& state) {
  struct FloorDevice {
    std::string name;
    bool in_use = false;
  };
  std::vector<std::vector<FloorDevice>> nodes(kNodes);
  for (int n = 0; n < kNodes; ++n) {
    for (int d = 0; d < kDevicesPerNode; ++d) {
      nodes[n].push_back({fmt::format("instance-{}", d)});
    }
  }
  int64_t allocations = 0;
  for (auto _ : state) {
    for (auto& node : nodes) {
      for (auto& device : node) device.in_use = false;
    }
    for (int i = 0; i < kNodes * kDevicesPerNode; ++i) {
      for (FloorDevice& device : nodes[i % kNodes]) {
        if (!device.in_use) {
          device.in_use = true;
          benchmark::DoNotOptimize(device.name.data());
          ++allocations;
          break;
        }
      }
    }
  }
  state.counters["allocs_per_s"] = benchmark::Counter(
      static_cast<double>(allocations), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FirstFreeScanFloor)->Unit(benchmark::kMillisecond);

// Times one Allocate of scenario.claims on node-1 (state reused per run).
void RunSingle(benchmark::State& state, Scenario& scenario) {
  AllocatedState allocated;
  for (const auto& claim : scenario.allocated) {
    allocated.AddAllocation(*claim.status.allocation);
  }
  std::vector<const api::ResourceClaim*> claims;
  for (const auto& claim : scenario.claims) claims.push_back(&claim);
  Allocator allocator(scenario.inventory, allocated);
  uint64_t steps = 0;
  for (auto _ : state) {
    auto outcome = allocator.Allocate(NodeInfo{"node-1", {}}, claims);
    if (!outcome.ok() || !outcome->allocated) {
      state.SkipWithError(
          outcome.ok() ? "unsatisfiable"
                       : std::string(outcome.status().message()).c_str());
      return;
    }
    steps = outcome->stats.steps;
  }
  state.counters["steps"] = static_cast<double>(steps);
}

std::string SliceHeader(std::string_view extra = "") {
  return fmt::format(
      "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: "
      "{{name: node-1}}\nspec:\n  driver: dra.example.com\n  nodeName: "
      "node-1\n  pool: {{name: node-1, generation: 1, resourceSliceCount: "
      "1}}\n{}",
      extra);
}

// (d) scheduler_perf's PartitionableBacktracking shape: counters cpu1..cpu8
// and 70Gi of memory; device-0 needs 20Gi, the others 10Gi, so the first
// fit (devices 0..5) runs out of memory and the search must drop device-0.
void BM_AllocPartitionableBacktracking(benchmark::State& state) {
  std::string counters;
  for (int i = 1; i <= 8; ++i)
    counters += fmt::format("      cpu{}: {{value: \"1\"}}\n", i);
  std::string yaml =
      DriverClass() +
      "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: "
      "{name: node-1-counters}\nspec:\n  driver: dra.example.com\n  nodeName: "
      "node-1\n  pool: {name: node-1, generation: 1, resourceSliceCount: "
      "2}\n  sharedCounters:\n  - name: gpu\n    counters:\n" +
      counters + "      memory: {value: 70Gi}\n" +
      "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: "
      "{name: node-1-devices}\nspec:\n  driver: dra.example.com\n  nodeName: "
      "node-1\n  pool: {name: node-1, generation: 1, resourceSliceCount: "
      "2}\n  devices:\n";
  for (int i = 0; i < 8; ++i) {
    yaml += fmt::format(
        "  - name: device-{}\n    consumesCounters:\n    - counterSet: gpu\n   "
        "   "
        "counters:\n        cpu{}: {{value: \"1\"}}\n        memory: {{value: "
        "{}Gi}}\n",
        i, i + 1, i == 0 ? 20 : 10);
  }
  yaml +=
      "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: "
      "{name: claim, namespace: default}\nspec:\n  devices:\n    requests:\n   "
      " "
      "- name: req-0\n      exactly: {deviceClassName: test-class, count: 7}\n";
  Scenario scenario;
  Load(scenario, yaml);
  RunSingle(state, scenario);
}
BENCHMARK(BM_AllocPartitionableBacktracking)->Unit(benchmark::kMicrosecond);

// (e1) 64 devices: 8 groups of 7 with one value each, then a group of 8; four
// requests of 2 devices under one matchAttribute fit only the last group.
// Plain first-fit backtracking would try every 2+2+2 split of each group.
void BM_AllocMatchAttributeGroups(benchmark::State& state) {
  std::string yaml = DriverClass() + SliceHeader("  devices:\n");
  for (int i = 0; i < 64; ++i) {
    yaml += fmt::format(
        "  - name: device-{}\n    attributes:\n      group: {{int: {}}}\n", i,
        std::min(i / 7, 8));
  }
  yaml +=
      "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: "
      "{name: claim, namespace: default}\nspec:\n  devices:\n    requests:\n";
  for (int r = 0; r < 4; ++r) {
    yaml += fmt::format(
        "    - name: req-{}\n      exactly: {{deviceClassName: test-class, "
        "count: 2}}\n",
        r);
  }
  yaml += "    constraints:\n    - matchAttribute: dra.example.com/group\n";
  Scenario scenario;
  Load(scenario, yaml);
  RunSingle(state, scenario);
}
BENCHMARK(BM_AllocMatchAttributeGroups)->Unit(benchmark::kMicrosecond);

// (e2) 16 devices with index 0..15; 3, 7 and 11 are allocated, so the only
// 4 contiguous free devices are 12..15, the last of C(13, 4) combinations.
void BM_AllocCelContiguous(benchmark::State& state) {
  std::string yaml = DriverClass() + SliceHeader("  devices:\n");
  for (int i = 0; i < 16; ++i) {
    yaml += fmt::format(
        "  - name: device-{}\n    attributes:\n      index: {{int: {}}}\n", i,
        i);
  }
  yaml +=
      "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: "
      "{name: in-use, namespace: default}\nspec:\n  devices:\n    requests:\n  "
      "  "
      "- name: req-0\n      exactly: {deviceClassName: test-class, count: 3}\n"
      "status:\n  allocation:\n    devices:\n      results:\n";
  for (int i : {3, 7, 11}) {
    yaml += fmt::format(
        "      - {{request: req-0, driver: dra.example.com, pool: node-1, "
        "device: "
        "device-{}}}\n",
        i);
  }
  yaml +=
      "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: "
      "{name: claim, namespace: default}\nspec:\n  devices:\n    requests:\n   "
      " "
      "- name: req-0\n      exactly: {deviceClassName: test-class, count: 4}\n"
      "    constraints:\n    - cel:\n        expression: >-\n          "
      "devices.map(d, d.attributes[\"dra.example.com\"].index).max() -\n       "
      "   "
      "devices.map(d, d.attributes[\"dra.example.com\"].index).min() == 3\n";
  Scenario scenario;
  Load(scenario, yaml);
  RunSingle(state, scenario);
}
BENCHMARK(BM_AllocCelContiguous)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dralloc::allocator
