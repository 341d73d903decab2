#include "controller/classic/classic_claim_release.h"

#include <gtest/gtest.h>

#include <string>

namespace dralloc::controller::classic {
namespace {

namespace v1alpha2 = api::v1alpha2;

v1alpha2::ResourceClaim Claim(std::string_view mode, int consumers) {
  v1alpha2::ResourceClaim claim;
  claim.metadata.name = "claim";
  claim.spec.allocation_mode = std::string(mode);
  claim.status.driver_name = "gpu.example.com";
  claim.status.allocation.emplace();
  claim.status.allocation->shareable = consumers > 1;
  for (int i = 0; i < consumers; ++i) {
    claim.status.reserved_for.push_back(
        {"", "pods", "pod-" + std::to_string(i), "uid-" + std::to_string(i)});
  }
  return claim;
}

TEST(ClassicClaimReleaseTest, DriverClaimsAreDeallocatedByTheirDriver) {
  v1alpha2::ResourceClaim claim =
      Claim(v1alpha2::kAllocationModeWaitForFirstConsumer, 2);
  ClassicClaimRelease release = ReleaseConsumers(claim, {false, true});
  EXPECT_TRUE(release.write_status);
  ASSERT_EQ(claim.status.reserved_for.size(), 1u);
  EXPECT_EQ(claim.status.reserved_for[0].uid, "uid-1");
  EXPECT_FALSE(claim.status.deallocation_requested);
  release = ReleaseConsumers(claim, {false});
  EXPECT_TRUE(release.write_status);
  EXPECT_TRUE(claim.status.reserved_for.empty());
  EXPECT_TRUE(claim.status.deallocation_requested);
  EXPECT_TRUE(claim.status.allocation.has_value());  // the driver's to clear
  EXPECT_FALSE(release.remove_builtin_finalizer);
}

TEST(ClassicClaimReleaseTest, ImmediateDriverClaimsStayAllocated) {
  v1alpha2::ResourceClaim claim = Claim(v1alpha2::kAllocationModeImmediate, 1);
  const ClassicClaimRelease release = ReleaseConsumers(claim, {false});
  EXPECT_TRUE(release.write_status);
  EXPECT_FALSE(claim.status.deallocation_requested);
  EXPECT_TRUE(claim.status.allocation.has_value());
}

TEST(ClassicClaimReleaseTest, SchedulerAllocatedClaimsAreFreedAtOnce) {
  v1alpha2::ResourceClaim claim =
      Claim(v1alpha2::kAllocationModeWaitForFirstConsumer, 1);
  claim.metadata.finalizers.push_back(std::string(v1alpha2::kBuiltinFinalizer));
  const ClassicClaimRelease release = ReleaseConsumers(claim, {false});
  EXPECT_TRUE(release.write_status);
  EXPECT_TRUE(release.remove_builtin_finalizer);
  EXPECT_FALSE(claim.status.allocation.has_value());
  EXPECT_TRUE(claim.status.driver_name.empty());
  EXPECT_FALSE(claim.status.deallocation_requested);
}

TEST(ClassicClaimReleaseTest, DeletedSchedulerClaimWithoutConsumersIsFreed) {
  v1alpha2::ResourceClaim claim = Claim(v1alpha2::kAllocationModeImmediate, 0);
  claim.metadata.finalizers.push_back(std::string(v1alpha2::kBuiltinFinalizer));
  EXPECT_FALSE(ReleaseConsumers(claim, {}).write_status);  // in use: no
  claim.metadata.deletion_timestamp = "2026-11-29T10:00:00Z";
  const ClassicClaimRelease release = ReleaseConsumers(claim, {});
  EXPECT_TRUE(release.write_status);
  EXPECT_TRUE(release.remove_builtin_finalizer);
  EXPECT_FALSE(claim.status.allocation.has_value());
}

TEST(ClassicClaimReleaseTest, NothingChangesWhileEveryConsumerIsValid) {
  v1alpha2::ResourceClaim claim =
      Claim(v1alpha2::kAllocationModeWaitForFirstConsumer, 1);
  const v1alpha2::ResourceClaim before = claim;
  const ClassicClaimRelease release = ReleaseConsumers(claim, {true});
  EXPECT_FALSE(release.write_status);
  EXPECT_FALSE(release.remove_builtin_finalizer);
  EXPECT_EQ(claim, before);
}

}  // namespace
}  // namespace dralloc::controller::classic
