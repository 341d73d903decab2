// Targeted allocator tests that golden case files cannot express: step
// budget, cancellation, inventory reuse, pruning effort, explanations.
#include "allocator/allocator.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "allocator/offline_allocation.h"

namespace dralloc::allocator {
namespace {

// `n` devices "device-0".. on node-1 in pool-1 of driver-a, with an int
// attribute `group` = min(i / group_size, max_group), an int attribute
// `index` = i, and a class selecting driver-a.
std::string Cluster(int n, int group_size, int max_group = 1 << 20) {
  std::string devices;
  for (int i = 0; i < n; ++i) {
    devices += fmt::format(
        "  - name: device-{}\n    attributes:\n      group: {{int: {}}}\n"
        "      index: {{int: {}}}\n",
        i, std::min(i / group_size, max_group), i);
  }
  return fmt::format(
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: "
      "class-a}}\nspec:\n  selectors:\n  - cel: {{expression: 'device.driver "
      "== \"driver-a\"'}}\n---\napiVersion: resource.k8s.io/v1\nkind: "
      "ResourceSlice\nmetadata: {{name: slice-1}}\nspec:\n  driver: driver-a\n"
      "  nodeName: node-1\n  pool: {{name: pool-1, generation: 1, "
      "resourceSliceCount: 1}}\n  devices:\n{}",
      devices);
}

std::string Claim(std::string_view name, std::string_view requests,
                  std::string_view constraints = "") {
  return fmt::format(
      "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: "
      "{{name: {}, namespace: default}}\nspec:\n  devices:\n    "
      "requests:\n{}{}",
      name, requests, constraints);
}

std::string Request(std::string_view name, int count) {
  return fmt::format(
      "    - name: {}\n      exactly: {{deviceClassName: class-a, count: "
      "{}}}\n",
      name, count);
}

StatusOr<OfflineAllocation> AllocateYaml(const std::string& yaml,
                                         AllocatorOptions options = {}) {
  auto objects = DecodeManifests(yaml, "test.yaml");
  if (!objects.ok()) return objects.status();
  return AllocateOffline(std::move(*objects), "node-1", options);
}

TEST(AllocatorTest, FiveOfFourIsRejectedWithoutSearching) {
  auto outcome = AllocateYaml(Cluster(4, 1) + Claim("c", Request("r", 5)));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_FALSE(outcome->allocation.allocated);
  // Upstream needs 16 allocateOne calls; the free-candidate bound cuts the
  // search at the first slot.
  EXPECT_LE(outcome->allocation.stats.steps, 3u);
  EXPECT_GE(outcome->allocation.stats.pruned, 1u);
  ASSERT_FALSE(outcome->allocation.explanation.empty());
  EXPECT_EQ(outcome->allocation.explanation[0],
            "claim default/c request \"r\": needs 5 of class \"class-a\" on "
            "node-1: 4 devices in 1 pool; 4 usable");
}

TEST(AllocatorTest, MatchAttributeValueGroupsArePruned) {
  // 8 groups of 7 devices, then one group of 8: only the last group can hold
  // 4 requests x 2 devices under one matchAttribute.
  std::string requests;
  for (int r = 0; r < 4; ++r) requests += Request(fmt::format("r{}", r), 2);
  std::string cluster = Cluster(64, 7, 8);
  auto outcome =
      AllocateYaml(cluster + Claim("c", requests,
                                   "    constraints:\n    - "
                                   "matchAttribute: driver-a/group\n"));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  ASSERT_TRUE(outcome->allocation.allocated);
  for (const auto& result :
       outcome->claims[0].status.allocation->devices.results) {
    int index = std::stoi(result.device.substr(7));
    EXPECT_GE(index, 56) << result.device;
  }
  EXPECT_LT(outcome->allocation.stats.steps, 500u);
}

TEST(AllocatorTest, StepBudgetEndsTheSearch) {
  // Two requests that each need 6 devices with a common group, where groups
  // have 11 devices: a long fruitless search without value pruning... use a
  // CEL constraint, which cannot be pruned, to force enumeration.
  auto outcome = AllocateYaml(
      Cluster(24, 24) +
          Claim("c", Request("r", 6),
                "    constraints:\n    - cel: {expression: 'size(devices) == "
                "7'}\n"),
      AllocatorOptions{.max_steps = 1000});
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(outcome.status().message().find("search limit reached"),
            std::string::npos);
}

TEST(AllocatorTest, CelConstraintPicksFirstContiguousWindow) {
  auto outcome = AllocateYaml(
      Cluster(16, 16) +
      Claim("c", Request("r", 4),
            "    constraints:\n    - cel: {expression: 'devices.map(d, "
            "d.attributes[\"driver-a\"].index).max() - devices.map(d, "
            "d.attributes[\"driver-a\"].index).min() == 3 && "
            "devices[0].attributes[\"driver-a\"].index % 8 == 6'}\n"));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  ASSERT_TRUE(outcome->allocation.allocated);
  std::vector<std::string> devices;
  for (const auto& r : outcome->claims[0].status.allocation->devices.results) {
    devices.push_back(r.device);
  }
  EXPECT_EQ(devices, (std::vector<std::string>{"device-6", "device-7",
                                               "device-8", "device-9"}));
}

TEST(AllocatorTest, PrefixClosedCelConstraintPrunesPartialSets) {
  // 8 groups of 7 devices and one of 8; 8 devices of one group via CEL.
  auto outcome = AllocateYaml(
      Cluster(64, 7, 8) +
      Claim("c", Request("r", 8),
            "    constraints:\n    - cel: {expression: 'devices.all(d, "
            "d.attributes[\"driver-a\"].group == "
            "devices[0].attributes[\"driver-a\"].group)'}\n"));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  ASSERT_TRUE(outcome->allocation.allocated);
  EXPECT_EQ(outcome->claims[0].status.allocation->devices.results[0].device,
            "device-56");
  EXPECT_LT(outcome->allocation.stats.steps, 5000u);
}

TEST(AllocatorTest, CancelledSearchStops) {
  std::atomic<bool> cancelled{true};
  auto outcome = AllocateYaml(Cluster(4, 1) + Claim("c", Request("r", 1)),
                              AllocatorOptions{.cancelled = &cancelled});
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kCancelled);
}

TEST(DeviceInventoryTest, UnchangedSlicesAreNotRepatched) {
  auto objects = DecodeManifests(Cluster(3, 1), "test.yaml");
  ASSERT_TRUE(objects.ok());
  api::DeviceClass device_class = std::get<api::DeviceClass>((*objects)[0]);
  api::ResourceSlice slice = std::get<api::ResourceSlice>((*objects)[1]);
  api::ResourceSlice other = slice;
  other.metadata.name = "slice-2";
  other.spec.pool.name = "pool-2";

  DeviceInventory inventory;
  inventory.Update({slice, other}, {}, {}, {device_class});
  EXPECT_EQ(inventory.last_repatched(), 2u);
  EXPECT_EQ(inventory.devices().size(), 6u);
  inventory.Update({slice, other}, {}, {}, {device_class});
  EXPECT_EQ(inventory.last_repatched(), 0u);
  other.spec.devices.pop_back();
  inventory.Update({slice, other}, {}, {}, {device_class});
  EXPECT_EQ(inventory.last_repatched(), 1u);
  EXPECT_EQ(inventory.devices().size(), 5u);
}

TEST(AllocatorTest, RepeatedAllocationsFillTheNode) {
  auto objects =
      DecodeManifests(Cluster(3, 1) + Claim("c", Request("r", 1)), "test.yaml");
  ASSERT_TRUE(objects.ok());
  DeviceInventory inventory;
  inventory.Update({std::get<api::ResourceSlice>((*objects)[1])}, {}, {},
                   {std::get<api::DeviceClass>((*objects)[0])});
  const auto& claim = std::get<api::ResourceClaim>((*objects)[2]);
  AllocatedState state;
  Allocator allocator(inventory, state);
  const api::ResourceClaim* claims[] = {&claim};
  for (int i = 0; i < 3; ++i) {
    auto outcome = allocator.Allocate(NodeInfo{"node-1", {}}, claims);
    ASSERT_TRUE(outcome.ok()) << outcome.status();
    ASSERT_TRUE(outcome->allocated) << i;
    EXPECT_EQ(outcome->results[0].devices.results[0].device,
              fmt::format("device-{}", i));
    state.AddAllocation(outcome->results[0]);
  }
  auto full = allocator.Allocate(NodeInfo{"node-1", {}}, claims);
  ASSERT_TRUE(full.ok());
  EXPECT_FALSE(full->allocated);
  EXPECT_NE(full->explanation[0].find("3 allocated to other claims; 0 usable"),
            std::string::npos)
      << full->explanation[0];
}

}  // namespace
}  // namespace dralloc::allocator
