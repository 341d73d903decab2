// Embedding the cluster simulation (docs/simulation.md): load a cluster,
// schedule its pending pods with the real scheduling framework, ask "what if
// I added a node?" in a fork, and revert. Built and run as the test
// dralloc_embed_simulation_example; exits 1 if an answer is not the expected
// one.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "allocator/offline_allocation.h"
#include "api/object.h"
#include "simulator/cluster_simulation.h"

namespace {

using dralloc::simulator::ClusterSimulation;
using dralloc::simulator::SimulatedPlacement;

// One node with one GPU, two pods that each want a GPU of their own.
constexpr std::string_view kCluster = R"(
apiVersion: v1
kind: Node
metadata: {name: node-a}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: ml}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: p2, namespace: ml}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: c, image: busybox}]
)";

// A node named `name` publishing one GPU in a pool of its own.
dralloc::api::ResourceSlice GpuSlice(const std::string& name) {
  dralloc::api::ResourceSlice slice;
  slice.metadata.name = name + "-gpus";
  slice.spec.driver = "gpu.example.com";
  slice.spec.node_name = name;
  slice.spec.pool.name = name;
  slice.spec.pool.generation = 1;
  slice.spec.pool.resource_slice_count = 1;
  dralloc::api::Device gpu;
  gpu.name = "gpu-0";
  slice.spec.devices.push_back(gpu);
  return slice;
}

bool Check(bool ok, const char* what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  return ok;
}

}  // namespace

int main() {
  auto objects = dralloc::allocator::DecodeManifests(kCluster, "kCluster");
  if (!objects.ok()) {
    std::fprintf(stderr, "%s\n", objects.status().ToString().c_str());
    return 1;
  }
  // Create also creates the claims of the pods' templates, as the claim
  // controller would.
  auto created = ClusterSimulation::Create(std::move(*objects));
  if (!created.ok()) {
    std::fprintf(stderr, "%s\n", created.status().ToString().c_str());
    return 1;
  }
  ClusterSimulation& simulation = **created;
  bool ok = true;

  // Schedule every pending pod as the scheduler would: p1 gets the GPU.
  for (const std::string& pod : simulation.PendingPods()) {
    SimulatedPlacement placement = simulation.SchedulePod(pod);
    std::printf("%s: %s\n", pod.c_str(),
                placement.scheduled ? placement.node.c_str()
                                    : placement.reason.c_str());
  }
  ok &= Check(simulation.PendingPods() == std::vector<std::string>{"ml/p2"},
              "p2 waits for a GPU");

  // What if we added a node with one GPU? Fork, try, look, revert.
  const size_t mark = simulation.StartSimulation();
  dralloc::api::Node node_b;
  node_b.metadata.name = "node-b";
  ok &= Check(simulation.SimulateAddNode(node_b, {GpuSlice("node-b")}).ok(),
              "node-b added");
  ok &= Check(simulation.SimulateBindPod("ml/p2", "node-b").ok(),
              "p2 binds to node-b (its claim is allocated there)");
  ok &= Check(!simulation.SimulateRemoveNode("node-b").ok(),
              "node-b cannot be removed while p2 runs on it");
  ok &= Check(simulation.SimulateEvictPod("ml/p2").ok(),
              "p2 evicted (its claim is deallocated)");
  ok &= Check(simulation.SimulateRemoveNode("node-b").ok(),
              "node-b removed once empty");
  simulation.Revert(mark);

  ok &= Check(simulation.NodeNames() == std::vector<std::string>{"node-a"},
              "after Revert only node-a exists");
  ok &= Check(
      simulation.PodsOnNode("node-a") == std::vector<std::string>{"ml/p1"},
      "p1 still runs on node-a");
  return ok ? 0 : 1;
}
