#include "quota/extended_resource_claim_owner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/well_known.h"
#include "quota/pod_evaluator.h"
#include "quota/resource_claim_evaluator.h"
#include "quota/usage_math.h"

namespace dralloc::quota {
namespace {

api::Pod GpuPod() {
  api::Pod pod;
  pod.metadata.name = "trainer";
  pod.metadata.namespace_ = "ns";
  pod.metadata.uid = "pod-uid";
  api::Container& container = pod.spec.containers.emplace_back();
  container.name = "main";
  container.resources.requests.emplace("example.com/gpu",
                                       Quantity::FromInt64(1));
  return pod;
}

api::ResourceClaim SpecialClaim(std::string name, std::string created) {
  api::ResourceClaim claim;
  claim.metadata.name = std::move(name);
  claim.metadata.namespace_ = "ns";
  claim.metadata.creation_timestamp = std::move(created);
  claim.metadata.annotations.emplace(
      std::string(api::kExtendedResourceClaimAnnotation), "true");
  api::OwnerReference& owner = claim.metadata.owner_references.emplace_back();
  owner.api_version = "v1";
  owner.kind = "Pod";
  owner.name = "trainer";
  owner.uid = "pod-uid";
  owner.controller = true;
  api::DeviceRequest& request = claim.spec.devices.requests.emplace_back();
  request.name = "container-0-request-0";
  request.exactly.emplace();
  request.exactly->device_class_name = "gpu";
  request.exactly->allocation_mode = "ExactCount";
  request.exactly->count = 1;
  return claim;
}

TEST(ExtendedResourceClaimOwnerTest, NeedsAnnotationAndPodController) {
  api::ResourceClaim claim = SpecialClaim("c", "2026-11-29T10:00:00Z");
  ASSERT_NE(ExtendedResourceClaimOwner(claim), nullptr);
  EXPECT_EQ(ExtendedResourceClaimOwner(claim)->name, "trainer");

  api::ResourceClaim not_annotated = claim;
  not_annotated.metadata.annotations.clear();
  EXPECT_EQ(ExtendedResourceClaimOwner(not_annotated), nullptr);

  api::ResourceClaim owned_by_job = claim;
  owned_by_job.metadata.owner_references[0].kind = "Job";
  owned_by_job.metadata.owner_references[0].api_version = "batch/v1";
  EXPECT_EQ(ExtendedResourceClaimOwner(owned_by_job), nullptr);

  api::ResourceClaim not_controller = claim;
  not_controller.metadata.owner_references[0].controller = false;
  EXPECT_EQ(ExtendedResourceClaimOwner(not_controller), nullptr);
}

TEST(ExtendedResourceClaimOwnerTest, VerifiesUidStatusAndFirstClaim) {
  const api::Pod pod = GpuPod();
  const api::ResourceClaim first = SpecialClaim("a", "2026-11-29T10:00:00Z");
  const api::ResourceClaim later = SpecialClaim("b", "2026-11-29T10:00:05Z");
  const api::ResourceClaim same_second =
      SpecialClaim("0", "2026-11-29T10:00:00Z");
  EXPECT_TRUE(IsVerifiedExtendedResourceClaim(first, pod, {&first, &later}));
  EXPECT_FALSE(IsVerifiedExtendedResourceClaim(later, pod, {&first, &later}));
  EXPECT_FALSE(
      IsVerifiedExtendedResourceClaim(first, pod, {&first, &same_second}));
  // A claim being created (no timestamp yet) comes after the stored ones.
  api::ResourceClaim creating = SpecialClaim("new", "");
  creating.metadata.creation_timestamp.reset();
  EXPECT_TRUE(IsVerifiedExtendedResourceClaim(creating, pod, {}));
  EXPECT_FALSE(IsVerifiedExtendedResourceClaim(creating, pod, {&first}));

  api::Pod recorded = pod;
  recorded.status.extended_resource_claim_status.emplace().resource_claim_name =
      "b";
  EXPECT_TRUE(
      IsVerifiedExtendedResourceClaim(later, recorded, {&first, &later}));
  EXPECT_FALSE(
      IsVerifiedExtendedResourceClaim(first, recorded, {&first, &later}));

  api::Pod recreated = pod;
  recreated.metadata.uid = "other-uid";
  EXPECT_FALSE(IsVerifiedExtendedResourceClaim(first, recreated, {}));
}

// The pod evaluator charges the pod's request, so the special claim adds
// only what exceeds it: the implicit name is the pod's too only when the pod
// asked for it.
TEST(ExtendedResourceClaimOwnerTest, ClaimChargesOnlyBeyondThePod) {
  const api::Pod pod = GpuPod();
  const api::ResourceClaim claim = SpecialClaim("c", "2026-11-29T10:00:00Z");
  const auto extended_name =
      [](std::string_view) -> std::optional<std::string> {
    return "example.com/gpu";
  };
  const api::ResourceList pod_usage =
      PodEvaluator::Usage(pod, *ParseUtcTime("2026-11-29T12:00:00Z"));
  const api::ResourceList usage =
      ResourceClaimEvaluator::Usage(claim, extended_name, &pod_usage);
  EXPECT_EQ(PrettyPrint(usage),
            "count/resourceclaims.resource.k8s.io=1,"
            "gpu.deviceclass.resource.k8s.io/devices=1,"
            "requests.deviceclass.resource.kubernetes.io/gpu=1");
  const api::ResourceList unverified =
      ResourceClaimEvaluator::Usage(claim, extended_name);
  EXPECT_EQ(PrettyPrint(unverified),
            "count/resourceclaims.resource.k8s.io=1,"
            "gpu.deviceclass.resource.k8s.io/devices=1,"
            "requests.deviceclass.resource.kubernetes.io/gpu=1,"
            "requests.example.com/gpu=1");
}

}  // namespace
}  // namespace dralloc::quota
