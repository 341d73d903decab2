// DraPlugin with extended resources backed by DRA (KEP-5004): Filter plans
// the special claim per node, Reserve assumes it, PreBind creates it and
// records it in the pod status, Unreserve deletes it.
#include <gtest/gtest.h>

#include "api/well_known.h"
#include "common/quantity.h"
#include "scheduler/dra_plugin.h"
#include "scheduler/test_cluster.h"

namespace dralloc::scheduler {
namespace {

// node-a publishes one GPU; node-p has a device plugin for example.com/gpu.
constexpr std::string_view kCluster = R"(apiVersion: v1
kind: Namespace
metadata: {name: ns}
---
apiVersion: v1
kind: Node
metadata: {name: node-a}
---
apiVersion: v1
kind: Node
metadata: {name: node-p}
status:
  allocatable: {cpu: "4", pods: "10", example.com/gpu: "2"}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {extendedResourceName: example.com/gpu}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
)";

class DraPluginExtendedResourcesTest : public testing::Test {
 protected:
  void SetUp() override {
    cluster_.Load(kCluster);
    cluster_.Pump();
    snapshot_.Refresh();
  }

  // Creates a pod asking for `amount` of `resource` in its one container.
  client::ObjectPtr CreatePod(const std::string& resource) {
    api::Pod pod;
    pod.metadata.name = "pod";
    pod.metadata.namespace_ = "ns";
    api::Container container;
    container.name = "app";
    container.resources.requests[resource] = Quantity::FromInt64(1);
    pod.spec.containers.push_back(std::move(container));
    auto created = cluster_.api.Create(api::Object(std::move(pod)));
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? *created : nullptr;
  }

  const NodeEntry& Node(std::string_view name) {
    return snapshot_.nodes()[*snapshot_.NodeIndex(name)];
  }
  // PreEnqueue (the pod's claims must be usable) and PreFilter.
  void PreFilter(DraCycleState& state) {
    ASSERT_EQ(plugin_.PreEnqueue(state).code, PreEnqueueResult::Code::kReady);
    plugin_.PreFilter(state);
  }
  // Filter on `node`, into `candidate` (made for that node).
  FilterCode FilterOn(DraCycleState& state, std::string_view node,
                      Candidate& candidate) {
    candidate.node = *snapshot_.NodeIndex(node);
    UnschedulableReasons reasons;
    return plugin_.FilterCandidate(state, Node(node), reasons, candidate);
  }

  TestCluster cluster_;
  ClusterSnapshot snapshot_{cluster_.sources()};
  DraPlugin plugin_{cluster_.api, snapshot_, DraPluginOptions{}};
};

TEST_F(DraPluginExtendedResourcesTest, FilterPlansTheClaimPerNode) {
  client::ObjectPtr pod = CreatePod("example.com/gpu");
  DraCycleState state(std::get<api::Pod>(*pod));
  PreFilter(state);
  ASSERT_NE(state.extended_classes, nullptr);

  Candidate on_a;
  ASSERT_EQ(FilterOn(state, "node-a", on_a), FilterCode::kFits);
  ASSERT_NE(on_a.extended, nullptr);
  ASSERT_EQ(on_a.extended->requests.size(), 1u);
  EXPECT_EQ(on_a.extended->requests[0].name, "container-0-request-0");
  ASSERT_EQ(on_a.results.size(), 1u);
  EXPECT_EQ(on_a.results[0].devices.results.at(0).device, "gpu-0");

  // The device plugin serves it on node-p: nothing for DRA to do.
  Candidate on_p;
  ASSERT_EQ(FilterOn(state, "node-p", on_p), FilterCode::kFits);
  EXPECT_EQ(on_p.extended, nullptr);
  EXPECT_TRUE(on_p.results.empty());
}

TEST_F(DraPluginExtendedResourcesTest, AnUnservedResourceIsNotDra) {
  client::ObjectPtr pod = CreatePod("example.com/other");
  DraCycleState state(std::get<api::Pod>(*pod));
  PreFilter(state);
  EXPECT_EQ(state.extended_classes, nullptr);
}

TEST_F(DraPluginExtendedResourcesTest, NoDeviceLeftIsUnfit) {
  client::ObjectPtr pod = CreatePod("deviceclass.resource.kubernetes.io/gpu");
  // A second pod takes node-a's only GPU first.
  api::ResourceClaim taken;
  taken.metadata.name = "taken";
  taken.metadata.namespace_ = "ns";
  taken.status.allocation.emplace();
  taken.status.allocation->devices.results.push_back(
      {.request = "r",
       .driver = "gpu.example.com",
       .pool = "node-a",
       .device = "gpu-0"});
  snapshot_.AssumeClaim("ns/taken",
                        std::make_shared<const api::Object>(std::move(taken)));
  DraCycleState state(std::get<api::Pod>(*pod));
  PreFilter(state);
  Candidate on_a;
  EXPECT_EQ(FilterOn(state, "node-a", on_a), FilterCode::kUnfit);
}

TEST_F(DraPluginExtendedResourcesTest, PreBindCreatesTheClaimUnreserveDeletes) {
  client::ObjectPtr pod_object = CreatePod("example.com/gpu");
  const api::Pod& pod = std::get<api::Pod>(*pod_object);
  DraCycleState state(pod);
  PreFilter(state);
  Candidate chosen;
  ASSERT_EQ(FilterOn(state, "node-a", chosen), FilterCode::kFits);

  const BindTask task = plugin_.Reserve(state, pod_object, chosen);
  ASSERT_TRUE(task.extended_claim.has_value());
  const std::string& key = task.extended_claim->key;
  EXPECT_TRUE(key.starts_with("ns/pod-extended-resources-")) << key;
  EXPECT_EQ(key.size(), std::string("ns/pod-extended-resources-").size() + 5);
  const auto* assumed = client::As<api::ResourceClaim>(snapshot_.Claim(key));
  ASSERT_NE(assumed, nullptr);
  ASSERT_TRUE(assumed->status.allocation.has_value());
  EXPECT_EQ(assumed->status.reserved_for.at(0).uid, pod.metadata.uid);

  WrittenClaims written;
  ASSERT_TRUE(plugin_.PreBind(task, written).ok());
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0].first, key);
  const std::string name = key.substr(3);
  auto stored = cluster_.api.Get(client::ResourceClaimsResource(), "ns", name);
  ASSERT_TRUE(stored.ok()) << stored.status();
  const auto& claim = std::get<api::ResourceClaim>(**stored);
  EXPECT_TRUE(claim.status.allocation.has_value());
  EXPECT_EQ(claim.status.reserved_for.at(0).uid, pod.metadata.uid);
  EXPECT_EQ(
      claim.metadata.finalizers,
      std::vector<std::string>{std::string(api::kDeleteProtectionFinalizer)});
  auto pod_now = cluster_.api.Get(client::PodsResource(), "ns", "pod");
  ASSERT_TRUE(pod_now.ok());
  const auto& status =
      std::get<api::Pod>(**pod_now).status.extended_resource_claim_status;
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->resource_claim_name, name);
  ASSERT_EQ(status->request_mappings.size(), 1u);
  EXPECT_EQ(status->request_mappings[0],
            (api::ContainerExtendedResourceRequest{"app", "example.com/gpu",
                                                   "container-0-request-0"}));

  plugin_.Unreserve(task, written);
  EXPECT_FALSE(
      cluster_.api.Get(client::ResourceClaimsResource(), "ns", name).ok());
  plugin_.RestoreAssumed(task);
  EXPECT_EQ(snapshot_.Claim(key), nullptr);
}

