// SlicePublisher against a validating in-memory API: creates the pool once,
// leaves a matching pool alone, repairs deleted, changed and stale slices
// (bumping the generation), and keeps doing so in the background.
#include "exampledriver/slice_publisher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "client/memory_api_client.h"
#include "client/node_identity_api_client.h"
#include "exampledriver/gpu_inventory.h"

namespace dralloc::exampledriver {
namespace {

using std::chrono::milliseconds;

std::vector<api::ResourceSliceSpec> Desired(const std::string& node, int gpus,
                                            int partitions) {
  auto inventory =
      GpuInventory::Create({node, "gpu.example.com", gpus, partitions});
  EXPECT_TRUE(inventory.ok());
  return inventory->SliceSpecs();
}

std::vector<api::ResourceSlice> SlicesOf(client::ApiClient& api,
                                         const std::string& node) {
  std::vector<api::ResourceSlice> out;
  auto list = api.List(client::ResourceSlicesResource());
  EXPECT_TRUE(list.ok());
  for (const auto& object : list->items) {
    const auto& slice = std::get<api::ResourceSlice>(*object);
    if (slice.spec.node_name == node) out.push_back(slice);
  }
  return out;
}

class SlicePublisherTest : public ::testing::Test {
 protected:
  void TearDown() override {
    // Each publisher read only what the Node authorizer lets its node read.
    EXPECT_EQ(node_a_.refused(), std::vector<std::string>{});
    EXPECT_EQ(node_b_.refused(), std::vector<std::string>{});
  }

  client::MemoryApiClient api_{client::MemoryApiOptions{.validate = true}};
  // The publishers' clients, as system:node:node-a and system:node:node-b.
  client::testing::NodeIdentityApiClient node_a_{api_, "node-a"};
  client::testing::NodeIdentityApiClient node_b_{api_, "node-b"};
};

TEST_F(SlicePublisherTest, CreatesOnceThenLeavesAlone) {
  SlicePublisher publisher(&node_a_, Desired("node-a", 2, 2));
  auto first = publisher.Sync();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->created, 2);
  EXPECT_EQ(first->generation, 1);
  const int64_t revision = api_.revision();
  auto second = publisher.Sync();
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->changed());
  EXPECT_EQ(second->generation, 1);
  EXPECT_EQ(api_.revision(), revision);
  for (const auto& slice : SlicesOf(api_, "node-a")) {
    EXPECT_EQ(slice.spec.pool.name, "node-a");
    EXPECT_EQ(slice.spec.pool.resource_slice_count, 2);
  }
}

TEST_F(SlicePublisherTest, RepairsDeletedAndChangedSlices) {
  SlicePublisher publisher(&node_a_, Desired("node-a", 2, 2));
  ASSERT_TRUE(publisher.Sync().ok());
  auto slices = SlicesOf(api_, "node-a");
  ASSERT_EQ(slices.size(), 2u);
  ASSERT_TRUE(api_.Delete(client::ResourceSlicesResource(), "",
                          slices[0].metadata.name, "")
                  .ok());
  auto repaired = publisher.Sync();
  ASSERT_TRUE(repaired.ok()) << repaired.status();
  EXPECT_EQ(repaired->generation, 2);
  EXPECT_EQ(repaired->created + repaired->updated, 2);

  slices = SlicesOf(api_, "node-a");
  ASSERT_EQ(slices.size(), 2u);
  api::ResourceSlice changed = slices[1];
  changed.spec.pool.generation = 7;
  if (!changed.spec.devices.empty()) {
    changed.spec.devices.pop_back();
  } else {
    changed.spec.shared_counters.pop_back();
  }
  ASSERT_TRUE(api_.Update(changed).ok());
  auto again = publisher.Sync();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->generation, 8);
  for (const auto& slice : SlicesOf(api_, "node-a")) {
    EXPECT_EQ(slice.spec.pool.generation, 8);
  }
  EXPECT_FALSE(publisher.Sync()->changed());
}

TEST_F(SlicePublisherTest, ShrinkingDeletesStaleSlicesOnlyOfThisNode) {
  SlicePublisher other(&node_b_, Desired("node-b", 1, 0));
  ASSERT_TRUE(other.Sync().ok());
  {
    SlicePublisher big(&node_a_, Desired("node-a", 2, 2));
    ASSERT_TRUE(big.Sync().ok());
  }
  SlicePublisher small(&node_a_, Desired("node-a", 3, 0));
  auto outcome = small.Sync();
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->generation, 2);
  EXPECT_EQ(outcome->updated, 1);
  EXPECT_EQ(outcome->deleted, 1);
  auto slices = SlicesOf(api_, "node-a");
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0].spec.devices.size(), 3u);
  EXPECT_EQ(SlicesOf(api_, "node-b").size(), 1u);
  EXPECT_FALSE(other.Sync()->changed());
}

TEST_F(SlicePublisherTest, BackgroundLoopRestoresWipedSlices) {
  SlicePublisher publisher(&node_a_, Desired("node-a", 1, 0));
  ASSERT_TRUE(publisher.Sync().ok());
  publisher.Start(milliseconds(20));
  // As the node agent does at its start: wipe the node's slices.
  for (const auto& slice : SlicesOf(api_, "node-a")) {
    ASSERT_TRUE(api_.Delete(client::ResourceSlicesResource(), "",
                            slice.metadata.name, "")
                    .ok());
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (SlicesOf(api_, "node-a").empty() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  publisher.Stop();
  auto slices = SlicesOf(api_, "node-a");
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0].spec.pool.generation, 2);
}

}  // namespace
}  // namespace dralloc::exampledriver
