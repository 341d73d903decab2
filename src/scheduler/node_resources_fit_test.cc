#include "scheduler/node_resources_fit.h"

#include <gtest/gtest.h>

#include "scheduler/node_ports.h"
#include "scheduler/node_resources_balanced_allocation.h"

namespace dralloc::scheduler {
namespace {

// Every reason at once, in upstream's order (extended resources by name).
TEST(NodeResourcesFitTest, ReasonOrder) {
  api::Node node;
  node.status.allocatable = {{"pods", Quantity::FromInt64(0)}};
  NodeUsage usage;
  usage.Reset(node);
  const ResourceAmounts pod{
      .milli_cpu = 1,
      .memory = 1,
      .ephemeral_storage = 1,
      .pods = 1,
      .scalar = {{"b.example.com/x", 1}, {"a.example.com/y", 1}}};
  EXPECT_EQ(
      InsufficientResources(pod, usage),
      (std::vector<std::string>{
          "Too many pods", "Insufficient cpu", "Insufficient memory",
          "Insufficient ephemeral-storage", "Insufficient a.example.com/y",
          "Insufficient b.example.com/x"}));
  // A pod requesting nothing is only counted.
  EXPECT_EQ(InsufficientResources(ResourceAmounts{.pods = 1}, usage),
            std::vector<std::string>{"Too many pods"});
}

TEST(NodeResourcesBalancedAllocationTest, StandardDeviation) {
  const std::vector<int64_t> allocatable = {100, 100, 100};
  EXPECT_EQ(BalancedResourceScore(std::vector<int64_t>{50, 50}, allocatable),
            100);
  EXPECT_EQ(BalancedResourceScore(std::vector<int64_t>{20, 80}, allocatable),
            70);
  // Fractions are capped at 1.
  EXPECT_EQ(BalancedResourceScore(std::vector<int64_t>{0, 300}, allocatable),
            50);
  // Three resources: std of {0, 0.5, 1} is sqrt(1/6) = 0.408.
  EXPECT_EQ(
      BalancedResourceScore(std::vector<int64_t>{0, 50, 100}, allocatable), 59);
  // A resource the node does not have is left out.
  EXPECT_EQ(BalancedResourceScore(std::vector<int64_t>{20, 80},
                                  std::vector<int64_t>{100, 0}),
            100);
}

TEST(NodePortsTest, Conflicts) {
  const std::map<HostPort, int> used = {{{"10.0.0.1", "TCP", 80}, 1},
                                        {{"0.0.0.0", "UDP", 53}, 1}};
  EXPECT_TRUE(HostPortConflicts({"10.0.0.1", "TCP", 80}, used));
  EXPECT_TRUE(HostPortConflicts({"0.0.0.0", "TCP", 80}, used));
  EXPECT_FALSE(HostPortConflicts({"10.0.0.2", "TCP", 80}, used));
  EXPECT_FALSE(HostPortConflicts({"10.0.0.1", "UDP", 80}, used));
  EXPECT_TRUE(HostPortConflicts({"10.0.0.9", "UDP", 53}, used));
  EXPECT_FALSE(HostPortConflicts({"10.0.0.9", "TCP", 53}, used));
}

}  // namespace
}  // namespace dralloc::scheduler
