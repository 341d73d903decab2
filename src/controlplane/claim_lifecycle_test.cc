// The claim controller and the scheduler together over the in-memory API:
// a pod's generated claim is allocated and reserved while the pod runs, and
// released, deallocated and deleted when it finishes; claims the pod does
// not own are never adopted.
#include <gtest/gtest.h>

#include "allocator/offline_allocation.h"
#include "api/well_known.h"
#include "client/memory_api_client.h"
#include "controller/claim_controller.h"
#include "controlplane/control_plane.h"
#include "scheduler/test_manifests.h"

namespace dralloc::controlplane {
namespace {

std::string ClusterManifests() {
  namespace m = scheduler::test_manifests;
  return m::Namespace() + m::Node("node-a") + m::GpuClass() +
         m::GpuSlice("node-a", 1) +
         R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ns}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}}
)";
}

api::Pod MakePod(std::string name) {
  api::Pod pod;
  pod.metadata.name = std::move(name);
  pod.metadata.namespace_ = "ns";
  pod.spec.containers.push_back({.name = "c", .image = "busybox"});
  pod.spec.resource_claims.push_back(
      {.name = "gpu", .resource_claim_template_name = "one-gpu"});
  return pod;
}

class ClaimLifecycleTest : public testing::Test {
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
  }
  api::Pod GetPod(const std::string& name) {
    return std::get<api::Pod>(**api_.Get(client::PodsResource(), "ns", name));
  }
  std::vector<api::ResourceClaim> Claims() {
    std::vector<api::ResourceClaim> out;
    auto listed = api_.List(client::ResourceClaimsResource());
    for (const auto& o : listed->items) {
      out.push_back(std::get<api::ResourceClaim>(*o));
    }
    return out;
  }

  client::MemoryApiClient api_;
  std::unique_ptr<ControlPlane> plane_;
};

