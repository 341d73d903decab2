#include "api/v1alpha2/slice_conversion.h"

#include <gtest/gtest.h>

#include <string>

#include "api/validation/validation.h"

namespace dralloc::api::v1alpha2 {
namespace {

ResourceSlice Slice() {
  ResourceSlice slice;
  slice.metadata.name = "worker-0-gpu";
  slice.node_name = "worker-0";
  slice.driver_name = "gpu.example.com";
  NamedResourcesInstance gpu;
  gpu.name = "gpu-0";
  auto add = [&gpu](std::string name) -> NamedResourcesAttribute& {
    gpu.attributes.emplace_back();
    gpu.attributes.back().name = std::move(name);
    return gpu.attributes.back();
  };
  add("memory").quantity = *Quantity::Parse("40Gi");
  add("healthy").bool_value = true;
  add("numa").int_value = 1;
  add("cores").int_slice = NamedResourcesIntSlice{{0, 1}};
  add("model").string_value = "a100";
  add("tags").string_slice = NamedResourcesStringSlice{{"nvlink"}};
  add("firmware").version = "2.0.1";
  slice.named_resources = NamedResourcesResources{{gpu}};
  return slice;
}

TEST(SliceConversionTest, OnePoolPerNodeAndEveryAttributeType) {
  StatusOr<api::ResourceSlice> converted = ToV1ResourceSlice(Slice());
  ASSERT_TRUE(converted.ok()) << converted.status();
  const api::ResourceSlice& v1 = *converted;
  EXPECT_EQ(v1.spec.driver, "gpu.example.com");
  EXPECT_EQ(v1.spec.node_name, "worker-0");
  EXPECT_EQ(v1.spec.pool.name, "worker-0");
  EXPECT_EQ(v1.spec.pool.resource_slice_count, 1);
  ASSERT_EQ(v1.spec.devices.size(), 1u);
  const api::Device& device = v1.spec.devices[0];
  EXPECT_EQ(device.name, "gpu-0");
  EXPECT_EQ(device.capacity.at("memory").value, *Quantity::Parse("40Gi"));
  EXPECT_FALSE(device.attributes.contains("memory"));
  EXPECT_EQ(device.attributes.at("healthy").bool_value, true);
  EXPECT_EQ(device.attributes.at("numa").int_value, 1);
  EXPECT_EQ(device.attributes.at("cores").ints, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(device.attributes.at("model").string_value, "a100");
  EXPECT_EQ(device.attributes.at("tags").strings,
            (std::vector<std::string>{"nvlink"}));
  EXPECT_EQ(device.attributes.at("firmware").version_value, "2.0.1");
  // The result is a valid v1 slice.
  EXPECT_TRUE(api::ValidateResourceSlice(v1).empty())
      << api::ToString(api::ValidateResourceSlice(v1));
}

TEST(SliceConversionTest, RefusesWhatHasNoV1Form) {
  ResourceSlice no_node = Slice();
  no_node.node_name.clear();
  StatusOr<api::ResourceSlice> converted = ToV1ResourceSlice(no_node);
  ASSERT_FALSE(converted.ok());
  EXPECT_NE(std::string(converted.status().message()).find("nodeName"),
            std::string::npos);
  ResourceSlice no_model = Slice();
  no_model.named_resources.reset();
  EXPECT_FALSE(ToV1ResourceSlice(no_model).ok());
  // A 1.30 attribute name that is no v1 name.
  ResourceSlice hyphen = Slice();
  hyphen.named_resources->instances[0].attributes[1].name = "driver-version";
  converted = ToV1ResourceSlice(hyphen);
  ASSERT_FALSE(converted.ok());
  EXPECT_NE(std::string(converted.status().message()).find("driver-version"),
            std::string::npos)
      << converted.status();
}

}  // namespace
}  // namespace dralloc::api::v1alpha2
