// ResourceQuotaController against the in-memory API: status.hard follows
// spec.hard and status.used is recomputed from the namespace's claims and
// pods on quota changes, claim and pod deletions, pods ending, and full
// resyncs.
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
                       *claims_.Pump(std::chrono::milliseconds(0)) +
                       *classic_claims_.Pump(std::chrono::milliseconds(0)) +
                       *pods_.Pump(std::chrono::milliseconds(0));
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
  client::Informer pods_{api_, client::ResourceFor<api::Pod>()};
  client::Informer classic_claims_{
      api_, client::ResourceFor<api::v1alpha2::ResourceClaim>()};
  ResourceQuotaController controller_{api_,    quotas_, claims_,         {},
                                      nullptr, &pods_,  &classic_claims_};
};

api::v1alpha2::ResourceClaim ClassicClaim(const std::string& name,
                                          const std::string& namespace_) {
  api::v1alpha2::ResourceClaim claim;
  claim.metadata.name = name;
  claim.metadata.namespace_ = namespace_;
  claim.spec.resource_class_name = "gpu.classic.example.com";
  return claim;
}

api::Pod CpuPod(const std::string& name, const std::string& cpu) {
  api::Pod pod;
  pod.metadata.name = name;
  pod.metadata.namespace_ = "ns";
  api::Container& container = pod.spec.containers.emplace_back();
  container.name = "main";
  container.resources.requests.emplace("cpu", *Quantity::Parse(cpu));
  return pod;
}

TEST_F(ResourceQuotaControllerTest, PodsAreChargedUntilTheyEndOrGo) {
  for (const char* name : {"a", "b"}) {
    ASSERT_TRUE(api_.Create(CpuPod(name, "500m")).ok());
  }
  CreateQuota("compute", List({{"pods", 10}, {"requests.cpu", 4}}));
  Settle();
  EXPECT_EQ(Used("compute"), "pods=2,requests.cpu=1");
  auto got = api_.Get(client::ResourceFor<api::Pod>(), "ns", "a");
  ASSERT_TRUE(got.ok());
  api::Pod finished = std::get<api::Pod>(**got);
  finished.status.phase = "Succeeded";
  ASSERT_TRUE(api_.UpdateStatus(finished).ok());
  Settle();
  EXPECT_EQ(Used("compute"), "pods=1,requests.cpu=500m");
  ASSERT_TRUE(api_.Delete(client::ResourceFor<api::Pod>(), "ns", "b", "").ok());
  Settle();
  EXPECT_EQ(Used("compute"), "pods=0,requests.cpu=0");
}

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

// Classic (v1alpha2) claims count as claims (docs/classic-dra.md section
// 3); naming no DeviceClass, they cost no devices.
TEST_F(ResourceQuotaControllerTest, ClassicClaimsCountAsClaims) {
  CreateClaim(Claim("a", 2));
  ASSERT_TRUE(api_.Create(ClassicClaim("classic-1", "ns")).ok());
  ASSERT_TRUE(api_.Create(ClassicClaim("classic-2", "ns")).ok());
  ASSERT_TRUE(api_.Create(ClassicClaim("elsewhere", "other")).ok());
  CreateQuota("gpus", List({{kClaims, 10}, {kGpus, 8}}));
  Settle();
  EXPECT_EQ(Used("gpus"), std::string(kClaims) + "=3," + kGpus + "=2");
  ASSERT_TRUE(api_.Delete(client::ResourceFor<api::v1alpha2::ResourceClaim>(),
                          "ns", "classic-1", "")
                  .ok());
  Settle();
  EXPECT_EQ(Used("gpus"), std::string(kClaims) + "=2," + kGpus + "=2");
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
  quota.spec.hard = List({{"services", 5}, {kGpus, 4}});
  quota.status.used = List({{"services", 3}, {"gone", 1}});
  const api::ResourceClaim claim = Claim("a", 2);
  ResourceQuotaController::NamespaceObjects objects;
  objects.claims = {&claim};
  api::ResourceQuotaStatus status =
      ResourceQuotaController::DesiredStatus(quota, objects);
  EXPECT_EQ(status.used, List({{"services", 3}, {kGpus, 2}}));
  quota.spec.scopes = {"BestEffort"};
  status = ResourceQuotaController::DesiredStatus(quota, objects);
  EXPECT_EQ(status.used, List({{"services", 3}, {kGpus, 0}}));
}

TEST(ResourceQuotaDesiredStatusTest, PodsCountWhereEveryScopeMatches) {
  api::ResourceQuota quota;
  quota.spec.hard = List({{"pods", 5}});
  quota.spec.scopes = {"NotBestEffort"};
  const api::Pod burstable = CpuPod("burstable", "1");
  api::Pod best_effort = CpuPod("best-effort", "1");
  best_effort.spec.containers[0].resources.requests.clear();
  const std::vector<const api::Pod*> pods = {&burstable, &best_effort};
  ResourceQuotaController::NamespaceObjects objects;
  objects.pods = &pods;
  EXPECT_EQ(ResourceQuotaController::DesiredStatus(quota, objects).used,
            List({{"pods", 1}}));
  quota.spec.scopes = {"BestEffort", "Terminating"};
  EXPECT_EQ(ResourceQuotaController::DesiredStatus(quota, objects).used,
            List({{"pods", 0}}));
}

// KEP-5004: the pod's own request and the claim the scheduler made for it
// are one GPU, not two.
TEST(ResourceQuotaDesiredStatusTest, SpecialClaimIsNotChargedTwice) {
  api::ResourceQuota quota;
  quota.spec.hard =
      List({{"requests.example.com/gpu", 4},
            {"requests.deviceclass.resource.kubernetes.io/gpu", 4}});
  api::Pod pod = CpuPod("trainer", "1");
  pod.metadata.uid = "pod-uid";
  pod.spec.containers[0].resources.requests.emplace("example.com/gpu",
                                                    Quantity::FromInt64(1));
  api::ResourceClaim claim = Claim("trainer-extended-resources-abcde", 1);
  claim.metadata.annotations.emplace(
      "resource.kubernetes.io/extended-resource-claim", "true");
  claim.metadata.owner_references.push_back({.api_version = "v1",
                                             .kind = "Pod",
                                             .name = "trainer",
                                             .uid = "pod-uid",
                                             .controller = true});
  const std::vector<const api::Pod*> pods = {&pod};
  ResourceQuotaController::NamespaceObjects objects;
  objects.claims = {&claim};
  objects.pods = &pods;
  objects.extended_name_of =
      [](std::string_view) -> std::optional<std::string> {
    return "example.com/gpu";
  };
  objects.is_mapped = [](std::string_view) { return true; };
  EXPECT_EQ(ResourceQuotaController::DesiredStatus(quota, objects).used,
            List({{"requests.example.com/gpu", 1},
                  {"requests.deviceclass.resource.kubernetes.io/gpu", 1}}));
}

}  // namespace
}  // namespace dralloc::controller
