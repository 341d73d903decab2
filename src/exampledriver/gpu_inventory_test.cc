// GpuInventory: the published slices match the goldens in tests/driver/
// (regenerate with DRALLOC_UPDATE_GOLDEN=1) and pass API validation.
#include "exampledriver/gpu_inventory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "api/codec.h"
#include "api/struct_codec.h"
#include "api/validation/validation.h"
#include "exampledriver/device_health_list.h"

namespace dralloc::exampledriver {
namespace {

struct GoldenCase {
  std::string file;
  int gpus;
  int partitions;
};

// The slices as the API would store them, named by position.
std::vector<api::ResourceSlice> Slices(const GpuInventory& inventory) {
  std::vector<api::ResourceSlice> slices;
  const auto specs = inventory.SliceSpecs();
  for (size_t i = 0; i < specs.size(); ++i) {
    api::ResourceSlice slice;
    slice.api_version = "resource.k8s.io/v1";
    slice.kind = "ResourceSlice";
    slice.metadata.name = "node-a-gpu.example.com-" + std::to_string(i);
    slice.spec = specs[i];
    slice.spec.pool.generation = 1;
    slice.spec.pool.resource_slice_count = static_cast<int64_t>(specs.size());
    slices.push_back(std::move(slice));
  }
  return slices;
}

class GpuInventoryGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GpuInventoryGolden, MatchesGoldenAndValidates) {
  auto inventory = GpuInventory::Create(
      {"node-a", "gpu.example.com", GetParam().gpus, GetParam().partitions});
  ASSERT_TRUE(inventory.ok()) << inventory.status();
  api::Json list = api::Json::array();
  for (const api::ResourceSlice& slice : Slices(*inventory)) {
    const api::Object object = slice;
    EXPECT_EQ(api::ToString(api::Validate(object)), "") << slice.metadata.name;
    auto json = api::EncodeObject(object, "resource.k8s.io/v1");
    ASSERT_TRUE(json.ok()) << json.status();
    list.push_back(*json);
  }
  const std::string actual = list.dump(2) + "\n";
  const std::string path = "tests/driver/" + GetParam().file;
  if (std::getenv("DRALLOC_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << actual;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "golden " << path;
}

INSTANTIATE_TEST_SUITE_P(
    Goldens, GpuInventoryGolden,
    ::testing::Values(GoldenCase{"slices-gpus-2.json", 2, 0},
                      GoldenCase{"slices-gpus-2-partitions-2.json", 2, 2}),
    [](const auto& info) {
      return "Gpus" + std::to_string(info.param.gpus) + "Partitions" +
             std::to_string(info.param.partitions);
    });

TEST(GpuInventory, LargeInventoriesSplitIntoValidSlices) {
  auto inventory = GpuInventory::Create({"node-a", "gpu.example.com", 20, 4});
  ASSERT_TRUE(inventory.ok());
  const auto slices = Slices(*inventory);
  // 20 counter sets (8 per slice) and 100 devices (64 per slice).
  ASSERT_EQ(slices.size(), 5u);
  EXPECT_EQ(slices[0].spec.shared_counters.size(), 8u);
  EXPECT_EQ(slices[2].spec.shared_counters.size(), 4u);
  EXPECT_EQ(slices[3].spec.devices.size(), 64u);
  EXPECT_EQ(slices[4].spec.devices.size(), 36u);
  for (const auto& slice : slices) {
    EXPECT_EQ(api::ToString(api::Validate(api::Object(slice))), "");
  }
}

TEST(GpuInventory, UuidsAreStablePerNode) {
  EXPECT_EQ(GpuInventory::DeviceUuid("node-a", "gpu-0"),
            GpuInventory::DeviceUuid("node-a", "gpu-0"));
  EXPECT_NE(GpuInventory::DeviceUuid("node-a", "gpu-0"),
            GpuInventory::DeviceUuid("node-b", "gpu-0"));
  EXPECT_NE(GpuInventory::DeviceUuid("node-a", "gpu-0"),
            GpuInventory::DeviceUuid("node-a", "gpu-1"));
  EXPECT_EQ(GpuInventory::DeviceUuid("node-a", "gpu-0").size(), 40u);
}

TEST(GpuInventory, RejectsBadOptions) {
  EXPECT_FALSE(GpuInventory::Create({"", "gpu.example.com", 1, 0}).ok());
  EXPECT_FALSE(GpuInventory::Create({"Node_A", "gpu.example.com", 1, 0}).ok());
  EXPECT_FALSE(GpuInventory::Create({"node-a", "", 1, 0}).ok());
  EXPECT_FALSE(GpuInventory::Create({"node-a", "gpu.example.com", 0, 0}).ok());
  auto bad = GpuInventory::Create({"node-a", "gpu.example.com", 1, -1});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--partitions"), std::string::npos);
}

TEST(DeviceHealthList, UnhealthyKnob) {
  auto inventory = GpuInventory::Create({"node-a", "gpu.example.com", 2, 1});
  ASSERT_TRUE(inventory.ok());
  auto list = DeviceHealthList(*inventory, {"gpu-1-full"}, 42);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 4u);  // two GPUs: partition-0 and full each
  for (const auto& device : *list) {
    EXPECT_EQ(device.pool_name, "node-a");
    EXPECT_EQ(device.last_updated_unix_seconds, 42);
    EXPECT_EQ(device.health, device.device_name == "gpu-1-full"
                                 ? kubeletplugin::DeviceHealthStatus::kUnhealthy
                                 : kubeletplugin::DeviceHealthStatus::kHealthy)
        << device.device_name;
  }
  auto unknown = DeviceHealthList(*inventory, {"gpu-9"}, 0);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "--unhealthy: Invalid value: \"gpu-9\": no such device on this "
            "node");
}

}  // namespace
}  // namespace dralloc::exampledriver