// KEP-5517 alongside: PreBind writes the node allocatable status with the
// extended claim's, and Unreserve takes it back (upstream's
// clearNodeAllocatableResourceClaimStatus).
TEST_F(DraPluginExtendedResourcesTest, UnreserveClearsNodeAllocatableStatus) {
  client::ObjectPtr pod_object = CreatePod("example.com/gpu");
  const api::Pod& pod = std::get<api::Pod>(*pod_object);
  DraCycleState state(pod);
  PreFilter(state);
  Candidate chosen;
  ASSERT_EQ(FilterOn(state, "node-a", chosen), FilterCode::kFits);
  BindTask task = plugin_.Reserve(state, pod_object, chosen);
  api::NodeAllocatableResourceClaimStatus entry;
  entry.resource_claim_name = "cpus";
  entry.mapping = {{.name = "cpu", .quantity = Quantity::FromInt64(2)}};
  task.node_allocatable = {entry};
  WrittenClaims written;
  ASSERT_TRUE(plugin_.PreBind(task, written).ok());
  const auto statuses = [&] {
    auto now = cluster_.api.Get(client::PodsResource(), "ns", "pod");
    EXPECT_TRUE(now.ok());
    return now.ok() ? std::get<api::Pod>(**now)
                          .status.node_allocatable_resource_claim_statuses
                    : std::vector<api::NodeAllocatableResourceClaimStatus>{};
  };
  ASSERT_EQ(statuses().size(), 1u);
  plugin_.Unreserve(task, written);
  EXPECT_TRUE(statuses().empty());
  plugin_.RestoreAssumed(task);
}

TEST_F(DraPluginExtendedResourcesTest, AStaleClaimIsFoundAndDeleted) {
  client::ObjectPtr pod_object = CreatePod("example.com/gpu");
  const api::Pod& pod = std::get<api::Pod>(*pod_object);
  // An earlier cycle's claim, created before its scheduler stopped.
  ExtendedResourceClaimPlan plan = PlanExtendedResourceClaim(
      pod, nullptr, snapshot_.extended_resource_classes());
  api::ResourceClaim left = BuildExtendedResourceClaim(pod, plan);
  left.metadata.name = "pod-extended-resources-bcdfg";
  left.metadata.finalizers.emplace_back(api::kDeleteProtectionFinalizer);
  auto created = cluster_.api.Create(api::Object(left));
  ASSERT_TRUE(created.ok()) << created.status();
  cluster_.Pump();
  snapshot_.ObserveClaim("ns/pod-extended-resources-bcdfg", *created);

  DraCycleState state(pod);
  PreFilter(state);
  ASSERT_NE(state.stale_extended_claim, nullptr);
  plugin_.DeleteStaleExtendedClaim(state.stale_extended_claim);
  EXPECT_FALSE(cluster_.api
                   .Get(client::ResourceClaimsResource(), "ns",
                        "pod-extended-resources-bcdfg")
                   .ok());

  // Once the deletion is observed, the pod is scheduled anew.
  snapshot_.ObserveClaim("ns/pod-extended-resources-bcdfg", nullptr);
  DraCycleState again(pod);
  PreFilter(again);
  EXPECT_EQ(again.stale_extended_claim, nullptr);
}

}  // namespace
}  // namespace dralloc::scheduler
