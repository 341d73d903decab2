#include "scheduler/cluster_snapshot.h"

#include <gtest/gtest.h>

#include "scheduler/test_cluster.h"
#include "scheduler/test_manifests.h"

namespace dralloc::scheduler {
namespace {

std::string ClusterManifests() {
  namespace m = test_manifests;
  return m::Namespace() + m::Node("node-b") + m::Node("node-a") +
         m::GpuClass() + m::GpuSlice("node-a", 2) + m::GpuSlice("node-b", 1) +
         R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: on-b, namespace: ns}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}
status:
  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: node-b, device: gpu-0}]
)";
}

client::ObjectPtr AllocatedOnA(std::string name, std::string device) {
  api::ResourceClaim claim;
  claim.metadata.name = std::move(name);
  claim.metadata.namespace_ = "ns";
  claim.status.allocation.emplace();
  claim.status.allocation->devices.results.push_back(
      {.request = "gpu",
       .driver = "gpu.example.com",
       .pool = "node-a",
       .device = std::move(device)});
  return std::make_shared<const api::Object>(std::move(claim));
}

class ClusterSnapshotTest : public testing::Test {
 protected:
  void SetUp() override {
    cluster_.claims.AddHandler(
        [this](const client::ObjectPtr& old, const client::ObjectPtr& now) {
          snapshot_.ObserveClaim(client::ObjectKey(*(now ? now : old)), now);
        });
    cluster_.pods.AddHandler(
        [this](const client::ObjectPtr& old, const client::ObjectPtr& now) {
          snapshot_.ObservePod(client::ObjectKey(*(now ? now : old)), now);
        });
    cluster_.Load(ClusterManifests());
    cluster_.Pump();
    snapshot_.Refresh();
  }
  const allocator::NodeInfo& Node(size_t i) {
    return snapshot_.nodes()[i].info;
  }

  TestCluster cluster_;
  ClusterSnapshot snapshot_{cluster_.sources()};
};

TEST_F(ClusterSnapshotTest, NodesInNameOrderAndDevicesFromSlices) {
  ASSERT_EQ(snapshot_.nodes().size(), 2u);
  EXPECT_EQ(Node(0).name, "node-a");
  EXPECT_EQ(Node(1).name, "node-b");
  ASSERT_NE(snapshot_.nodes()[0].node, nullptr);
  EXPECT_EQ(snapshot_.inventory().devices().size(), 3u);
  // The allocated claim from the informer counts.
  EXPECT_EQ(snapshot_.DeviceFillPercent(Node(0)), 0);
  EXPECT_EQ(snapshot_.DeviceFillPercent(Node(1)), 100);
}

TEST_F(ClusterSnapshotTest, AssumptionsCountUntilRestored) {
  snapshot_.AssumeClaim("ns/x", AllocatedOnA("x", "gpu-0"));
  EXPECT_NE(snapshot_.Claim("ns/x"), nullptr);
  EXPECT_EQ(snapshot_.DeviceFillPercent(Node(0)), 50);
  // A new version with the same devices counts once.
  snapshot_.AssumeClaim("ns/x", AllocatedOnA("x", "gpu-0"));
  EXPECT_EQ(snapshot_.DeviceFillPercent(Node(0)), 50);
  snapshot_.AssumeClaim("ns/x", AllocatedOnA("x", "gpu-1"));
  EXPECT_EQ(snapshot_.DeviceFillPercent(Node(0)), 50);
  snapshot_.AssumeClaim("ns/y", AllocatedOnA("y", "gpu-0"));
  EXPECT_EQ(snapshot_.DeviceFillPercent(Node(0)), 100);
  snapshot_.RestoreClaim("ns/x");
  snapshot_.RestoreClaim("ns/y");
  EXPECT_EQ(snapshot_.Claim("ns/x"), nullptr);
  EXPECT_EQ(snapshot_.DeviceFillPercent(Node(0)), 0);
}

