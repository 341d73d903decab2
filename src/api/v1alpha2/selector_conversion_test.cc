#include "api/v1alpha2/selector_conversion.h"

#include <gtest/gtest.h>

namespace dralloc::api::v1alpha2 {
namespace {

constexpr char kDriver[] = "gpu.example.com";

TEST(ToV1SelectorTest, RewritesEachAttributeAndKeepsTheRest) {
  EXPECT_EQ(*ToV1Selector("true", kDriver), "true");
  EXPECT_EQ(*ToV1Selector(R"(attributes.bool["healthy"])", kDriver),
            R"(device.attributes["gpu.example.com"].healthy)");
  EXPECT_EQ(
      *ToV1Selector(
          R"(attributes.quantity["memory"].isGreaterThan(quantity("16Gi")) && attributes.string.model == "A100")",
          kDriver),
      R"(device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("16Gi")) && device.attributes["gpu.example.com"].model == "A100")");
  EXPECT_EQ(
      *ToV1Selector(
          R"(attributes.version["driver"].isGreaterThan(semver("1.0.0")))",
          kDriver),
      R"(device.attributes["gpu.example.com"].driver.isGreaterThan(semver("1.0.0")))");
}

TEST(ToV1SelectorTest, RefusesWhatHasNoV1Form) {
  EXPECT_EQ(
      ToV1Selector(R"("a" in attributes.int)", kDriver).status().message(),
      "selector: attributes.int is used as a whole; only one attribute "
      "(attributes.int[\"name\"]) has a v1 form");
  EXPECT_EQ(ToV1Selector(R"(attributes.int["driver-version"] > 1)", kDriver)
                .status()
                .message(),
            "selector: attributes.int[\"driver-version\"]: a v1 attribute "
            "name must be a C identifier");
  EXPECT_FALSE(ToV1Selector("attributes == 1", kDriver).ok());
  EXPECT_FALSE(ToV1Selector(R"(attributes.int["x"] +)", kDriver).ok());
}

}  // namespace
}  // namespace dralloc::api::v1alpha2
