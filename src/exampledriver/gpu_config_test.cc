// GpuConfig: accepted parameters and the env they give, and rejected ones
// with the field named.
#include "exampledriver/gpu_config.h"

#include <gtest/gtest.h>

namespace dralloc::exampledriver {
namespace {

struct Case {
  std::string json;
  std::vector<std::string> env;  // when accepted
  std::string error;             // when rejected: expected message
};

class GpuConfigTest : public ::testing::TestWithParam<Case> {};

TEST_P(GpuConfigTest, ParsesOrNamesTheField) {
  auto config = GpuConfig::Parse(GetParam().json, "p");
  if (!GetParam().error.empty()) {
    ASSERT_FALSE(config.ok());
    EXPECT_EQ(config.status().message(), GetParam().error);
    return;
  }
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->Env("GPU_DEVICE_0"), GetParam().env);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GpuConfigTest,
    ::testing::Values(
        Case{R"({})", {}, ""},
        Case{R"({"apiVersion":"gpu.resource.example.com/v1alpha1",)"
             R"("kind":"GpuConfig","sharing":{"strategy":"TimeSlicing"}})",
             {"GPU_DEVICE_0_SHARING_STRATEGY=TimeSlicing",
              "GPU_DEVICE_0_TIMESLICE_INTERVAL=Default"},
             ""},
        Case{R"({"sharing":{"strategy":"TimeSlicing",)"
             R"("timeSlicingConfig":{"interval":"Short"}}})",
             {"GPU_DEVICE_0_SHARING_STRATEGY=TimeSlicing",
              "GPU_DEVICE_0_TIMESLICE_INTERVAL=Short"},
             ""},
        Case{R"({"sharing":{"strategy":"SpacePartitioning",)"
             R"("spacePartitioningConfig":{"partitionCount":4}}})",
             {"GPU_DEVICE_0_SHARING_STRATEGY=SpacePartitioning",
              "GPU_DEVICE_0_PARTITION_COUNT=4"},
             ""},
        Case{R"([1])", {}, "p: Invalid value: must be a JSON object"},
        Case{R"({"colour":"red"})",
             {},
             "p.colour: Unsupported field: unknown field \"colour\""},
        Case{R"({"kind":"CpuConfig"})",
             {},
             "p.kind: Unsupported value: \"CpuConfig\": supported values: "
             "\"GpuConfig\""},
        Case{R"({"sharing":{}})", {}, "p.sharing.strategy: Required value"},
        Case{R"({"sharing":{"strategy":"Magic"}})",
             {},
             "p.sharing.strategy: Unsupported value: \"Magic\": supported "
             "values: \"TimeSlicing\", \"SpacePartitioning\""},
        Case{R"({"sharing":{"strategy":"TimeSlicing",)"
             R"("timeSlicingConfig":{"interval":"Forever"}}})",
             {},
             "p.sharing.timeSlicingConfig.interval: Unsupported value: "
             "\"Forever\": supported values: \"Default\", \"Short\", "
             "\"Medium\", \"Long\""},
        Case{R"({"sharing":{"strategy":"SpacePartitioning"}})",
             {},
             "p.sharing.spacePartitioningConfig: Required value"},
        Case{R"({"sharing":{"strategy":"SpacePartitioning",)"
             R"("spacePartitioningConfig":{"partitionCount":0}}})",
             {},
             "p.sharing.spacePartitioningConfig.partitionCount: Invalid "
             "value: must be an integer from 1 to 1024"},
        Case{R"({"sharing":{"strategy":"TimeSlicing",)"
             R"("spacePartitioningConfig":{"partitionCount":2}}})",
             {},
             "p.sharing.spacePartitioningConfig: Forbidden: only with "
             "strategy SpacePartitioning"}));

}  // namespace
}  // namespace dralloc::exampledriver
