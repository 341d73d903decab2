// Classic DRA (resource.k8s.io/v1alpha2, docs/classic-dra.md sections 6-7)
// end to end over the in-memory API: the claim controller generates v1alpha2
// claims from v1alpha2 templates, the scheduler negotiates nodes through
// PodSchedulingContexts with the example control-plane driver (its
// controller library and GPU pool), pods bind once their claims are
// allocated and reserved, and freed claims are deallocated by the driver.
#include <gtest/gtest.h>

#include "allocator/offline_allocation.h"
#include "classiccontroller/controller.h"
#include "client/memory_api_client.h"
#include "controlplane/control_plane.h"
#include "exampledriver/classic_driver.h"
#include "scheduler/test_manifests.h"

namespace dralloc::controlplane {
namespace {

namespace v1alpha2 = api::v1alpha2;
constexpr char kDriver[] = "gpu.classic.example.com";

std::string ClusterManifests() {
  namespace m = scheduler::test_manifests;
  return m::Namespace() + m::Node("node-a") + m::Node("node-b") +
         m::GpuClass() + m::GpuSlice("node-a", 1) + R"(---
apiVersion: v1
kind: ConfigMap
metadata: {name: one-gpu, namespace: ns}
data: {count: "1", mode: fast}
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClass
metadata: {name: classic-gpu}
driverName: gpu.classic.example.com
---
apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaimTemplate
metadata: {name: classic-gpu, namespace: ns}
spec:
  spec:
    resourceClassName: classic-gpu
    parametersRef: {kind: ConfigMap, name: one-gpu}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: structured-gpu, namespace: ns}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}}
)";
}

api::Pod MakePod(std::string name, bool structured = false) {
  api::Pod pod;
  pod.metadata.name = std::move(name);
  pod.metadata.namespace_ = "ns";
  pod.spec.containers.push_back({.name = "c", .image = "busybox"});
  pod.spec.resource_claims.push_back(
      {.name = "gpu", .resource_claim_template_name = "classic-gpu"});
  if (structured) {
    pod.spec.resource_claims.push_back(
        {.name = "device", .resource_claim_template_name = "structured-gpu"});
  }
  return pod;
}

class ClassicSchedulingTest : public testing::Test {
 protected:
  void SetUp() override {
    auto objects = allocator::DecodeManifests(ClusterManifests(), "cluster");
    ASSERT_TRUE(objects.ok()) << objects.status();
    for (const api::Object& object : *objects) {
      ASSERT_TRUE(api_.Create(object).ok()) << api::DisplayName(object);
    }
    ControlPlaneOptions options;
    options.scheduler.binders = 0;
    options.scheduler.initial_backoff = std::chrono::milliseconds(0);
    plane_ = std::make_unique<ControlPlane>(api_, options);
    auto pool = exampledriver::ClassicGpuPool::Create({"node-a", "node-b"}, 1);
    ASSERT_TRUE(pool.ok());
    driver_ = std::make_unique<exampledriver::ClassicExampleDriver>(
        api_, kDriver, *std::move(pool));
    controller_ = std::make_unique<classiccontroller::Controller>(
        api_,
        classiccontroller::ControllerInformers{claims_, classes_, contexts_,
                                               pods_},
        *driver_,
        classiccontroller::ControllerOptions{
            .driver_name = kDriver, .recheck_delay = std::chrono::hours(1)});
  }

  // The driver sees what changed and acts on it.
  bool DriverTurn() {
    size_t changes = 0;
    for (client::Informer* informer :
         {&classes_, &claims_, &contexts_, &pods_}) {
      changes += *informer->Pump(std::chrono::milliseconds(0));
    }
    bool worked = false;
    while (controller_->ProcessOne()) worked = true;
    return changes > 0 || worked;
  }

  // The control plane and the driver in turns until neither has work.
  void Settle() {
    for (int round = 0; round < 50; ++round) {
      ASSERT_TRUE(plane_->RunToQuiescence().ok());
      if (!DriverTurn()) {
        ASSERT_TRUE(plane_->RunToQuiescence().ok());
        return;
      }
    }
    FAIL() << "did not settle";
  }

