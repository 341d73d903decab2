// The decisions of 1.30's k8s.io/dynamic-resource-allocation/controller.
#include "classiccontroller/controller_decisions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dralloc::classiccontroller {
namespace {

namespace v1alpha2 = api::v1alpha2;
using Action = ClaimSync::Action;

constexpr char kDriver[] = "gpu.example.com";

v1alpha2::ResourceClass Class(std::string driver = kDriver) {
  v1alpha2::ResourceClass resource_class;
  resource_class.metadata.name = "gpu";
  resource_class.driver_name = std::move(driver);
  return resource_class;
}

v1alpha2::ResourceClaim Claim(std::string_view mode) {
  v1alpha2::ResourceClaim claim;
  claim.metadata.name = "claim";
  claim.spec.resource_class_name = "gpu";
  claim.spec.allocation_mode = std::string(mode);
  return claim;
}

void Allocate(v1alpha2::ResourceClaim& claim) {
  claim.metadata.finalizers.push_back(DriverFinalizer(kDriver));
  claim.status.driver_name = kDriver;
  claim.status.allocation.emplace();
}

TEST(ControllerDecisionsTest, FinalizerIsNamedAfterTheDriver) {
  EXPECT_EQ(DriverFinalizer(kDriver), "gpu.example.com/deletion-protection");
}

TEST(ControllerDecisionsTest, ImmediateClaimsAreAllocatedWithoutAPod) {
  const v1alpha2::ResourceClass gpu = Class();
  v1alpha2::ResourceClaim claim = Claim(v1alpha2::kAllocationModeImmediate);
  EXPECT_EQ(DecideClaimSync(claim, &gpu, kDriver).action, Action::kAllocate);
  // Another driver's class, or none: retried with backoff.
  const v1alpha2::ResourceClass other = Class("other.example.com");
  EXPECT_EQ(DecideClaimSync(claim, &other, kDriver).action,
            Action::kRetryLater);
  EXPECT_EQ(DecideClaimSync(claim, nullptr, kDriver).action,
            Action::kRetryLater);
  // Allocated: nothing more, and it stays allocated while unused.
  Allocate(claim);
  EXPECT_EQ(DecideClaimSync(claim, &gpu, kDriver).action, Action::kNothing);
  // WaitForFirstConsumer claims wait for a PodSchedulingContext.
  EXPECT_EQ(
      DecideClaimSync(Claim(v1alpha2::kAllocationModeWaitForFirstConsumer),
                      &gpu, kDriver)
          .action,
      Action::kNothing);
}

TEST(ControllerDecisionsTest, DeallocatesWhenRequestedOrDeletedAndUnused) {
  const v1alpha2::ResourceClass gpu = Class();
  v1alpha2::ResourceClaim claim =
      Claim(v1alpha2::kAllocationModeWaitForFirstConsumer);
  Allocate(claim);
  claim.status.deallocation_requested = true;
  ClaimSync sync = DecideClaimSync(claim, &gpu, kDriver);
  EXPECT_EQ(sync.action, Action::kDeallocate);
  EXPECT_TRUE(sync.clear_allocation);
  EXPECT_TRUE(sync.clear_deallocation_requested);
  // Still reserved: nothing until the consumers are gone.
  claim.status.reserved_for.push_back({"", "pods", "app", "pod-uid"});
  EXPECT_EQ(DecideClaimSync(claim, &gpu, kDriver).action, Action::kNothing);
  // A deleted claim whose allocation is still in flight is stopped too.
  v1alpha2::ResourceClaim deleted =
      Claim(v1alpha2::kAllocationModeWaitForFirstConsumer);
  deleted.metadata.finalizers.push_back(DriverFinalizer(kDriver));
  deleted.metadata.deletion_timestamp = "2026-11-29T10:00:00Z";
  sync = DecideClaimSync(deleted, &gpu, kDriver);
  EXPECT_EQ(sync.action, Action::kDeallocate);
  EXPECT_FALSE(sync.clear_allocation);
  EXPECT_FALSE(sync.clear_deallocation_requested);
  // Not ours (no finalizer of this driver): left alone.
  deleted.metadata.finalizers = {"other.example.com/deletion-protection"};
  EXPECT_EQ(DecideClaimSync(deleted, &gpu, kDriver).action, Action::kNothing);
}

TEST(ControllerDecisionsTest, SchedulingContextNeedsAQuestionAndItsPod) {
  api::Pod pod;
  pod.metadata.uid = "pod-uid";
  v1alpha2::PodSchedulingContext context;
  context.metadata.owner_references.push_back(
      {"v1", "Pod", "app", "pod-uid", true, true});
  EXPECT_FALSE(SchedulingContextNeedsDriver(context, pod));
  context.spec.potential_nodes = {"worker-0"};
  EXPECT_TRUE(SchedulingContextNeedsDriver(context, pod));
  pod.metadata.uid = "new-pod-uid";  // a pod of the same name, recreated
  EXPECT_FALSE(SchedulingContextNeedsDriver(context, pod));
  pod.metadata.uid = "pod-uid";
  pod.metadata.deletion_timestamp = "2026-11-29T10:00:00Z";
  EXPECT_FALSE(SchedulingContextNeedsDriver(context, pod));
}

TEST(ControllerDecisionsTest, PendingClaimsAreUnallocatedDelayedAndOurs) {
  const v1alpha2::ResourceClass gpu = Class();
  const v1alpha2::ResourceClass other = Class("other.example.com");
  v1alpha2::ResourceClaim claim =
      Claim(v1alpha2::kAllocationModeWaitForFirstConsumer);
  EXPECT_TRUE(ClaimPendingForDriver(claim, &gpu, kDriver));
  EXPECT_FALSE(ClaimPendingForDriver(claim, &other, kDriver));
  EXPECT_FALSE(ClaimPendingForDriver(Claim(v1alpha2::kAllocationModeImmediate),
                                     &gpu, kDriver));
  Allocate(claim);
  EXPECT_FALSE(ClaimPendingForDriver(claim, &gpu, kDriver));
}

TEST(ControllerDecisionsTest, SelectedNodeIsCheckedToo) {
  v1alpha2::PodSchedulingContext context;
  context.spec.potential_nodes = {"worker-0", "worker-1"};
  context.spec.selected_node = "worker-2";
  EXPECT_EQ(NodesToCheck(context),
            (std::vector<std::string>{"worker-0", "worker-1", "worker-2"}));
  context.spec.selected_node = "worker-1";
  EXPECT_EQ(NodesToCheck(context).size(), 2u);
}

TEST(ControllerDecisionsTest, UnsuitableNodesAreCutTo128) {
  std::vector<std::string> nodes;
  for (int i = 0; i < 129; ++i) nodes.push_back("n" + std::to_string(i));
  // The selected node came last: the first entry goes.
  std::vector<std::string> cut = TruncateNodes(nodes, "n128");
  EXPECT_EQ(cut.size(), 128u);
  EXPECT_EQ(cut.front(), "n1");
  // The selected node is first: the last entry goes.
  cut = TruncateNodes(nodes, "n0");
  EXPECT_EQ(cut.front(), "n0");
  EXPECT_EQ(cut.back(), "n127");
}

TEST(ControllerDecisionsTest, StatusEntriesAreAddedOrReplaced) {
  v1alpha2::PodSchedulingContextStatus status;
  EXPECT_TRUE(SetUnsuitableNodes(status, "gpu", {"worker-1"}, ""));
  EXPECT_FALSE(SetUnsuitableNodes(status, "gpu", {"worker-1"}, ""));
  EXPECT_TRUE(SetUnsuitableNodes(status, "gpu", {}, ""));
  EXPECT_TRUE(SetUnsuitableNodes(status, "nic", {"worker-0"}, ""));
  ASSERT_EQ(status.resource_claims.size(), 2u);
  EXPECT_TRUE(status.resource_claims[0].unsuitable_nodes.empty());
  EXPECT_EQ(status.resource_claims[1].name, "nic");
}

}  // namespace
}  // namespace dralloc::classiccontroller
