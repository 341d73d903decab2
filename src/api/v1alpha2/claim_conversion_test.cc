#include "api/v1alpha2/claim_conversion.h"

#include <gtest/gtest.h>

namespace dralloc::api::v1alpha2 {
namespace {

constexpr char kDriver[] = "gpu.named.example.com";

ResourceClass StructuredClass() {
  ResourceClass out;
  out.metadata.name = "named-gpu";
  out.driver_name = kDriver;
  out.structured_parameters = true;
  return out;
}

TEST(ClaimConversionTest, ClassSelectsItsDriverAndFilter) {
  ResourceClassParameters parameters;
  parameters.filters.push_back(
      {"other.example.com", NamedResourcesSelector{"false"}});
  parameters.filters.push_back(
      {kDriver, NamedResourcesSelector{R"(attributes.bool["healthy"])"}});
  parameters.vendor_parameters.push_back(
      {kDriver, RawJson{R"({"profile":"standard"})", false}});
  auto converted = ToV1DeviceClass(StructuredClass(), &parameters);
  ASSERT_TRUE(converted.ok()) << converted.status();
  EXPECT_EQ(converted->metadata.name, "named-gpu");
  ASSERT_EQ(converted->spec.selectors.size(), 2u);
  EXPECT_EQ(converted->spec.selectors[0].cel->expression,
            R"(device.driver == "gpu.named.example.com")");
  EXPECT_EQ(converted->spec.selectors[1].cel->expression,
            R"(device.attributes["gpu.named.example.com"].healthy)");
  ASSERT_EQ(converted->spec.config.size(), 1u);
  EXPECT_EQ(converted->spec.config[0].opaque->driver, kDriver);
}

TEST(ClaimConversionTest, EachRequestBecomesOneDeviceOfTheClass) {
  ResourceClaimParameters parameters;
  DriverRequests requests;
  requests.driver_name = kDriver;
  requests.vendor_parameters = RawJson{R"({"mode":"training"})", false};
  requests.requests.push_back({std::nullopt, NamedResourcesSelector{"true"}});
  requests.requests.push_back(
      {RawJson{R"({"slot":1})", false},
       NamedResourcesSelector{R"(attributes.int["cores"] >= 8)"}});
  parameters.driver_requests.push_back(requests);
  std::vector<std::string> lost;
  auto spec = ToV1ClaimSpec(StructuredClass(), &parameters, lost);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(lost, std::vector<std::string>{"shareable: false"});
  ASSERT_EQ(spec->devices.requests.size(), 2u);
  EXPECT_EQ(spec->devices.requests[0].name, "r0-0");
  EXPECT_TRUE(spec->devices.requests[0].exactly->selectors.empty());
  EXPECT_EQ(spec->devices.requests[1].exactly->selectors[0].cel->expression,
            R"(device.attributes["gpu.named.example.com"].cores >= 8)");
  EXPECT_EQ(spec->devices.requests[1].exactly->count, 1);
  // The driver's parameters for both requests first, then the request's.
  ASSERT_EQ(spec->devices.config.size(), 2u);
  EXPECT_EQ(spec->devices.config[0].requests,
            (std::vector<std::string>{"r0-0", "r0-1"}));
  EXPECT_EQ(spec->devices.config[1].requests, std::vector<std::string>{"r0-1"});

  // No parameters: 1.30's default, one device of the class.
  lost.clear();
  auto defaults = ToV1ClaimSpec(StructuredClass(), nullptr, lost);
  ASSERT_TRUE(defaults.ok());
  EXPECT_TRUE(lost.empty());
  ASSERT_EQ(defaults->devices.requests.size(), 1u);
  EXPECT_EQ(defaults->devices.requests[0].exactly->device_class_name,
            "named-gpu");
}

TEST(ClaimConversionTest, WhatHasNoV1FormNamesItsField) {
  ResourceClaimParameters parameters;
  parameters.driver_requests.push_back(
      {"other.example.com",
       std::nullopt,
       {{std::nullopt, NamedResourcesSelector{"true"}}}});
  std::vector<std::string> lost;
  EXPECT_EQ(
      ToV1ClaimSpec(StructuredClass(), &parameters, lost).status().message(),
      "driverRequests[0].driverName: Invalid value: "
      "\"other.example.com\": a v1 request takes devices of the class's "
      "driver gpu.named.example.com only");
  parameters.driver_requests[0].driver_name = kDriver;
  parameters.driver_requests[0].requests[0].named_resources->selector =
      R"("x" in attributes.int)";
  EXPECT_TRUE(ToV1ClaimSpec(StructuredClass(), &parameters, lost)
                  .status()
                  .message()
                  .starts_with("driverRequests[0].requests[0].namedResources: "
                               "selector: attributes.int is used as a whole"));
}

}  // namespace
}  // namespace dralloc::api::v1alpha2
