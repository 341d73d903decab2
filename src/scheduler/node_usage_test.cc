#include "scheduler/node_usage.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <utility>

#include "scheduler/node_plugin.h"

namespace dralloc::scheduler {
namespace {

using Requests = std::initializer_list<std::pair<const char*, const char*>>;

std::map<std::string, Quantity> List(Requests requests) {
  std::map<std::string, Quantity> list;
  for (const auto& [name, text] : requests) list[name] = *Quantity::Parse(text);
  return list;
}

api::Container MakeContainer(Requests requests, bool sidecar = false) {
  api::Container container;
  container.name = "c";
  container.resources.requests = List(requests);
  if (sidecar) container.restart_policy = "Always";
  return container;
}

ResourceAmounts Amounts(
    int64_t milli_cpu, int64_t memory,
    std::map<std::string, int64_t, std::less<>> scalar = {}) {
  return ResourceAmounts{.milli_cpu = milli_cpu,
                         .memory = memory,
                         .pods = 1,
                         .scalar = std::move(scalar)};
}

constexpr int64_t kMi = int64_t{1} << 20;

TEST(NodeUsageTest, ContainersAddUp) {
  api::Pod pod;
  pod.spec.containers = {MakeContainer({{"cpu", "500m"}, {"memory", "1Gi"}}),
                         MakeContainer({{"cpu", "1"}})};
  EXPECT_EQ(PodRequests(pod), Amounts(1500, 1024 * kMi));
  // The second container names no memory: it counts 200Mi when scoring.
  EXPECT_EQ(NonZeroPodRequests(pod), Amounts(1500, 1224 * kMi));
}

TEST(NodeUsageTest, EmptyPodCountsDefaultsOnlyWhenScoring) {
  api::Pod pod;
  pod.spec.containers = {MakeContainer({})};
  EXPECT_EQ(PodRequests(pod), Amounts(0, 0));
  EXPECT_EQ(NonZeroPodRequests(pod), Amounts(100, 200 * kMi));
  // An explicit zero is a request: no default.
  pod.spec.containers = {MakeContainer({{"cpu", "0"}, {"memory", "0"}})};
  EXPECT_EQ(NonZeroPodRequests(pod), Amounts(0, 0));
}

TEST(NodeUsageTest, RegularInitContainersRunAlone) {
  api::Pod pod;
  pod.spec.init_containers = {MakeContainer({{"cpu", "2"}}),
                              MakeContainer({{"memory", "3Gi"}})};
  pod.spec.containers = {MakeContainer({{"cpu", "1"}, {"memory", "1Gi"}})};
  EXPECT_EQ(PodRequests(pod), Amounts(2000, 3072 * kMi));
}

TEST(NodeUsageTest, SidecarsRunWithLaterInitContainersAndTheContainers) {
  api::Pod pod;
  // A regular init container before the sidecar runs without it.
  pod.spec.init_containers = {MakeContainer({{"cpu", "2500m"}}),
                              MakeContainer({{"cpu", "1"}}, true),
                              MakeContainer({{"cpu", "2"}})};
  pod.spec.containers = {MakeContainer({{"cpu", "1"}})};
  // Containers + sidecar: 2; second init container + sidecar: 3.
  EXPECT_EQ(PodRequests(pod).milli_cpu, 3000);
  pod.spec.containers = {MakeContainer({{"cpu", "3"}})};
  EXPECT_EQ(PodRequests(pod).milli_cpu, 4000);
  // Scoring defaults apply to every container, sidecars included.
  EXPECT_EQ(NonZeroPodRequests(pod).memory, 400 * kMi);
}

TEST(NodeUsageTest, OverheadIsAdded) {
  api::Pod pod;
  pod.spec.containers = {MakeContainer({{"cpu", "1"}})};
  pod.spec.overhead = List({{"cpu", "250m"}, {"memory", "120Mi"}});
  EXPECT_EQ(PodRequests(pod), Amounts(1250, 120 * kMi));
  EXPECT_EQ(NonZeroPodRequests(pod), Amounts(1250, 320 * kMi));
}

TEST(NodeUsageTest, ScalarResourcesAndUnknownNames) {
  api::Pod pod;
  pod.spec.containers = {MakeContainer({{"example.com/gpu", "2"},
                                        {"hugepages-2Mi", "4Mi"},
                                        {"ephemeral-storage", "1Gi"},
                                        {"unknown", "3"}})};
  const ResourceAmounts requests = PodRequests(pod);
  EXPECT_EQ(requests.ephemeral_storage, 1024 * kMi);
  EXPECT_EQ(requests.scalar,
            (std::map<std::string, int64_t, std::less<>>{
                {"example.com/gpu", 2}, {"hugepages-2Mi", 4 * kMi}}));
}

api::Container Named(std::string name, Requests requests,
                     bool sidecar = false) {
  api::Container container = MakeContainer(requests, sidecar);
  container.name = std::move(name);
  return container;
}

// KEP-5517 (1.37): a claim's perContainer overhead joins each listed
// container's own requests (so a regular init container's share is absorbed
// by the init peak), while mappings and perPod overheads count once, after
// the peak.
TEST(NodeUsageTest, ClaimOverheadsFollowTheirContainers) {
  api::Pod pod;
  pod.spec.init_containers = {Named("setup", {{"memory", "1Gi"}})};
  pod.spec.containers = {Named("app", {{"memory", "1Gi"}})};
  api::NodeAllocatableResourceClaimStatus status;
  status.resource_claim_name = "gpu";
  status.containers = {"setup", "app", "gone"};
  status.mapping = {{.name = "cpu", .quantity = *Quantity::Parse("2")}};
  status.overhead = {{.name = "memory",
                      .per_pod = *Quantity::Parse("100Mi"),
                      .per_container = *Quantity::Parse("10Mi")}};
  pod.status.node_allocatable_resource_claim_statuses = {status};
  // max(app 1Gi+10Mi, setup 1Gi+10Mi) + perPod 100Mi + 10Mi for "gone",
  // which the spec lacks.
  EXPECT_EQ(PodRequests(pod), Amounts(2000, (1024 + 10 + 100 + 10) * kMi));
  // The same before pod-level requests and overhead (no pod count).
  EXPECT_EQ(AggregateContainerRequests(pod),
            (ResourceAmounts{.milli_cpu = 2000,
                             .memory = (1024 + 10 + 100 + 10) * kMi}));
}

// Pod-level requests replace the containers' cpu, memory and hugepages
// (with whatever claims add to them); overhead still adds; scoring defaults
// then fill only what the pod lacks.
TEST(NodeUsageTest, PodLevelRequestsReplaceTheContainers) {
  api::Pod pod;
  pod.spec.containers = {MakeContainer({{"cpu", "1"}, {"memory", "1Gi"}}),
                         MakeContainer({{"cpu", "1"}})};
  pod.spec.resources.emplace().requests = List({{"cpu", "4"}});
  pod.spec.overhead = List({{"cpu", "100m"}});
  EXPECT_EQ(PodRequests(pod), Amounts(4100, 1024 * kMi));
  EXPECT_EQ(NonZeroPodRequests(pod), Amounts(4100, 1024 * kMi));
  pod.spec.containers = {MakeContainer({})};
  EXPECT_EQ(NonZeroPodRequests(pod), Amounts(4100, 200 * kMi));
}

TEST(NodeUsageTest, NodeAllocatable) {
  api::Node node;
  node.status.allocatable = List({{"cpu", "4"},
                                  {"memory", "8Gi"},
                                  {"pods", "110"},
                                  {"example.com/gpu", "8"}});
  const ResourceAmounts allocatable = NodeAllocatable(node);
  EXPECT_EQ(allocatable.milli_cpu, 4000);
  EXPECT_EQ(allocatable.memory, 8192 * kMi);
  EXPECT_EQ(allocatable.pods, 110);
  EXPECT_EQ(allocatable.scalar.at("example.com/gpu"), 8);
}

TEST(NodeUsageTest, HostPortsDefaultAndSkipRegularInitContainers) {
  api::Pod pod;
  api::Container init = MakeContainer({});
  init.ports = {{.host_port = 7000, .container_port = 7000}};
  api::Container sidecar = MakeContainer({}, true);
  sidecar.ports = {{.host_port = 9000,
                    .container_port = 9000,
                    .protocol = "UDP",
                    .host_ip = "10.0.0.1"}};
  api::Container main = MakeContainer({});
  main.ports = {{.container_port = 80},
                {.host_port = 8080, .container_port = 80}};
  pod.spec.init_containers = {init, sidecar};
  pod.spec.containers = {main};
  EXPECT_EQ(PodHostPorts(pod),
            (std::vector<HostPort>{{"10.0.0.1", "UDP", 9000},
                                   {"0.0.0.0", "TCP", 8080}}));
}

TEST(NodeUsageTest, AddAndRemovePods) {
  api::Node node;
  node.status.allocatable = List({{"cpu", "4"}, {"pods", "10"}});
  api::Pod pod;
  pod.spec.containers = {
      MakeContainer({{"cpu", "1"}, {"example.com/gpu", "1"}})};
  pod.spec.containers[0].ports = {{.host_port = 80, .container_port = 80}};
  NodeUsage usage;
  usage.Reset(node);
  usage.AddPod(pod);
  usage.AddPod(pod);
  EXPECT_EQ(
      usage.requested(),
      (ResourceAmounts{
          .milli_cpu = 2000, .pods = 2, .scalar = {{"example.com/gpu", 2}}}));
  EXPECT_EQ(usage.non_zero_requested().memory, 400 * kMi);
  EXPECT_EQ(usage.used_ports().at({"0.0.0.0", "TCP", 80}), 2);
  usage.RemovePod(pod);
  usage.RemovePod(pod);
  EXPECT_EQ(usage.requested(), ResourceAmounts{});
  EXPECT_EQ(usage.non_zero_requested(), ResourceAmounts{});
  EXPECT_TRUE(usage.used_ports().empty());
  EXPECT_EQ(usage.allocatable().milli_cpu, 4000);
}

TEST(DefaultNormalizeScoreTest, ScalesToMaxAndReverses) {
  std::vector<int64_t> scores = {0, 2, 4};
  DefaultNormalizeScore(scores, false);
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 50, 100}));
  scores = {1, 3};
  DefaultNormalizeScore(scores, true);
  EXPECT_EQ(scores, (std::vector<int64_t>{67, 0}));
  scores = {0, 0};
  DefaultNormalizeScore(scores, false);
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 0}));
  DefaultNormalizeScore(scores, true);
  EXPECT_EQ(scores, (std::vector<int64_t>{100, 100}));
}

}  // namespace
}  // namespace dralloc::scheduler