  // The pod's PodScheduled message (why it is not scheduled).
  std::string Why(const std::string& name) {
    for (const auto& condition : GetPod(name).status.conditions) {
      if (condition.type == "PodScheduled") return condition.message;
    }
    return "";
  }
  api::Pod GetPod(const std::string& name) {
    return std::get<api::Pod>(**api_.Get(client::PodsResource(), "ns", name));
  }
  std::vector<v1alpha2::ResourceClaim> ClassicClaims() {
    std::vector<v1alpha2::ResourceClaim> out;
    auto listed = api_.List(client::ResourceFor<v1alpha2::ResourceClaim>());
    for (const auto& o : listed->items) {
      out.push_back(std::get<v1alpha2::ResourceClaim>(*o));
    }
    return out;
  }
  v1alpha2::ResourceClaim Claim(const std::string& name) {
    auto got =
        api_.Get(client::ResourceFor<v1alpha2::ResourceClaim>(), "ns", name);
    EXPECT_TRUE(got.ok()) << got.status();
    return got.ok() ? std::get<v1alpha2::ResourceClaim>(**got)
                    : v1alpha2::ResourceClaim{};
  }
  size_t SchedulingContexts() {
    return api_.List(client::ResourceFor<v1alpha2::PodSchedulingContext>())
        ->items.size();
  }

  client::MemoryApiClient api_{{.validate = true}};
  std::unique_ptr<ControlPlane> plane_;
  client::Informer claims_{api_,
                           client::ResourceFor<v1alpha2::ResourceClaim>()};
  client::Informer classes_{api_,
                            client::ResourceFor<v1alpha2::ResourceClass>()};
  client::Informer contexts_{
      api_, client::ResourceFor<v1alpha2::PodSchedulingContext>()};
  client::Informer pods_{api_, client::PodsResource()};
  std::unique_ptr<exampledriver::ClassicExampleDriver> driver_;
  std::unique_ptr<classiccontroller::Controller> controller_;
};

TEST_F(ClassicSchedulingTest, PodsGetDriverAllocatedClaimsOnNodesWithRoom) {
  ASSERT_TRUE(api_.Create(MakePod("first")).ok());
  ASSERT_TRUE(api_.Create(MakePod("second")).ok());
  Settle();
  const api::Pod first = GetPod("first");
  const api::Pod second = GetPod("second");
  ASSERT_FALSE(first.spec.node_name.empty());
  ASSERT_FALSE(second.spec.node_name.empty());
  // One GPU per node: the driver's unsuitableNodes sent them apart.
  EXPECT_NE(first.spec.node_name, second.spec.node_name);
  const std::vector<v1alpha2::ResourceClaim> claims = ClassicClaims();
  ASSERT_EQ(claims.size(), 2u);
  for (const v1alpha2::ResourceClaim& claim : claims) {
    SCOPED_TRACE(claim.metadata.name);
    ASSERT_TRUE(claim.status.allocation.has_value());
    EXPECT_EQ(claim.status.driver_name, kDriver);
    ASSERT_EQ(claim.status.allocation->resource_handles.size(), 1u);
    EXPECT_NE(claim.status.allocation->resource_handles[0].data.find(
                  "\"user_mode\":\"fast\""),
              std::string::npos);
    EXPECT_TRUE(claim.status.allocation->available_on_nodes.has_value());
    ASSERT_EQ(claim.status.reserved_for.size(), 1u);
    EXPECT_EQ(claim.metadata.finalizers,
              std::vector<std::string>{std::string(kDriver) +
                                       "/deletion-protection"});
  }
  // PostBind deleted the PodSchedulingContexts.
  EXPECT_EQ(SchedulingContexts(), 0u);

  // A third pod finds no room: it waits, told why.
  ASSERT_TRUE(api_.Create(MakePod("third")).ok());
  Settle();
  api::Pod third = GetPod("third");
  EXPECT_TRUE(third.spec.node_name.empty());
  EXPECT_EQ(SchedulingContexts(), 1u);

  // The first pod finishes: its claim is deleted, the driver frees the GPU,
  // and the third pod gets it.
  api::Pod done = first;
  done.status.phase = "Succeeded";
  ASSERT_TRUE(api_.UpdateStatus(api::Object(done)).ok());
  Settle();
  third = GetPod("third");
  EXPECT_EQ(third.spec.node_name, first.spec.node_name);
  EXPECT_EQ(driver_->FreeOn("node-a") + driver_->FreeOn("node-b"), 0);
}

