#include "apiserver/resource_quota_admission.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "api/resource_registry.h"
#include "apiserver/resource_storage.h"
#include "store/memory_store.h"

namespace dralloc::apiserver {
namespace {

constexpr char kClaims[] = "count/resourceclaims.resource.k8s.io";
constexpr char kGpus[] = "gpu.deviceclass.resource.k8s.io/devices";

class ResourceQuotaAdmissionTest : public testing::Test {
 protected:
  ResourceQuotaAdmissionTest() : storage_(store_) {
    storage_.AddAdmissionPlugin(
        std::make_unique<ResourceQuotaAdmission>(storage_));
  }

  void SetUp() override {
    for (const char* name : {"ns", "other"}) {
      api::Namespace ns;
      ns.metadata.name = name;
      ASSERT_TRUE(storage_.CreateObject(Scope("Namespace", ""), ns, {}).ok());
    }
  }

  static RequestScope Scope(std::string_view kind, std::string namespace_,
                            std::string name = "",
                            std::string subresource = "") {
    RequestScope scope;
    scope.info = api::FindResourceByKind(kind);
    scope.version = std::string(scope.info->versions[0]);
    scope.namespace_ = std::move(namespace_);
    scope.name = std::move(name);
    scope.subresource = std::move(subresource);
    return scope;
  }

  // A quota with spec.hard = status.hard = `hard`; status.used = `used`
  // unless nullopt (usage not computed yet).
  void CreateQuota(const std::string& name, api::ResourceList hard,
                   std::optional<api::ResourceList> used,
                   const std::string& namespace_ = "ns") {
    api::ResourceQuota quota;
    quota.metadata.name = name;
    quota.metadata.namespace_ = namespace_;
    quota.spec.hard = hard;
    auto created = storage_.CreateObject(Scope("ResourceQuota", namespace_),
                                         quota, {.want_object = true});
    ASSERT_TRUE(created.ok()) << created.error().message;
    quota = std::get<api::ResourceQuota>(*created->object);
    quota.status.hard = std::move(hard);
    if (used) quota.status.used = std::move(*used);
    auto written = storage_.UpdateObject(
        Scope("ResourceQuota", namespace_, name, "status"), quota, {});
    ASSERT_TRUE(written.ok()) << written.error().message;
  }

  api::ResourceQuota GetQuota(const std::string& name,
                              const std::string& namespace_ = "ns") {
    auto got = storage_.GetObject(Scope("ResourceQuota", namespace_, name));
    EXPECT_TRUE(got.ok());
    return got.ok() ? std::get<api::ResourceQuota>(**got)
                    : api::ResourceQuota{};
  }

  static api::ResourceClaim Claim(const std::string& name, int64_t gpus,
                                  const std::string& namespace_ = "ns") {
    api::ResourceClaim claim;
    claim.metadata.name = name;
    claim.metadata.namespace_ = namespace_;
    api::DeviceRequest request;
    request.name = "gpus";
    request.exactly.emplace();
    request.exactly->device_class_name = "gpu";
    request.exactly->count = gpus;
    claim.spec.devices.requests.push_back(std::move(request));
    return claim;
  }

  ApiOr<WriteResult> CreateClaim(const api::ResourceClaim& claim,
                                 bool dry_run = false) {
    WriteOptions options;
    options.dry_run = dry_run;
    options.want_object = true;
    return storage_.CreateObject(
        Scope("ResourceClaim", claim.metadata.namespace_), claim, options);
  }

  static api::Pod Pod(const std::string& name,
                      std::vector<std::pair<std::string, int64_t>> requests) {
    api::Pod pod;
    pod.metadata.name = name;
    pod.metadata.namespace_ = "ns";
    api::Container& container = pod.spec.containers.emplace_back();
    container.name = "main";
    container.image = "busybox";
    for (const auto& [resource, value] : requests) {
      container.resources.requests.emplace(resource,
                                           Quantity::FromInt64(value));
    }
    return pod;
  }

  ApiOr<WriteResult> CreatePod(const api::Pod& pod) {
    return storage_.CreateObject(Scope("Pod", pod.metadata.namespace_), pod,
                                 {.want_object = true});
  }

  static api::ResourceList List(
      std::vector<std::pair<std::string, int64_t>> entries) {
    api::ResourceList list;
    for (const auto& [name, value] : entries) {
      list.emplace(name, Quantity::FromInt64(value));
    }
    return list;
  }