TEST_F(ClaimLifecycleTest, FinishedPodReleasesAndDeletesItsClaim) {
  ASSERT_TRUE(api_.Create(MakePod("first")).ok());
  ASSERT_TRUE(api_.Create(MakePod("second")).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  api::Pod first = GetPod("first");
  ASSERT_EQ(first.spec.node_name, "node-a");
  EXPECT_EQ(GetPod("second").spec.node_name, "");  // one device only
  std::vector<api::ResourceClaim> claims = Claims();
  ASSERT_EQ(claims.size(), 2u);
  const auto& mine =
      claims[0].metadata.name.starts_with("first-gpu-") ? claims[0] : claims[1];
  EXPECT_TRUE(mine.status.allocation.has_value());
  ASSERT_EQ(mine.status.reserved_for.size(), 1u);
  EXPECT_EQ(mine.status.reserved_for[0].uid, first.metadata.uid);
  EXPECT_EQ(
      mine.metadata.finalizers,
      std::vector<std::string>{std::string(api::kDeleteProtectionFinalizer)});
  EXPECT_EQ(
      mine.metadata.annotations.at(std::string(api::kPodClaimNameAnnotation)),
      "gpu");

  // The pod finishes: its claim is released, deallocated and deleted, and
  // the waiting pod gets the device.
  first.status.phase = "Succeeded";
  ASSERT_TRUE(api_.UpdateStatus(first).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  claims = Claims();
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_TRUE(claims[0].metadata.name.starts_with("second-gpu-"));
  EXPECT_EQ(GetPod("second").spec.node_name, "node-a");
  const auto metrics = plane_->controller()->metrics();
  EXPECT_EQ(metrics.deallocations, 1u);
  EXPECT_EQ(metrics.claims_deleted, 1u);
}

TEST_F(ClaimLifecycleTest, NeverAdoptsAClaimThePodDoesNotOwn) {
  // A claim that looks generated for the pod but has another owner.
  api::ResourceClaim decoy;
  decoy.metadata.name = "lonely-gpu-decoy";
  decoy.metadata.namespace_ = "ns";
  decoy.metadata.annotations[std::string(api::kPodClaimNameAnnotation)] = "gpu";
  decoy.metadata.owner_references.push_back({.api_version = "v1",
                                             .kind = "Pod",
                                             .name = "lonely",
                                             .uid = "someone-else",
                                             .controller = true});
  api::DeviceRequest request;
  request.name = "gpu";
  request.exactly = api::ExactDeviceRequest{.device_class_name = "gpu"};
  decoy.spec.devices.requests.push_back(request);
  ASSERT_TRUE(api_.Create(decoy).ok());
  ASSERT_TRUE(api_.Create(MakePod("lonely")).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  const api::Pod pod = GetPod("lonely");
  ASSERT_EQ(pod.status.resource_claim_statuses.size(), 1u);
  EXPECT_NE(*pod.status.resource_claim_statuses[0].resource_claim_name,
            "lonely-gpu-decoy");
  EXPECT_EQ(pod.spec.node_name, "node-a");
}

TEST_F(ClaimLifecycleTest, DeletedPodFreesTheDeviceForAPendingPod) {
  ASSERT_TRUE(api_.Create(MakePod("first")).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  ASSERT_TRUE(api_.Create(MakePod("second")).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  const api::Pod waiting = GetPod("second");
  ASSERT_EQ(waiting.spec.node_name, "");
  ASSERT_FALSE(waiting.status.conditions.empty());
  EXPECT_NE(waiting.status.conditions[0].message.find("cannot allocate claim"),
            std::string::npos);
  ASSERT_TRUE(api_.Delete(client::PodsResource(), "ns", "first", "").ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  EXPECT_EQ(GetPod("second").spec.node_name, "node-a");
  EXPECT_EQ(Claims().size(), 1u);
}

TEST_F(ClaimLifecycleTest, UpdatesThatNeedNoWorkAreNotQueued) {
  ASSERT_TRUE(api_.Create(MakePod("first")).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  ASSERT_EQ(GetPod("first").spec.node_name, "node-a");
  // The new pod once; not its claim-status update, the binding, the claim's
  // creation or its allocation.
  EXPECT_EQ(plane_->controller()->metrics().syncs, 1u);

  // A status update of a running pod: nothing to do either.
  api::Pod running = GetPod("first");
  running.status.phase = "Running";
  ASSERT_TRUE(api_.UpdateStatus(running).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  EXPECT_EQ(plane_->controller()->metrics().syncs, 1u);

  // A claim reserved for a pod that is gone is synced: the entry goes.
  api::ResourceClaim claim = Claims()[0];
  claim.status.reserved_for.push_back(
      {.resource = "pods", .name = "ghost", .uid = "ghost-uid"});
  ASSERT_TRUE(api_.UpdateStatus(claim).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  EXPECT_EQ(plane_->controller()->metrics().syncs, 2u);  // not its rewrite
  ASSERT_EQ(Claims()[0].status.reserved_for.size(), 1u);
  EXPECT_EQ(Claims()[0].status.reserved_for[0].name, "first");
  EXPECT_EQ(plane_->controller()->metrics().reservations_removed, 1u);
}

TEST_F(ClaimLifecycleTest, PodBoundElsewhereGetsItsAllocatedClaimReserved) {
  // Bound by someone else, so the scheduler leaves it alone; its claim is
  // allocated later, then the pod changes: the controller reserves the
  // claim for it.
  api::Pod pod = MakePod("placed");
  pod.spec.node_name = "node-a";
  ASSERT_TRUE(api_.Create(pod).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  std::vector<api::ResourceClaim> claims = Claims();
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_TRUE(claims[0].status.reserved_for.empty());
  api::ResourceClaim allocated = claims[0];
  api::DeviceRequestAllocationResult result;
  result.request = "gpu";
  result.driver = "gpu.example.com";
  result.pool = "node-a";
  result.device = "gpu-0";
  allocated.status.allocation.emplace();
  allocated.status.allocation->devices.results.push_back(result);
  ASSERT_TRUE(api_.UpdateStatus(allocated).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  api::Pod placed = GetPod("placed");
  placed.status.phase = "Running";
  ASSERT_TRUE(api_.UpdateStatus(placed).ok());
  ASSERT_TRUE(plane_->RunToQuiescence().ok());
  claims = Claims();
  ASSERT_EQ(claims[0].status.reserved_for.size(), 1u);
  EXPECT_EQ(claims[0].status.reserved_for[0].uid, placed.metadata.uid);
}

}  // namespace
}  // namespace dralloc::controlplane
