// ResourceQuotaController against the in-memory API: status.hard follows
// spec.hard and status.used is recomputed from the namespace's claims on
// quota changes, claim deletions and full resyncs.
#include "controller/resource_quota_controller.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "client/memory_api_client.h"

namespace dralloc::controller {
namespace {

constexpr char kClaims[] = "count/resourceclaims.resource.k8s.io";
constexpr char kGpus[] = "gpu.deviceclass.resource.k8s.io/devices";

api::ResourceList List(std::vector<std::pair<std::string, int64_t>> entries) {
  api::ResourceList list;
  for (const auto& [name, value] : entries) {
    list.emplace(name, Quantity::FromInt64(value));
  }
  return list;
}

api::ResourceClaim Claim(const std::string& name, int64_t gpus,
                         const std::string& namespace_ = "ns") {
  api::ResourceClaim claim;
  claim.metadata.name = name;
  claim.metadata.namespace_ = namespace_;
  api::DeviceRequest request;
  request.name = "gpus";
  request.exactly.emplace();
  request.exactly->device_class_name = "gpu";
  request.exactly->allocation_mode = "ExactCount";
  request.exactly->count = gpus;
  claim.spec.devices.requests.push_back(std::move(request));
  return claim;
}

class ResourceQuotaControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"ns", "other"}) {
      api::Namespace ns;
      ns.metadata.name = name;
      ASSERT_TRUE(api_.Create(ns).ok());
    }
  }

  // Pumps and processes until nothing changes (bounded).
  void Settle() {
    for (int round = 0; round < 100; ++round) {
      size_t changes = *quotas_.Pump(std::chrono::milliseconds(0)) +
                       *claims_.Pump(std::chrono::milliseconds(0));
      bool worked = false;
      while (controller_.ProcessOne()) worked = true;
      if (changes == 0 && !worked) return;
    }
    ADD_FAILURE() << "no quiescence";
  }

  void CreateQuota(const std::string& name, api::ResourceList hard) {
    api::ResourceQuota quota;
    quota.metadata.name = name;
    quota.metadata.namespace_ = "ns";
    quota.spec.hard = std::move(hard);
    auto created = api_.Create(quota);
    ASSERT_TRUE(created.ok()) << created.status();
  }

  void CreateClaim(api::ResourceClaim claim) {
    auto created = api_.Create(std::move(claim));
    ASSERT_TRUE(created.ok()) << created.status();
  }

  api::ResourceQuota GetQuota(const std::string& name) {
    auto got = api_.Get(client::ResourceFor<api::ResourceQuota>(), "ns", name);
    EXPECT_TRUE(got.ok()) << got.status();
    return got.ok() ? std::get<api::ResourceQuota>(**got)
                    : api::ResourceQuota{};
  }

  // "name=value,..." of status.used, sorted by name.
  std::string Used(const std::string& name) {
    std::string out;
    for (const auto& [resource, value] : GetQuota(name).status.used) {
      if (!out.empty()) out += ",";
      out += resource + "=" + value.ToString();
    }
    return out;
  }

  client::MemoryApiClient api_;
  client::Informer quotas_{api_, client::ResourceFor<api::ResourceQuota>()};
  client::Informer claims_{api_, client::ResourceFor<api::ResourceClaim>()};
  ResourceQuotaController controller_{api_, quotas_, claims_};
};

TEST_F(ResourceQuotaControllerTest, NewQuotaGetsHardAndUsageFromClaims) {
  CreateClaim(Claim("a", 2));
  CreateClaim(Claim("b", 1));
  CreateClaim(Claim("elsewhere", 4, "other"));
  CreateQuota("gpus", List({{kClaims, 10}, {kGpus, 8}}));
  Settle();
  const api::ResourceQuota quota = GetQuota("gpus");
  EXPECT_EQ(quota.status.hard, quota.spec.hard);
  EXPECT_EQ(Used("gpus"), std::string(kClaims) + "=2," + kGpus + "=3");
}

TEST_F(ResourceQuotaControllerTest, UsageStartsAtZeroWithoutClaims) {
  CreateQuota("gpus", List({{kGpus, 8}}));
  Settle();
  EXPECT_EQ(Used("gpus"), std::string(kGpus) + "=0");
}

TEST_F(ResourceQuotaControllerTest, DeletingAClaimReleasesItsUsage) {
  CreateQuota("gpus", List({{kClaims, 10}, {kGpus, 8}}));
  CreateClaim(Claim("a", 2));
  CreateClaim(Claim("b", 3));
  Settle();
  controller_.ResyncAll();
  Settle();
  EXPECT_EQ(Used("gpus"), std::string(kClaims) + "=2," + kGpus + "=5");
  ASSERT_TRUE(
      api_.Delete(client::ResourceFor<api::ResourceClaim>(), "ns", "b", "")
          .ok());
  Settle();
  EXPECT_EQ(Used("gpus"), std::string(kClaims) + "=1," + kGpus + "=2");
}

TEST_F(ResourceQuotaControllerTest, EditedHardIsCopiedAndRecomputed) {
  CreateQuota("gpus", List({{kClaims, 10}}));
  CreateClaim(Claim("a", 2));
  Settle();
  api::ResourceQuota quota = GetQuota("gpus");
  quota.spec.hard = List({{kGpus, 4}});
  ASSERT_TRUE(api_.Update(quota).ok());
  Settle();
  quota = GetQuota("gpus");
  EXPECT_EQ(quota.status.hard, List({{kGpus, 4}}));
  EXPECT_EQ(Used("gpus"), std::string(kGpus) + "=2");
}

TEST_F(ResourceQuotaControllerTest, ResyncCorrectsAnOvercharge) {
  CreateQuota("gpus", List({{kGpus, 8}}));
  CreateClaim(Claim("a", 1));
  Settle();
  // As if the admission charged a create whose write then failed.
  api::ResourceQuota quota = GetQuota("gpus");
  quota.status.used = List({{kGpus, 7}});
  ASSERT_TRUE(api_.UpdateStatus(quota).ok());
  Settle();
  EXPECT_EQ(Used("gpus"), std::string(kGpus) + "=7");
  controller_.ResyncAll();
  Settle();
  EXPECT_EQ(Used("gpus"), std::string(kGpus) + "=1");
}

TEST(ResourceQuotaDesiredStatusTest, KeepsOtherResourcesAndSkipsScopedQuotas) {
  api::ResourceQuota quota;
  quota.spec.hard = List({{"pods", 5}, {kGpus, 4}});
  quota.status.used = List({{"pods", 3}, {"gone", 1}});
  const api::ResourceClaim claim = Claim("a", 2);
  const std::vector<const api::ResourceClaim*> claims = {&claim};
  api::ResourceQuotaStatus status =
      ResourceQuotaController::DesiredStatus(quota, claims);
  EXPECT_EQ(status.used, List({{"pods", 3}, {kGpus, 2}}));
  quota.spec.scopes = {"BestEffort"};
  status = ResourceQuotaController::DesiredStatus(quota, claims);
  EXPECT_EQ(status.used, List({{"pods", 3}, {kGpus, 0}}));
}

}  // namespace
}  // namespace dralloc::controller
