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

}  // namespace
}  // namespace dralloc::scheduler
