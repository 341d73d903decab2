#include "scheduler/node_allocatable_claims.h"

#include <gtest/gtest.h>

#include "scheduler/node_usage.h"

namespace dralloc::scheduler {
namespace {

Quantity Q(std::string_view text) { return *Quantity::Parse(text); }

// A CPU device with 64 cores (2 cpus each) and a GPU with host memory
// overhead; a pod whose two containers use the claim.
struct Fixture {
  api::Device cpus;
  api::Device gpu;
  api::Pod pod;

  Fixture() {
    cpus.name = "cpus";
    cpus.capacity["cpu.example.com/cores"].value = Q("64");
    cpus.node_allocatable_resources["cpu"].mapping =
        api::NodeAllocatableMapping{.capacity_key = "cpu.example.com/cores",
                                    .capacity_multiplier = Q("2")};
    gpu.name = "gpu";
    gpu.node_allocatable_resources["memory"].overhead =
        api::NodeAllocatableOverhead{.per_pod = Q("1Gi"),
                                     .per_container = Q("256Mi")};
    gpu.node_allocatable_resources["hugepages-2Mi"].mapping =
        api::NodeAllocatableMapping{.device_multiplier = Q("512Mi")};
    pod.spec.containers.resize(3);
    pod.spec.containers[0].name = "a";
    pod.spec.containers[0].resources.claims = {{.name = "devices"}};
    pod.spec.containers[1].name = "b";
    pod.spec.containers[2].name = "c";
    pod.spec.containers[2].resources.claims = {{.name = "devices"}};
  }

  AllocatedDeviceLookup Lookup() const {
    return [this](const api::DeviceRequestAllocationResult& r) {
      return r.device == "cpus" ? &cpus : r.device == "gpu" ? &gpu : nullptr;
    };
  }
};

api::DeviceRequestAllocationResult Result(std::string device) {
  api::DeviceRequestAllocationResult r;
  r.request = "req";
  r.driver = "example.com";
  r.pool = "node-a";
  r.device = std::move(device);
  return r;
}

TEST(NodeAllocatableClaimsTest, ConsumedCapacityTimesMultiplier) {
  Fixture f;
  api::AllocationResult allocation;
  auto shared = Result("cpus");
  shared.consumed_capacity["cpu.example.com/cores"] = Q("8");
  allocation.devices.results.push_back(shared);
  auto computed = NodeAllocatableStatusFor(f.pod, "devices", "claim-1",
                                           allocation, f.Lookup());
  ASSERT_TRUE(computed.ok()) << computed.status();
  auto& status = *computed;
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->resource_claim_name, "claim-1");
  EXPECT_EQ(status->containers, (std::vector<std::string>{"a", "c"}));
  ASSERT_EQ(status->mapping.size(), 1u);
  EXPECT_EQ(status->mapping[0].name, "cpu");
  EXPECT_EQ(status->mapping[0].quantity->ToString(), "16");
  EXPECT_TRUE(status->overhead.empty());
  EXPECT_TRUE(HasNodeAllocatableMapping(allocation, f.Lookup()));
}

// Upstream maps capacity only from what a result consumed: a dedicated
// device (no consumed capacity) is an error, and a result that consumed
// other capacities adds nothing.
TEST(NodeAllocatableClaimsTest, CapacityMappingNeedsConsumedCapacity) {
  Fixture f;
  f.pod.metadata.namespace_ = "ns";
  api::AllocationResult allocation;
  allocation.devices.results.push_back(Result("cpus"));
  auto status = NodeAllocatableStatusFor(f.pod, "devices", "claim-1",
                                         allocation, f.Lookup());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.status().message(),
            "claim ns/claim-1, device cpus: ConsumedCapacity is nil, but "
            "Capacity key 'cpu.example.com/cores' is set in "
            "NodeAllocatableResources for resource cpu");
  allocation.devices.results[0].consumed_capacity["other"] = Q("1");
  status = NodeAllocatableStatusFor(f.pod, "devices", "claim-1", allocation,
                                    f.Lookup());
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_FALSE(status->has_value());
}