TEST_F(ClassicSchedulingTest, PodWithClassicAndStructuredClaims) {
  ASSERT_TRUE(api_.Create(MakePod("mixed", /*structured=*/true)).ok());
  Settle();
  const api::Pod pod = GetPod("mixed");
  // Only node-a has a structured GPU: the classic claim goes there too.
  EXPECT_EQ(pod.spec.node_name, "node-a");
  const std::vector<v1alpha2::ResourceClaim> claims = ClassicClaims();
  ASSERT_EQ(claims.size(), 1u);
  ASSERT_TRUE(claims[0].status.allocation.has_value());
  EXPECT_EQ(driver_->FreeOn("node-a"), 0);
  auto structured = api_.List(client::ResourceClaimsResource());
  ASSERT_EQ(structured->items.size(), 1u);
  EXPECT_TRUE(std::get<api::ResourceClaim>(*structured->items[0])
                  .status.allocation.has_value());
}

// 1.30's PostFilter: the pod's claim was allocated (and reserved for it)
// on its selected node, which it can no longer use before it is bound: the
// scheduler clears selectedNode and sets deallocationRequested, the driver
// deallocates, and the claim is allocated again where the pod fits.
TEST_F(ClassicSchedulingTest, ClaimAllocatedOnTheWrongNodeIsReallocated) {
  ASSERT_TRUE(api_.Create(MakePod("moved")).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());  // the scheduler asks
  auto context = api_.Get(client::ResourceFor<v1alpha2::PodSchedulingContext>(),
                          "ns", "moved");
  ASSERT_TRUE(context.ok());
  const std::string selected =
      std::get<v1alpha2::PodSchedulingContext>(**context).spec.selected_node;
  ASSERT_FALSE(selected.empty());
  DriverTurn();  // the driver allocates there and reserves the claim
  const std::string claim_name = GetPod("moved")
                                     .status.resource_claim_statuses.at(0)
                                     .resource_claim_name.value();
  ASSERT_TRUE(Claim(claim_name).status.allocation.has_value());
  // The node is cordoned before the pod is bound.
  auto node = api_.Get(client::NodesResource(), "", selected);
  ASSERT_TRUE(node.ok());
  api::Node cordoned = std::get<api::Node>(**node);
  cordoned.spec.unschedulable = true;
  ASSERT_TRUE(api_.Update(api::Object(cordoned)).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  const v1alpha2::ResourceClaim requested = Claim(claim_name);
  EXPECT_TRUE(requested.status.deallocation_requested);
  EXPECT_TRUE(requested.status.reserved_for.empty());
  context = api_.Get(client::ResourceFor<v1alpha2::PodSchedulingContext>(),
                     "ns", "moved");
  ASSERT_TRUE(context.ok());
  EXPECT_EQ(
      std::get<v1alpha2::PodSchedulingContext>(**context).spec.selected_node,
      "");
  EXPECT_EQ(plane_->scheduler()->stats().deallocations, 1u);
  Settle();
  const api::Pod moved = GetPod("moved");
  ASSERT_FALSE(moved.spec.node_name.empty()) << Why("moved");
  EXPECT_NE(moved.spec.node_name, selected);
  const v1alpha2::ResourceClaim reallocated = Claim(claim_name);
  ASSERT_TRUE(reallocated.status.allocation.has_value());
  EXPECT_NE(reallocated.status.allocation->resource_handles.at(0).data.find(
                "\"nodeName\":\"" + moved.spec.node_name + "\""),
            std::string::npos);
  EXPECT_FALSE(reallocated.status.deallocation_requested);
  EXPECT_EQ(driver_->FreeOn(selected), 1);
}

// Immediate claims are allocated by their driver with no pod.
TEST_F(ClassicSchedulingTest, ImmediateClaimIsAllocatedBeforeAnyPodUsesIt) {
  v1alpha2::ResourceClaim shared;
  shared.metadata.name = "shared";
  shared.metadata.namespace_ = "ns";
  shared.spec.resource_class_name = "classic-gpu";
  shared.spec.allocation_mode = "Immediate";
  ASSERT_TRUE(api_.Create(api::Object(shared)).ok());
  Settle();
  shared = Claim("shared");
  ASSERT_TRUE(shared.status.allocation.has_value());
  EXPECT_TRUE(shared.status.reserved_for.empty());
  api::Pod user = MakePod("user");
  user.spec.resource_claims[0] = {.name = "gpu",
                                  .resource_claim_name = "shared"};
  ASSERT_TRUE(api_.Create(user).ok());
  Settle();
  EXPECT_EQ(GetPod("user").spec.node_name, "node-a");  // where it was put
  EXPECT_EQ(Claim("shared").status.reserved_for.size(), 1u);
  EXPECT_EQ(SchedulingContexts(), 0u);  // no negotiation needed
}

}  // namespace
}  // namespace dralloc::controlplane