TEST_F(ClusterSnapshotTest, RefreshRebuildsOnlyWhatWasInvalidated) {
  api::Node node;
  node.metadata.name = "node-0";
  ASSERT_TRUE(cluster_.api.Create(api::Object(node)).ok());
  cluster_.Pump();
  snapshot_.Refresh();
  EXPECT_EQ(snapshot_.nodes().size(), 2u);  // not invalidated
  snapshot_.InvalidateNodes();
  snapshot_.Refresh();
  ASSERT_EQ(snapshot_.nodes().size(), 3u);
  EXPECT_EQ(Node(0).name, "node-0");

  ASSERT_TRUE(
      cluster_.api.Delete(client::ResourceSlicesResource(), "", "node-b", "")
          .ok());
  cluster_.Pump();
  snapshot_.Refresh();
  EXPECT_EQ(snapshot_.inventory().devices().size(), 3u);
  snapshot_.InvalidateInventory();
  snapshot_.Refresh();
  EXPECT_EQ(snapshot_.inventory().devices().size(), 2u);
}

client::ObjectPtr PodOn(std::string name, std::string node,
                        std::string cpu = "500m") {
  api::Pod pod;
  pod.metadata.name = std::move(name);
  pod.metadata.namespace_ = "ns";
  pod.spec.node_name = std::move(node);
  api::Container container;
  container.name = "main";
  container.resources.requests["cpu"] = *Quantity::Parse(cpu);
  pod.spec.containers.push_back(std::move(container));
  return std::make_shared<const api::Object>(std::move(pod));
}

TEST_F(ClusterSnapshotTest, BoundPodsCountOnTheirNodeUntilTheyFinish) {
  ASSERT_TRUE(cluster_.api.Create(*PodOn("p1", "node-a")).ok());
  ASSERT_TRUE(cluster_.api.Create(*PodOn("p2", "node-a", "1")).ok());
  ASSERT_TRUE(cluster_.api.Create(*PodOn("pending", "")).ok());
  cluster_.Pump();
  const NodeEntry& a = snapshot_.nodes()[0];
  EXPECT_EQ(a.pods.size(), 2u);
  EXPECT_EQ(a.usage.requested().milli_cpu, 1500);
  EXPECT_EQ(snapshot_.nodes()[1].pods.size(), 0u);

  api::Pod finished = std::get<api::Pod>(*PodOn("p2", "node-a", "1"));
  auto stored = cluster_.api.Get(client::PodsResource(), "ns", "p2");
  ASSERT_TRUE(stored.ok());
  finished.metadata = api::MetaOf(**stored);
  finished.status.phase = "Succeeded";
  ASSERT_TRUE(cluster_.api.UpdateStatus(api::Object(finished)).ok());
  cluster_.Pump();
  EXPECT_EQ(snapshot_.nodes()[0].pods.size(), 1u);
  EXPECT_EQ(snapshot_.nodes()[0].usage.requested().milli_cpu, 500);

  // A node rebuild keeps the pods.
  snapshot_.InvalidateNodes();
  snapshot_.Refresh();
  EXPECT_EQ(snapshot_.nodes()[0].pods.size(), 1u);
  EXPECT_EQ(snapshot_.nodes()[0].usage.requested().milli_cpu, 500);
}

TEST_F(ClusterSnapshotTest, AssumedPodCountsUntilForgottenOrBound) {
  ASSERT_TRUE(cluster_.api.Create(*PodOn("web", "")).ok());
  cluster_.Pump();
  snapshot_.AssumePod("ns/web", PodOn("web", "node-b"));
  EXPECT_EQ(snapshot_.nodes()[1].pods.size(), 1u);
  EXPECT_EQ(snapshot_.nodes()[1].usage.requested().milli_cpu, 500);
  snapshot_.ForgetPod("ns/web");
  EXPECT_EQ(snapshot_.nodes()[1].pods.size(), 0u);
  EXPECT_EQ(snapshot_.nodes()[1].usage.requested().milli_cpu, 0);

  snapshot_.AssumePod("ns/web", PodOn("web", "node-b"));
  ASSERT_TRUE(cluster_.api.Bind("ns", "web", "", "node-b").ok());
  cluster_.Pump();  // the informer's bound version replaces the assumption
  EXPECT_EQ(snapshot_.nodes()[1].pods.size(), 1u);
  EXPECT_EQ(snapshot_.nodes()[1].usage.requested().milli_cpu, 500);
  snapshot_.ForgetPod("ns/web");  // no longer assumed: no effect
  EXPECT_EQ(snapshot_.nodes()[1].pods.size(), 1u);
}

}  // namespace
}  // namespace dralloc::scheduler