  store::MemoryStore store_;
  ResourceStorage storage_;
};

TEST_F(ResourceQuotaAdmissionTest, ChargesUsageBeforeTheClaimIsStored) {
  CreateQuota("gpus", List({{kClaims, 5}, {kGpus, 4}}),
              List({{kClaims, 0}, {kGpus, 0}}));
  auto created = CreateClaim(Claim("a", 3));
  ASSERT_TRUE(created.ok()) << created.error().message;
  const api::ResourceQuota quota = GetQuota("gpus");
  EXPECT_EQ(quota.status.used.at(kClaims).ToString(), "1");
  EXPECT_EQ(quota.status.used.at(kGpus).ToString(), "3");
  // Only resources in hard are charged.
  EXPECT_FALSE(quota.status.used.contains(
      "requests.deviceclass.resource.kubernetes.io/gpu"));
}

TEST_F(ResourceQuotaAdmissionTest, RefusesOverQuotaWithUpstreamMessage) {
  CreateQuota("gpus", List({{kClaims, 5}, {kGpus, 4}}),
              List({{kClaims, 1}, {kGpus, 3}}));
  auto refused = CreateClaim(Claim("big", 2));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 403);
  EXPECT_EQ(refused.error().reason, "Forbidden");
  EXPECT_EQ(
      refused.error().message,
      "resourceclaims.resource.k8s.io \"big\" is forbidden: exceeded "
      "quota: gpus, requested: gpu.deviceclass.resource.k8s.io/devices=2, "
      "used: gpu.deviceclass.resource.k8s.io/devices=3, limited: "
      "gpu.deviceclass.resource.k8s.io/devices=4");
  EXPECT_EQ(refused.error().details.at("kind"), "resourceclaims");
  EXPECT_EQ(refused.error().details.at("group"), "resource.k8s.io");
  // Nothing stored, nothing charged.
  EXPECT_FALSE(storage_.GetObject(Scope("ResourceClaim", "ns", "big")).ok());
  EXPECT_EQ(GetQuota("gpus").status.used.at(kGpus).ToString(), "3");
}

// A classic (v1alpha2) claim costs one claim: charged, and refused with
// the resource of its own family named.
TEST_F(ResourceQuotaAdmissionTest, ClassicClaimsAreChargedAsClaims) {
  CreateQuota("gpus", List({{kClaims, 2}, {kGpus, 4}}),
              List({{kClaims, 1}, {kGpus, 3}}));
  RequestScope scope;
  scope.info = &api::ResourceInfoFor<api::v1alpha2::ResourceClaim>();
  scope.version = "v1alpha2";
  scope.namespace_ = "ns";
  api::v1alpha2::ResourceClaim claim;
  claim.metadata.name = "classic";
  claim.metadata.namespace_ = "ns";
  claim.spec.resource_class_name = "gpu.classic.example.com";
  auto created = storage_.CreateObject(scope, claim, {});
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(GetQuota("gpus").status.used.at(kClaims).ToString(), "2");
  EXPECT_EQ(GetQuota("gpus").status.used.at(kGpus).ToString(), "3");
  claim.metadata.name = "one-too-many";
  auto refused = storage_.CreateObject(scope, claim, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "resourceclaims.resource.k8s.io \"one-too-many\" is forbidden: "
            "exceeded quota: gpus, requested: "
            "count/resourceclaims.resource.k8s.io=1, used: "
            "count/resourceclaims.resource.k8s.io=2, limited: "
            "count/resourceclaims.resource.k8s.io=2");
}

TEST_F(ResourceQuotaAdmissionTest, RefusalNamesEveryExceededResource) {
  CreateQuota("tight", List({{kClaims, 1}, {kGpus, 1}}),
              List({{kClaims, 1}, {kGpus, 0}}));
  auto refused = CreateClaim(Claim("two", 2));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "resourceclaims.resource.k8s.io \"two\" is forbidden: exceeded "
            "quota: tight, requested: count/resourceclaims.resource.k8s.io=1,"
            "gpu.deviceclass.resource.k8s.io/devices=2, used: "
            "count/resourceclaims.resource.k8s.io=1,"
            "gpu.deviceclass.resource.k8s.io/devices=0, limited: "
            "count/resourceclaims.resource.k8s.io=1,"
            "gpu.deviceclass.resource.k8s.io/devices=1");
}

TEST_F(ResourceQuotaAdmissionTest, RefusesWhileUsageIsUnknown) {
  CreateQuota("fresh", List({{kClaims, 5}}), std::nullopt);
  auto refused = CreateClaim(Claim("a", 1));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 403);
  EXPECT_EQ(
      refused.error().message,
      "resourceclaims.resource.k8s.io \"a\" is forbidden: status unknown "
      "for quota: fresh, resources: count/resourceclaims.resource.k8s.io");
}