TEST(NodeAllocatableClaimsTest, OverheadAndDeviceMultiplierPerDevice) {
  Fixture f;
  api::AllocationResult allocation;
  allocation.devices.results = {Result("gpu"), Result("gpu")};
  auto computed = NodeAllocatableStatusFor(f.pod, "devices", "claim-1",
                                           allocation, f.Lookup());
  ASSERT_TRUE(computed.ok()) << computed.status();
  auto& status = *computed;
  ASSERT_TRUE(status.has_value());
  ASSERT_EQ(status->mapping.size(), 1u);
  EXPECT_EQ(status->mapping[0].name, "hugepages-2Mi");
  EXPECT_EQ(status->mapping[0].quantity->Value(), int64_t{1} << 30);
  ASSERT_EQ(status->overhead.size(), 1u);
  EXPECT_EQ(status->overhead[0].per_pod->Value(), int64_t{2} << 30);
  EXPECT_EQ(status->overhead[0].per_container->Value(), int64_t{512} << 20);

  // The pod then requests, beyond its containers: the mapping once and the
  // overhead per pod plus per referencing container (2).
  f.pod.status.node_allocatable_resource_claim_statuses = {*status};
  const ResourceAmounts requests = PodRequests(f.pod);
  EXPECT_EQ(requests.memory, (int64_t{2} << 30) + 2 * (int64_t{512} << 20));
  EXPECT_EQ(requests.scalar.at("hugepages-2Mi"), int64_t{1} << 30);
}

// upstream validatePodLevelResourcesCoverDRA's three refusals.
TEST(NodeAllocatableClaimsTest, PodLevelResourcesMustCoverTheClaims) {
  api::Pod pod;
  pod.spec.containers.resize(1);
  pod.spec.containers[0].name = "app";
  pod.spec.containers[0].resources.requests["cpu"] = Q("1");
  pod.spec.containers[0].resources.limits["cpu"] = Q("1");
  pod.spec.containers[0].resources.limits["hugepages-2Mi"] = Q("2Mi");
  api::NodeAllocatableResourceClaimStatus status;
  status.resource_claim_name = "cpus";
  status.containers = {"app"};
  status.mapping = {{.name = "cpu", .quantity = Q("2")},
                    {.name = "hugepages-2Mi", .quantity = Q("4Mi")}};
  pod.status.node_allocatable_resource_claim_statuses = {status};
  EXPECT_TRUE(PodLevelResourcesShortfalls(pod).empty());  // no pod level

  pod.spec.resources.emplace();
  pod.spec.resources->requests["cpu"] = Q("3");
  pod.spec.resources->limits["cpu"] = Q("3");
  pod.spec.resources->limits["hugepages-2Mi"] = Q("6Mi");
  EXPECT_TRUE(PodLevelResourcesShortfalls(pod).empty());  // 1+2 fits 3

  pod.spec.resources->requests["cpu"] = Q("2");
  pod.spec.resources->limits["cpu"] = Q("2");
  pod.spec.resources->limits["hugepages-2Mi"] = Q("4Mi");
  EXPECT_EQ(PodLevelResourcesShortfalls(pod),
            (std::vector<std::string>{
                "pod level request for cpu is insufficient to cover the "
                "aggregated container and node-allocatable DRA requests",
                "pod level limit for cpu is insufficient to cover the limit "
                "and DRA overhead for container app",
                "pod level limit for hugepages-2Mi is insufficient to cover "
                "the aggregated container and node-allocatable DRA limits"}));
}

TEST(NodeAllocatableClaimsTest, DevicesWithoutMappingsGiveNoStatus) {
  Fixture f;
  api::AllocationResult allocation;
  allocation.devices.results.push_back(Result("unknown"));
  auto computed = NodeAllocatableStatusFor(f.pod, "devices", "claim-1",
                                           allocation, f.Lookup());
  ASSERT_TRUE(computed.ok()) << computed.status();
  EXPECT_FALSE(computed->has_value());
  EXPECT_FALSE(HasNodeAllocatableMapping(allocation, f.Lookup()));
}

}  // namespace
}  // namespace dralloc::scheduler
