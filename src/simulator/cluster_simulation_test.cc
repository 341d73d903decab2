#include "simulator/cluster_simulation.h"

#include <gtest/gtest.h>

#include "allocator/offline_allocation.h"

namespace dralloc::simulator {
namespace {

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

std::unique_ptr<ClusterSimulation> Load(std::string_view yaml) {
  auto objects = allocator::DecodeManifests(yaml, "test");
  EXPECT_TRUE(objects.ok()) << objects.status();
  auto simulation = ClusterSimulation::Create(std::move(*objects));
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  return std::move(*simulation);
}

api::Node NamedNode(const std::string& name) {
  api::Node node;
  node.metadata.name = name;
  return node;
}

api::ResourceSlice OneGpuSlice(const std::string& node) {
  api::ResourceSlice slice;
  slice.metadata.name = node + "-gpus";
  slice.spec.driver = "gpu.example.com";
  slice.spec.node_name = node;
  slice.spec.pool.name = node;
  slice.spec.pool.generation = 1;
  slice.spec.pool.resource_slice_count = 1;
  api::Device device;
  device.name = "gpu-0";
  slice.spec.devices.push_back(device);
  return slice;
}

TEST(ClusterSimulationTest, SchedulesUntilDevicesRunOutAndRevertsANewNode) {
  auto simulation = Load(kCluster);
  ASSERT_EQ(simulation->PendingPods().size(), 2u);
  SimulatedPlacement first = simulation->SchedulePod("ml/p1");
  EXPECT_TRUE(first.scheduled) << first.reason;
  EXPECT_EQ(first.node, "node-a");
  SimulatedPlacement second = simulation->SchedulePod("ml/p2");
  EXPECT_FALSE(second.scheduled);
  EXPECT_FALSE(second.reason.empty());

  const size_t mark = simulation->StartSimulation();
  ASSERT_TRUE(
      simulation->SimulateAddNode(NamedNode("node-b"), {OneGpuSlice("node-b")})
          .ok());
  SimulatedPlacement on_new = simulation->SchedulePod("ml/p2");
  EXPECT_TRUE(on_new.scheduled) << on_new.reason;
  EXPECT_EQ(on_new.node, "node-b");
  simulation->Revert(mark);
  EXPECT_EQ(simulation->NodeNames(), std::vector<std::string>{"node-a"});
  EXPECT_EQ(simulation->PendingPods(), std::vector<std::string>{"ml/p2"});
}

TEST(ClusterSimulationTest, EvictDeallocatesAndRemoveNodeNeedsNoPods) {
  auto simulation = Load(kCluster);
  ASSERT_TRUE(simulation->SimulateBindPod("ml/p1", "node-a").ok());
  Status removed = simulation->SimulateRemoveNode("node-a");
  EXPECT_EQ(removed.code(), StatusCode::kFailedPrecondition) << removed;
  Status second = simulation->SimulateBindPod("ml/p2", "node-a");
  EXPECT_FALSE(second.ok());

  const size_t mark = simulation->StartSimulation();
  ASSERT_TRUE(simulation->SimulateEvictPod("ml/p1").ok());
  EXPECT_TRUE(simulation->SimulateBindPod("ml/p2", "node-a").ok());
  ASSERT_TRUE(simulation->SimulateEvictPod("ml/p2").ok());
  EXPECT_TRUE(simulation->SimulateRemoveNode("node-a").ok());
  EXPECT_TRUE(simulation->NodeNames().empty());
  simulation->Revert(mark);
  EXPECT_EQ(simulation->PodsOnNode("node-a"),
            std::vector<std::string>{"ml/p1"});
  EXPECT_FALSE(simulation->SimulateBindPod("ml/p2", "node-a").ok());
}

TEST(ClusterSimulationTest, RemovedNodeComesBackWithItsDevicesWithoutRebuild) {
  auto simulation = Load(kCluster);
  ASSERT_TRUE(
      simulation->SimulateAddNode(NamedNode("node-b"), {OneGpuSlice("node-b")})
          .ok());
  const uint64_t generation = simulation->Snapshot().inventory_generation();
  const size_t mark = simulation->StartSimulation();
  ASSERT_TRUE(simulation->SimulateRemoveNode("node-b").ok());
  EXPECT_EQ(simulation->Slices().size(), 1u);  // node-a's only
  EXPECT_EQ(simulation->SchedulePod("ml/p1").node, "node-a");
  EXPECT_FALSE(simulation->SchedulePod("ml/p2").scheduled);
  simulation->Revert(mark);
  // The slices of a removed node were unreachable, not rebuilt away.
  EXPECT_EQ(simulation->Snapshot().inventory_generation(), generation);
  EXPECT_EQ(simulation->Slices().size(), 2u);
  EXPECT_TRUE(simulation->SchedulePod("ml/p1").scheduled);
  EXPECT_TRUE(simulation->SchedulePod("ml/p2").scheduled);
}

TEST(ClusterSimulationTest, NodeAddedAgainWithOtherSlicesSeesOnlyThose) {
  auto simulation = Load(kCluster);
  ASSERT_TRUE(
      simulation->SimulateAddNode(NamedNode("node-b"), {OneGpuSlice("node-b")})
          .ok());
  ASSERT_TRUE(simulation->SimulateRemoveNode("node-b").ok());
  // The same name again, without devices: the old slice must not show.
  ASSERT_TRUE(simulation->SimulateAddNode(NamedNode("node-b"), {}).ok());
  EXPECT_EQ(simulation->SchedulePod("ml/p1").node, "node-a");
  SimulatedPlacement second = simulation->SchedulePod("ml/p2");
  EXPECT_FALSE(second.scheduled) << second.node;
}

TEST(ClusterSimulationTest, ScheduleOnlyOnNamedNodes) {
  auto simulation = Load(kCluster);
  ASSERT_TRUE(
      simulation->SimulateAddNode(NamedNode("node-b"), {OneGpuSlice("node-b")})
          .ok());
  const std::vector<std::string> only = {"node-b"};
  SimulatedPlacement placed = simulation->SchedulePod("ml/p1", &only);
  EXPECT_EQ(placed.node, "node-b") << placed.reason;
  SimulatedPlacement none = simulation->SchedulePod("ml/p2", &only);
  EXPECT_FALSE(none.scheduled);
  EXPECT_NE(none.reason.find("0/1 nodes are available"), std::string::npos)
      << none.reason;
}

TEST(ClusterSimulationTest, RevertedSchedulingRepeatsTheSameChoices) {
  auto simulation = Load(kCluster);
  for (const std::string name : {"node-b", "node-c", "node-d"}) {
    ASSERT_TRUE(
        simulation->SimulateAddNode(NamedNode(name), {OneGpuSlice(name)}).ok());
  }
  auto run = [&] {
    std::vector<std::string> nodes;
    for (const std::string pod : {"ml/p1", "ml/p2"}) {
      nodes.push_back(simulation->SchedulePod(pod).node);
    }
    return nodes;
  };
  const size_t mark = simulation->StartSimulation();
  const std::vector<std::string> first = run();
  simulation->Revert(mark);
  EXPECT_EQ(run(), first);
}

}  // namespace
}  // namespace dralloc::simulator