TEST_F(ResourceQuotaAdmissionTest, DryRunChecksButDoesNotCharge) {
  CreateQuota("gpus", List({{kGpus, 2}}), List({{kGpus, 0}}));
  ASSERT_TRUE(CreateClaim(Claim("a", 2), /*dry_run=*/true).ok());
  EXPECT_EQ(GetQuota("gpus").status.used.at(kGpus).ToString(), "0");
  EXPECT_FALSE(CreateClaim(Claim("b", 3), /*dry_run=*/true).ok());
}

TEST_F(ResourceQuotaAdmissionTest, IgnoresOtherNamespacesAndResources) {
  CreateQuota("pods-only", List({{"pods", 1}}), List({{"pods", 1}}));
  CreateQuota("elsewhere", List({{kGpus, 0}}), List({{kGpus, 0}}), "other");
  ASSERT_TRUE(CreateClaim(Claim("a", 8)).ok());
  EXPECT_EQ(GetQuota("pods-only").status.used.at("pods").ToString(), "1");
}

TEST_F(ResourceQuotaAdmissionTest, PodsAreChargedAndRefusedLikeUpstream) {
  CreateQuota("compute", List({{"pods", 2}, {"requests.example.com/gpu", 2}}),
              List({{"pods", 0}, {"requests.example.com/gpu", 0}}));
  ASSERT_TRUE(CreatePod(Pod("a", {{"example.com/gpu", 2}})).ok());
  EXPECT_EQ(
      GetQuota("compute").status.used.at("requests.example.com/gpu").ToString(),
      "2");
  auto refused = CreatePod(Pod("b", {{"example.com/gpu", 1}}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 403);
  EXPECT_EQ(refused.error().message,
            "pods \"b\" is forbidden: exceeded quota: compute, requested: "
            "requests.example.com/gpu=1, used: requests.example.com/gpu=2, "
            "limited: requests.example.com/gpu=2");
  ASSERT_TRUE(CreatePod(Pod("c", {})).ok());
  EXPECT_EQ(GetQuota("compute").status.used.at("pods").ToString(), "2");
}

TEST_F(ResourceQuotaAdmissionTest, PodsMustStateConstrainedCpu) {
  CreateQuota("cpu", List({{"requests.cpu", 4}}), List({{"requests.cpu", 0}}));
  auto refused = CreatePod(Pod("a", {}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "pods \"a\" is forbidden: failed quota: cpu: must specify "
            "requests.cpu for: main");
  ASSERT_TRUE(CreatePod(Pod("b", {{"cpu", 1}})).ok());
}

TEST_F(ResourceQuotaAdmissionTest, ScopedQuotaChargesOnlyMatchingPods) {
  CreateQuota("best-effort", List({{"pods", 1}}), List({{"pods", 0}}));
  api::ResourceQuota quota = GetQuota("best-effort");
  quota.spec.scopes = {"BestEffort"};
  ASSERT_TRUE(
      storage_
          .UpdateObject(Scope("ResourceQuota", "ns", "best-effort"), quota, {})
          .ok());
  ASSERT_TRUE(CreatePod(Pod("burstable-1", {{"cpu", 1}})).ok());
  ASSERT_TRUE(CreatePod(Pod("burstable-2", {{"cpu", 1}})).ok());
  ASSERT_TRUE(CreatePod(Pod("idle-1", {})).ok());
  EXPECT_FALSE(CreatePod(Pod("idle-2", {})).ok());
}

// KEP-5004: the claim the scheduler creates for a stored pod's
// `example.com/gpu: 1` is charged beyond the pod's own usage only.
TEST_F(ResourceQuotaAdmissionTest, SpecialClaimIsChargedBeyondItsPod) {
  api::DeviceClass gpu;
  gpu.metadata.name = "gpu";
  gpu.spec.extended_resource_name = "example.com/gpu";
  ASSERT_TRUE(storage_.CreateObject(Scope("DeviceClass", ""), gpu, {}).ok());
  CreateQuota("gpus", List({{"requests.example.com/gpu", 1}}),
              List({{"requests.example.com/gpu", 0}}));
  auto pod = CreatePod(Pod("trainer", {{"example.com/gpu", 1}}));
  ASSERT_TRUE(pod.ok());
  const auto& stored = std::get<api::Pod>(*pod->object);
  api::ResourceClaim claim = Claim("trainer-extended-resources-x", 1);
  claim.metadata.annotations.emplace(
      "resource.kubernetes.io/extended-resource-claim", "true");
  claim.metadata.owner_references.push_back({.api_version = "v1",
                                             .kind = "Pod",
                                             .name = "trainer",
                                             .uid = stored.metadata.uid,
                                             .controller = true});
  ASSERT_TRUE(CreateClaim(claim).ok());
  EXPECT_EQ(
      GetQuota("gpus").status.used.at("requests.example.com/gpu").ToString(),
      "1");
  // A claim of the same shape that no pod owns is charged in full.
  EXPECT_FALSE(CreateClaim(Claim("plain", 1)).ok());
}

TEST_F(ResourceQuotaAdmissionTest, SeveralQuotasAllChargedOrNone) {
  CreateQuota("claims", List({{kClaims, 10}}), List({{kClaims, 0}}));
  CreateQuota("gpus", List({{kGpus, 2}}), List({{kGpus, 0}}));
  ASSERT_TRUE(CreateClaim(Claim("a", 2)).ok());
  EXPECT_FALSE(CreateClaim(Claim("b", 1)).ok());
  EXPECT_EQ(GetQuota("claims").status.used.at(kClaims).ToString(), "1");
  EXPECT_EQ(GetQuota("gpus").status.used.at(kGpus).ToString(), "2");
}

TEST_F(ResourceQuotaAdmissionTest,
       ConcurrentCreatesAtTheLimitAdmitExactlyWhatFits) {
  constexpr int kCreates = 50;
  constexpr int kLimit = 10;
  CreateQuota("claims", List({{kClaims, kLimit}}), List({{kClaims, 0}}));
  std::atomic<int> admitted{0};
  std::atomic<int> forbidden{0};
  std::atomic<int> other{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kCreates; ++i) {
    threads.emplace_back([&, i] {
      auto created = CreateClaim(Claim("c" + std::to_string(i), 1));
      if (created.ok()) {
        ++admitted;
      } else if (created.error().code == 403) {
        ++forbidden;
      } else {
        ++other;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(admitted.load(), kLimit);
  EXPECT_EQ(forbidden.load(), kCreates - kLimit);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(GetQuota("claims").status.used.at(kClaims).ToString(), "10");
  EXPECT_EQ(store_.Count(ResourceStorage::Prefix(
                *api::FindResourceByKind("ResourceClaim"), "ns")),
            static_cast<size_t>(kLimit));
}

// Concurrent creates are charged in batches: within a batch each create is
// checked against the usage the earlier ones in it charged, so with two
// quotas and creates of different sizes the stored usage is exactly what
// was admitted, and neither limit is passed.
TEST_F(ResourceQuotaAdmissionTest, BatchedChargesAddUpAcrossQuotas) {
  CreateQuota("claims", List({{kClaims, 30}}), List({{kClaims, 0}}));
  CreateQuota("gpus", List({{kGpus, 25}}), List({{kGpus, 0}}));
  std::atomic<int> admitted_claims{0};
  std::atomic<int> admitted_gpus{0};
  std::atomic<int> other{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 48; ++i) {
    threads.emplace_back([&, i] {
      const int gpus = 1 + i % 3;
      auto created = CreateClaim(Claim("c" + std::to_string(i), gpus));
      if (created.ok()) {
        ++admitted_claims;
        admitted_gpus += gpus;
      } else if (created.error().code != 403) {
        ++other;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(other.load(), 0);
  EXPECT_LE(admitted_gpus.load(), 25);
  EXPECT_GE(admitted_gpus.load(), 23);  // refused only when 1-3 more fail
  EXPECT_EQ(GetQuota("gpus").status.used.at(kGpus).ToString(),
            std::to_string(admitted_gpus.load()));
  EXPECT_EQ(GetQuota("claims").status.used.at(kClaims).ToString(),
            std::to_string(admitted_claims.load()));
}

// Two admissions over one store stand for two API servers: only the CAS
// write of the quota keeps them from both taking the last unit.
TEST_F(ResourceQuotaAdmissionTest, TwoServersSharingAStoreNeverOvercommit) {
  ResourceStorage second(store_);
  second.AddAdmissionPlugin(std::make_unique<ResourceQuotaAdmission>(second));
  CreateQuota("claims", List({{kClaims, 10}}), List({{kClaims, 0}}));
  std::atomic<int> admitted{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 40; ++i) {
    threads.emplace_back([&, i] {
      ResourceStorage& storage = i % 2 == 0 ? storage_ : second;
      WriteOptions options;
      options.want_object = true;
      auto created =
          storage.CreateObject(Scope("ResourceClaim", "ns"),
                               Claim("c" + std::to_string(i), 1), options);
      if (created.ok()) ++admitted;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(admitted.load(), 10);
  EXPECT_EQ(GetQuota("claims").status.used.at(kClaims).ToString(),
            std::to_string(admitted.load()));
}

}  // namespace
}  // namespace dralloc::apiserver
