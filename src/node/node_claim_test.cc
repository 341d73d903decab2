#include "node/node_claim.h"

#include <gtest/gtest.h>

namespace dralloc::node {
namespace {

api::ObjectMeta Meta(std::string uid) {
  api::ObjectMeta meta;
  meta.name = "c";
  meta.namespace_ = "ns";
  meta.uid = std::move(uid);
  return meta;
}

api::DeviceRequestAllocationResult Result(std::string driver,
                                          std::vector<std::string> skips = {}) {
  api::DeviceRequestAllocationResult result;
  result.request = "gpu";
  result.driver = std::move(driver);
  result.pool = "node-a";
  result.device = "gpu-0";
  result.skip_node_operations = std::move(skips);
  return result;
}

TEST(NodeClaimTest, V1DriversComeFromAllocationResultsWithSkips) {
  api::ResourceClaim claim;
  claim.metadata = Meta("u1");
  claim.metadata.owner_references.push_back(
      {"v1", "Pod", "p", "pod-uid", true, true});
  api::AllocationResult allocation;
  allocation.devices.results = {Result("a.example.com"),
                                Result("b.example.com", {"*"}),
                                Result("a.example.com", {"*"})};
  claim.status.allocation = allocation;
  claim.status.reserved_for.push_back({"", "pods", "p", "pod-uid"});

  NodeClaim node = NodeClaim::Of(claim, "pod-uid");
  EXPECT_EQ(node.uid, "u1");
  EXPECT_EQ(node.namespace_, "ns");
  EXPECT_EQ(node.name, "c");
  EXPECT_TRUE(node.allocated);
  EXPECT_TRUE(node.reserved_for_pod);
  EXPECT_TRUE(node.owned_by_pod);
  ASSERT_EQ(node.drivers.size(), 2u);
  // One of a's devices needs the calls, so a gets them; b skips both.
  EXPECT_FALSE(node.drivers["a.example.com"].skip_prepare);
  EXPECT_FALSE(node.drivers["a.example.com"].prepared);
  EXPECT_TRUE(node.drivers["b.example.com"].skip_prepare);
  EXPECT_TRUE(node.drivers["b.example.com"].skip_unprepare);
  EXPECT_TRUE(node.drivers["b.example.com"].prepared);

  NodeClaim other = NodeClaim::Of(claim, "other-uid");
  EXPECT_FALSE(other.reserved_for_pod);
  EXPECT_FALSE(other.owned_by_pod);
}

TEST(NodeClaimTest, ClassicDriversComeFromResourceHandles) {
  api::v1alpha2::ResourceClaim claim;
  claim.metadata = Meta("u2");
  claim.status.driver_name = "gpu.classic.example.com";
  claim.status.allocation.emplace();
  claim.status.allocation->resource_handles = {
      {"gpu.classic.example.com", R"({"nodeName":"node-a"})", std::nullopt},
      {"nic.example.com", "", std::nullopt}};
  claim.status.reserved_for.push_back({"", "pods", "p", "pod-uid"});

  NodeClaim node = NodeClaim::Of(claim, "pod-uid");
  EXPECT_TRUE(node.allocated);
  EXPECT_TRUE(node.reserved_for_pod);
  EXPECT_FALSE(node.owned_by_pod);
  ASSERT_EQ(node.drivers.size(), 2u);
  EXPECT_TRUE(node.drivers.contains("gpu.classic.example.com"));
  EXPECT_TRUE(node.drivers.contains("nic.example.com"));
  EXPECT_FALSE(node.drivers["nic.example.com"].prepared);
}

TEST(NodeClaimTest, ClassicClaimWithoutHandlesUsesStatusDriverName) {
  api::v1alpha2::ResourceClaim claim;
  claim.metadata = Meta("u3");
  claim.status.driver_name = "gpu.classic.example.com";
  claim.status.allocation.emplace();
  NodeClaim node = NodeClaim::Of(claim);
  ASSERT_EQ(node.drivers.size(), 1u);
  EXPECT_TRUE(node.drivers.contains("gpu.classic.example.com"));
  EXPECT_FALSE(node.reserved_for_pod);  // no pod asked

  claim.status.allocation.reset();
  NodeClaim unallocated = NodeClaim::Of(claim);
  EXPECT_FALSE(unallocated.allocated);
  EXPECT_TRUE(unallocated.drivers.empty());
}

}  // namespace
}  // namespace dralloc::node
