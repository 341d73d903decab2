#include "quota/quota_check.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "quota/usage_math.h"

namespace dralloc::quota {
namespace {

using Outcome = QuotaCheck::Outcome;

constexpr char kClaims[] = "count/resourceclaims.resource.k8s.io";
constexpr char kGpus[] = "gpu.deviceclass.resource.k8s.io/devices";

ResourceList List(std::vector<std::pair<std::string, int64_t>> entries) {
  ResourceList list;
  for (const auto& [name, value] : entries) {
    list.emplace(name, Quantity::FromInt64(value));
  }
  return list;
}

api::ResourceQuota Quota(ResourceList hard, ResourceList used) {
  api::ResourceQuota quota;
  quota.metadata.name = "gpu-quota";
  quota.metadata.namespace_ = "ns";
  quota.spec.hard = hard;
  quota.status.hard = std::move(hard);
  quota.status.used = std::move(used);
  return quota;
}

// No DeviceClass maps an extended resource name in these cases.
QuotaCheck CheckClaim(const api::ResourceQuota& quota,
                      const ResourceList& usage) {
  return CheckClaimAgainstQuota(quota, usage, {});
}

const ResourceList kTwoGpuClaim = List({{kClaims, 1}, {kGpus, 2}});

TEST(QuotaCheckTest, ChargesWhatFits) {
  const QuotaCheck check = CheckClaim(
      Quota(List({{kClaims, 5}, {kGpus, 4}}), List({{kClaims, 1}, {kGpus, 2}})),
      kTwoGpuClaim);
  ASSERT_EQ(check.outcome, Outcome::kCharged) << check.refusal;
  EXPECT_TRUE(Equals(check.new_used, List({{kClaims, 2}, {kGpus, 4}})))
      << PrettyPrint(check.new_used);
}

TEST(QuotaCheckTest, ChargesOnlyResourcesInHard) {
  const QuotaCheck check = CheckClaim(
      Quota(List({{kClaims, 5}}), List({{kClaims, 0}})), kTwoGpuClaim);
  ASSERT_EQ(check.outcome, Outcome::kCharged);
  EXPECT_TRUE(Equals(check.new_used, List({{kClaims, 1}})));
}

TEST(QuotaCheckTest, RefusesWithUpstreamMessageNamingOnlyExceeded) {
  const QuotaCheck check = CheckClaim(
      Quota(List({{kClaims, 5}, {kGpus, 3}}), List({{kClaims, 1}, {kGpus, 2}})),
      kTwoGpuClaim);
  ASSERT_EQ(check.outcome, Outcome::kRefused);
  EXPECT_EQ(check.refusal,
            "exceeded quota: gpu-quota, requested: "
            "gpu.deviceclass.resource.k8s.io/devices=2, used: "
            "gpu.deviceclass.resource.k8s.io/devices=2, limited: "
            "gpu.deviceclass.resource.k8s.io/devices=3");
}

TEST(QuotaCheckTest, RefusalListsSeveralResourcesSorted) {
  const QuotaCheck check = CheckClaim(
      Quota(List({{kClaims, 1}, {kGpus, 1}}), List({{kClaims, 1}, {kGpus, 0}})),
      kTwoGpuClaim);
  ASSERT_EQ(check.outcome, Outcome::kRefused);
  EXPECT_EQ(check.refusal,
            "exceeded quota: gpu-quota, requested: "
            "count/resourceclaims.resource.k8s.io=1,"
            "gpu.deviceclass.resource.k8s.io/devices=2, used: "
            "count/resourceclaims.resource.k8s.io=1,"
            "gpu.deviceclass.resource.k8s.io/devices=0, limited: "
            "count/resourceclaims.resource.k8s.io=1,"
            "gpu.deviceclass.resource.k8s.io/devices=1");
}

TEST(QuotaCheckTest, RefusesWhileUsageIsUnknown) {
  const QuotaCheck check =
      CheckClaim(Quota(List({{kClaims, 5}, {kGpus, 4}, {"pods", 3}}), List({})),
                 kTwoGpuClaim);
  ASSERT_EQ(check.outcome, Outcome::kRefused);
  EXPECT_EQ(check.refusal,
            "status unknown for quota: gpu-quota, resources: "
            "count/resourceclaims.resource.k8s.io,"
            "gpu.deviceclass.resource.k8s.io/devices");
}

TEST(QuotaCheckTest, IgnoresQuotasOnOtherResources) {
  EXPECT_EQ(
      CheckClaim(Quota(List({{"pods", 1}}), List({})), kTwoGpuClaim).outcome,
      Outcome::kNotConstrained);
  // A quota on another class constrains nothing this claim uses.
  EXPECT_EQ(
      CheckClaim(Quota(List({{"tpu.deviceclass.resource.k8s.io/devices", 1}}),
                       List({{"tpu.deviceclass.resource.k8s.io/devices", 1}})),
                 kTwoGpuClaim)
          .outcome,
      Outcome::kNotConstrained);
}

}  // namespace
}  // namespace dralloc::quota
