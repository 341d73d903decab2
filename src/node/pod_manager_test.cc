// The pod lifecycle against the in-memory API and a fake driver on a real
// unix socket: claims checked in the kubelet's order, Events, status as the
// kubelet writes it, shared claims, deletion and restart.
#include "node/pod_manager.h"

#include <gtest/gtest.h>

#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "client/memory_api_client.h"
#include "client/node_identity_api_client.h"
#include "node/cdi_device_resolver.h"
#include "node/fake_dra_driver.h"
#include "node/node_test_util.h"
#include "node/process_runtime.h"

namespace dralloc::node {
namespace {

using client::testing::NodeIdentityApiClient;
using testing::FakeDraDriver;
using testing::TempDir;
using testing::WaitFor;
using namespace std::chrono_literals;
constexpr char kDriver[] = "gpu.example.com";

// One allocation result: request, driver, pool, device.
api::DeviceRequestAllocationResult Result(std::string request,
                                          std::string driver, std::string pool,
                                          std::string device) {
  api::DeviceRequestAllocationResult result;
  result.request = std::move(request);
  result.driver = std::move(driver);
  result.pool = std::move(pool);
  result.device = std::move(device);
  return result;
}

class PodManagerTest : public ::testing::Test {
 protected:
  PodManagerTest() : driver_(kDriver, dir_.Sub("r"), dir_.Sub("p")) {}
  void SetUp() override {
    driver_.state().cdi_dir = dir_.Sub("cdi");
    ASSERT_TRUE(driver_.Start());
    StartAgent();
  }
  void TearDown() override {
    StopAgent();
    // The agent read only what the Node authorizer lets node-a read.
    EXPECT_EQ(node_api_.refused(), std::vector<std::string>{});
  }

  void StartAgent() {
    auto cache = ClaimInfoCache::Open(dir_.Sub("state"));
    ASSERT_TRUE(cache.ok()) << cache.status();
    cache_ = std::move(*cache);
    dra_ = std::make_unique<DraManager>(
        *cache_,
        [this](std::string_view)
            -> StatusOr<std::shared_ptr<const DraPluginClient>> {
          return std::make_shared<const DraPluginClient>(
              kDriver, driver_.state().endpoint, DraApiVersion::kV1, 2s);
        });
    PodManagerOptions options;
    options.node_name = "node-a";
    options.host_ip = "192.0.2.1";
    options.backoff_initial = backoff_initial_;
    options.backoff_max = backoff_max_;
    options.claim_recheck_initial = 10ms;
    options.claim_recheck_max = 40ms;
    options.reconcile_period = 100ms;
    cdi_ =
        std::make_unique<CdiDeviceResolver>(std::vector<std::filesystem::path>{
            dir_.Sub("cdi-static"), dir_.Sub("cdi")});
    pods_ = std::make_unique<PodManager>(
        node_api_, *dra_,
        [this](const std::vector<std::string>& ids) {
          return cdi_->Resolve(ids);
        },
        options, runtime_.get());
    ASSERT_TRUE(pods_->Start(5s).ok());
  }
  void StopAgent() {
    if (pods_) pods_->Stop();
    pods_.reset();
    cdi_.reset();
    dra_.reset();
    cache_.reset();
  }

  std::string CreateClaim(const std::string& name) {
    api::ResourceClaim claim;
    claim.metadata.name = name;
    claim.metadata.namespace_ = "default";
    auto created = api_.Create(claim);
    EXPECT_TRUE(created.ok()) << created.status();
    return std::get<api::ResourceClaim>(**created).metadata.uid;
  }
  // Allocates claim `name` and reserves it for the pods `pod_names`.
  void AllocateAndReserve(const std::string& name,
                          const std::vector<std::string>& pod_names) {
    auto got = api_.Get(client::ResourceClaimsResource(), "default", name);
    ASSERT_TRUE(got.ok());
    api::ResourceClaim claim = std::get<api::ResourceClaim>(**got);
    api::AllocationResult allocation;
    allocation.devices.results.push_back(
        Result("gpu", kDriver, "node-a", "gpu-0"));
    claim.status.allocation = allocation;
    claim.status.reserved_for.clear();
    for (const std::string& pod : pod_names) {
      claim.status.reserved_for.push_back({"", "pods", pod, PodUid(pod)});
    }
    ASSERT_TRUE(api_.UpdateStatus(claim).ok());
  }
  void CreatePod(const std::string& name,
                 const std::vector<std::string>& claim_names,
                 const std::string& node = "node-a",
                 const std::string& shell_command = "") {
    api::Pod pod;
    pod.metadata.name = name;
    pod.metadata.namespace_ = "default";
    pod.spec.node_name = node;
    api::Container container;
    container.name = "ctr";
    container.image = "busybox";
    if (!shell_command.empty()) {
      SetUnknownField(
          container.unknown_fields, "command",
          nlohmann::json::array({"sh", "-c", shell_command}).dump());
    }
    for (const std::string& claim : claim_names) {
      pod.spec.resource_claims.push_back({claim, claim, std::nullopt});
      container.resources.claims.push_back({claim, ""});
    }
    pod.spec.containers.push_back(container);
    if (!shell_command.empty()) {  // commands run once (process runtime)
      SetUnknownField(pod.spec.unknown_fields, "restartPolicy",
                      nlohmann::json("Never").dump());
    }
    pod.status.phase = "Pending";
    pod.status.conditions.push_back(
        {"PodScheduled", "True", std::nullopt, "2026-11-27T00:00:00Z", "", ""});
    auto created = api_.Create(pod);
    ASSERT_TRUE(created.ok()) << created.status();
  }
  std::string PodUid(const std::string& name) {
    auto got = api_.Get(client::PodsResource(), "default", name);
    return got.ok() ? std::get<api::Pod>(**got).metadata.uid : "";
  }
  std::optional<api::Pod> GetPod(const std::string& name) {
    auto got = api_.Get(client::PodsResource(), "default", name);
    if (!got.ok()) return std::nullopt;
    return std::get<api::Pod>(**got);
  }
  std::string Phase(const std::string& name) {
    auto pod = GetPod(name);
    return pod ? pod->status.phase : "";
  }
  std::vector<api::Event> Events() {
    std::vector<api::Event> events;
    auto list = api_.List(client::EventsResource());
    for (const auto& o : list->items)
      events.push_back(std::get<api::Event>(*o));
    return events;
  }
  bool HasEvent(const std::string& pod, const std::string& substring) {
    for (const api::Event& e : Events()) {
      if (e.involved_object.name == pod && e.type == "Warning" &&
          e.reason == "FailedPrepareDynamicResources" &&
          e.message.find(substring) != std::string::npos) {
        return true;
      }
    }
    return false;
  }
  size_t PrepareCalls() {
    std::lock_guard lock(driver_.state().mu);
    return driver_.state().prepare_calls.size();
  }
  std::vector<std::vector<std::string>> UnprepareCalls() {
    std::lock_guard lock(driver_.state().mu);
    return driver_.state().unprepare_calls;
  }

  TempDir dir_;
  FakeDraDriver driver_;
  client::MemoryApiClient api_;
  // What the agent sees: list and watch as the Node authorizer allows them.
  NodeIdentityApiClient node_api_{api_, "node-a"};
  std::unique_ptr<CdiDeviceResolver> cdi_;
  std::unique_ptr<ClaimInfoCache> cache_;
  std::unique_ptr<DraManager> dra_;
  std::unique_ptr<ContainerRuntime> runtime_;  // null: simulated
  std::unique_ptr<PodManager> pods_;
  std::chrono::milliseconds backoff_initial_ = 20ms;
  std::chrono::milliseconds backoff_max_ = 200ms;
};

nlohmann::json UnknownField(const api::Pod& pod, std::string_view name) {
  const api::RawJson* raw = FindUnknownField(pod.status.unknown_fields, name);
  return raw ? nlohmann::json::parse(raw->json) : nlohmann::json();
}

TEST_F(PodManagerTest, PreparedPodRunsWithKubeletStatus) {
  const std::string claim_uid = CreateClaim("gpu");
  CreatePod("p1", {"gpu"});
  AllocateAndReserve("gpu", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Running"; }));
  api::Pod pod = *GetPod("p1");
  std::map<std::string, std::string> conditions;
  for (const auto& c : pod.status.conditions) conditions[c.type] = c.status;
  EXPECT_EQ(conditions, (std::map<std::string, std::string>{
                            {"ContainersReady", "True"},
                            {"Initialized", "True"},
                            {"PodReadyToStartContainers", "True"},
                            {"PodScheduled", "True"},
                            {"Ready", "True"}}));
  EXPECT_EQ(UnknownField(pod, "hostIP"), "192.0.2.1");
  const std::string ip = UnknownField(pod, "podIP").get<std::string>();
  EXPECT_TRUE(ip.starts_with("10.")) << ip;
  EXPECT_EQ(UnknownField(pod, "podIPs")[0]["ip"], ip);
  EXPECT_FALSE(UnknownField(pod, "startTime").is_null());
  auto status = UnknownField(pod, "containerStatuses")[0];
  EXPECT_EQ(status["name"], "ctr");
  EXPECT_EQ(status["image"], "busybox");
  EXPECT_EQ(status["ready"], true);
  EXPECT_EQ(status["started"], true);
  EXPECT_EQ(status["restartCount"], 0);
  EXPECT_TRUE(
      status["containerID"].get<std::string>().starts_with("dralloc://"));
  EXPECT_TRUE(status["state"]["running"].contains("startedAt"));

  std::vector<ContainerDevices> devices = {
      {"ctr", {"k8s.gpu.example.com/gpu=" + claim_uid + "-gpu-0"}, {}}};
  devices[0].edits.env = {"GPU_DEVICE_0=gpu-0"};
  EXPECT_EQ(pods_->DevicesOf("default/p1"), devices);
  EXPECT_EQ(PrepareCalls(), 1u);
}

TEST_F(PodManagerTest, ClaimNotReservedGetsEventAndNoStartUntilReserved) {
  CreateClaim("gpu");
  CreatePod("p1", {"gpu"});
  CreatePod("p2", {"missing"});
  ASSERT_TRUE(WaitFor([&] { return HasEvent("p1", "is not allocated"); }));
  ASSERT_TRUE(WaitFor([&] {
    return HasEvent("p2",
                    "spec.resourceClaims[0] (missing): resourceclaim "
                    "default/missing does not exist");
  }));
  AllocateAndReserve("gpu", {"someone-else"});
  ASSERT_TRUE(WaitFor([&] {
    return HasEvent("p1",
                    "spec.resourceClaims[0] (gpu): resourceclaim default/gpu "
                    "is not reserved for this pod: status.reservedFor does "
                    "not list pod uid " +
                        PodUid("p1"));
  }));
  EXPECT_NE(Phase("p1"), "Running");
  EXPECT_EQ(PrepareCalls(), 0u);

  AllocateAndReserve("gpu", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Running"; }));
  EXPECT_NE(Phase("p2"), "Running");
}

// Classic DRA (resource.k8s.io/v1alpha2): the claim is found in its own
// family and prepared through the driver its resourceHandles name; the
// container's claim reference (no request) gets all of its devices.
TEST_F(PodManagerTest, ClassicClaimIsPreparedThroughItsResourceHandleDriver) {
  api::v1alpha2::ResourceClaim claim;
  claim.metadata.name = "classic";
  claim.metadata.namespace_ = "default";
  claim.spec.resource_class_name = "gpu.example.com";
  auto created = api_.Create(claim);
  ASSERT_TRUE(created.ok()) << created.status();
  claim = std::get<api::v1alpha2::ResourceClaim>(**created);
  CreatePod("p1", {"classic"});
  ASSERT_TRUE(WaitFor([&] {
    return HasEvent("p1",
                    "spec.resourceClaims[0] (classic): resourceclaim "
                    "default/classic is not allocated");
  }));
  claim.status.driver_name = kDriver;
  claim.status.allocation.emplace();
  claim.status.allocation->resource_handles.push_back(
      {kDriver, R"({"nodeName":"node-a","gpus":["gpu-0"]})", std::nullopt});
  claim.status.reserved_for.push_back({"", "pods", "p1", PodUid("p1")});
  ASSERT_TRUE(api_.UpdateStatus(claim).ok());
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Running"; }));
  EXPECT_EQ(PrepareCalls(), 1u);
  std::vector<ContainerDevices> devices = {
      {"ctr",
       {"k8s.gpu.example.com/gpu=" + claim.metadata.uid + "-gpu-0"},
       {}}};
  devices[0].edits.env = {"GPU_DEVICE_0=gpu-0"};
  EXPECT_EQ(pods_->DevicesOf("default/p1"), devices);

  ASSERT_TRUE(api_.Delete(client::PodsResource(), "default", "p1", "").ok());
  ASSERT_TRUE(WaitFor([&] { return UnprepareCalls().size() == 1; }));
  EXPECT_EQ(UnprepareCalls()[0], std::vector<std::string>{claim.metadata.uid});
}

// Without a claim watch (a node may only get its pods' claims), a pod
// waiting for its claim reads it again on a short backoff: it starts once the
// claim appears, is allocated and reserved, with no list or watch of claims.
TEST_F(PodManagerTest, WaitingPodStartsOnceItsClaimIsReadyWithoutClaimWatch) {
  CreatePod("p1", {"late"});
  ASSERT_TRUE(WaitFor([&] { return HasEvent("p1", "does not exist"); }));
  CreateClaim("late");
  ASSERT_TRUE(WaitFor([&] { return HasEvent("p1", "is not allocated"); }));
  AllocateAndReserve("late", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Running"; }));
  EXPECT_EQ(PrepareCalls(), 1u);
  EXPECT_EQ(node_api_.refused(), std::vector<std::string>{});
  // The wrapper does refuse what a node may not do.
  NodeIdentityApiClient node_a(api_, "node-a");
  EXPECT_EQ(node_a.List(client::ResourceClaimsResource()).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_FALSE(node_a.ListMatching(client::PodsResource(), "").ok());
  EXPECT_FALSE(
      node_a.ListMatching(client::PodsResource(), "spec.nodeName=node-b").ok());
  EXPECT_TRUE(
      node_a.ListMatching(client::PodsResource(), "spec.nodeName=node-a").ok());
  EXPECT_EQ(node_a.refused(),
            (std::vector<std::string>{
                "list resourceclaims.resource.k8s.io", "list pods",
                "list pods?fieldSelector=spec.nodeName=node-b"}));
}

// KEP-5004: the scheduler's claim for the pod's extended resources, named
// by status.extendedResourceClaimStatus, is prepared with the pod, and each
// container gets the devices of the requests its mappings name.
TEST_F(PodManagerTest, ExtendedResourceClaimIsPreparedForTheMappedContainer) {
  api::Pod pod;
  pod.metadata.name = "p1";
  pod.metadata.namespace_ = "default";
  pod.spec.node_name = "node-a";
  for (const char* name : {"ctr", "other"}) {
    api::Container container;
    container.name = name;
    container.image = "busybox";
    pod.spec.containers.push_back(container);
  }
  pod.status.phase = "Pending";
  pod.status.conditions.push_back(
      {"PodScheduled", "True", std::nullopt, "2026-11-27T00:00:00Z", "", ""});
  api::PodExtendedResourceClaimStatus extended;
  extended.resource_claim_name = "p1-extended-resources-bcdfg";
  extended.request_mappings.push_back({"ctr", "example.com/gpu", "gpu"});
  pod.status.extended_resource_claim_status = extended;
  ASSERT_TRUE(api_.Create(pod).ok());
  ASSERT_TRUE(WaitFor([&] {
    return HasEvent("p1",
                    "status.extendedResourceClaimStatus: resourceclaim "
                    "default/p1-extended-resources-bcdfg does not exist");
  }));

  api::ResourceClaim claim;
  claim.metadata.name = "p1-extended-resources-bcdfg";
  claim.metadata.namespace_ = "default";
  claim.metadata.owner_references.push_back({.api_version = "v1",
                                             .kind = "Pod",
                                             .name = "p1",
                                             .uid = PodUid("p1"),
                                             .controller = true});
  auto created = api_.Create(claim);
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string claim_uid =
      std::get<api::ResourceClaim>(**created).metadata.uid;
  AllocateAndReserve("p1-extended-resources-bcdfg", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Running"; }));
  std::vector<ContainerDevices> devices = {
      {"ctr", {"k8s.gpu.example.com/gpu=" + claim_uid + "-gpu-0"}, {}},
      {"other", {}, {}}};
  devices[0].edits.env = {"GPU_DEVICE_0=gpu-0"};
  EXPECT_EQ(pods_->DevicesOf("default/p1"), devices);
  EXPECT_EQ(PrepareCalls(), 1u);
}

TEST_F(PodManagerTest, PodsOfOtherNodesAreIgnored) {
  CreateClaim("gpu");
  CreatePod("elsewhere", {"gpu"}, "node-b");
  AllocateAndReserve("gpu", {"elsewhere"});
  CreatePod("marker", {});
  ASSERT_TRUE(WaitFor([&] { return Phase("marker") == "Running"; }));
  EXPECT_EQ(Phase("elsewhere"), "Pending");
  EXPECT_EQ(PrepareCalls(), 0u);
}

TEST_F(PodManagerTest, PrepareFailureIsRetriedWithBackoff) {
  const std::string uid = CreateClaim("gpu");
  {
    std::lock_guard lock(driver_.state().mu);
    driver_.state().prepare_errors[uid] = "out of firmware";
  }
  CreatePod("p1", {"gpu"});
  AllocateAndReserve("gpu", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return HasEvent("p1", "out of firmware"); }));
  ASSERT_TRUE(WaitFor([&] { return PrepareCalls() >= 2; }));  // retried
  auto pod = *GetPod("p1");
  EXPECT_EQ(pod.status.phase, "Pending");
  EXPECT_EQ(
      UnknownField(pod, "containerStatuses")[0]["state"]["waiting"]["reason"],
      "ContainerCreating");
  {
    std::lock_guard lock(driver_.state().mu);
    driver_.state().prepare_errors.clear();
  }
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Running"; }));
}

TEST_F(PodManagerTest, UnknownCdiIdIsAnEvent) {
  const std::string uid = CreateClaim("gpu");
  {
    std::lock_guard lock(driver_.state().mu);
    driver_.state().skip_cdi.insert(uid);
  }
  CreatePod("p1", {"gpu"});
  AllocateAndReserve("gpu", {"p1"});
  ASSERT_TRUE(WaitFor([&] {
    return HasEvent("p1", "container ctr: unresolvable CDI devices");
  }));
  EXPECT_NE(Phase("p1"), "Running");
}

TEST_F(PodManagerTest, SharedClaimUnpreparedAfterLastPodIsDeleted) {
  const std::string uid = CreateClaim("shared");
  CreatePod("p1", {"shared"});
  CreatePod("p2", {"shared"});
  AllocateAndReserve("shared", {"p1", "p2"});
  ASSERT_TRUE(WaitFor(
      [&] { return Phase("p1") == "Running" && Phase("p2") == "Running"; }));
  EXPECT_EQ(PrepareCalls(), 1u);

  ASSERT_TRUE(api_.Delete(client::PodsResource(), "default", "p1", "").ok());
  ASSERT_TRUE(WaitFor([&] { return !pods_->IsRunning("default/p1"); }));
  EXPECT_TRUE(UnprepareCalls().empty());
  ASSERT_TRUE(api_.Delete(client::PodsResource(), "default", "p2", "").ok());
  ASSERT_TRUE(WaitFor([&] { return UnprepareCalls().size() == 1; }));
  EXPECT_EQ(UnprepareCalls()[0], std::vector<std::string>{uid});
  ASSERT_TRUE(WaitFor([&] { return cache_->List().empty(); }));
}

TEST_F(PodManagerTest, RestartUnpreparesClaimsOfPodsGoneMeanwhile) {
  const std::string uid = CreateClaim("gpu");
  CreatePod("p1", {"gpu"});
  AllocateAndReserve("gpu", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Running"; }));
  StopAgent();  // the agent is down while the pod is deleted
  ASSERT_TRUE(api_.Delete(client::PodsResource(), "default", "p1", "").ok());
  StartAgent();
  ASSERT_TRUE(WaitFor([&] { return UnprepareCalls().size() == 1; }));
  EXPECT_EQ(UnprepareCalls()[0], std::vector<std::string>{uid});
  EXPECT_EQ(PrepareCalls(), 1u);
}

TEST_F(PodManagerTest, RestartUnpreparesClaimsOfPodsFinishedMeanwhile) {
  const std::string uid = CreateClaim("gpu");
  CreatePod("p1", {"gpu"});
  AllocateAndReserve("gpu", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Running"; }));
  StopAgent();  // the pod ends while the agent is down
  api::Pod pod = *GetPod("p1");
  pod.status.phase = "Succeeded";
  ASSERT_TRUE(api_.UpdateStatus(pod).ok());
  StartAgent();
  ASSERT_TRUE(WaitFor([&] { return UnprepareCalls().size() == 1; }));
  EXPECT_EQ(UnprepareCalls()[0], std::vector<std::string>{uid});
  EXPECT_EQ(PrepareCalls(), 1u);
  EXPECT_EQ(Phase("p1"), "Succeeded");
}

// As the kubelet's reconcile: a claim recorded for a pod the agent does not
// know (force-deleted before its first sync after a restart) is unprepared
// while the agent runs, not at its next start.
TEST_F(PodManagerTest, ReconcileUnpreparesClaimsOfUnknownPods) {
  const std::string uid = CreateClaim("gpu");
  AllocateAndReserve("gpu", {});
  auto got = api_.Get(client::ResourceClaimsResource(), "default", "gpu");
  ASSERT_TRUE(got.ok());
  const NodeClaim claim = NodeClaim::Of(std::get<api::ResourceClaim>(**got));
  ASSERT_TRUE(dra_->PrepareResources("unknown-pod", {claim}).ok());
  // The driver sees the call before the agent records its answer.
  ASSERT_TRUE(WaitFor([&] { return !cache_->Get(uid).has_value(); }, 5s));
  ASSERT_EQ(UnprepareCalls().size(), 1u);
  EXPECT_EQ(UnprepareCalls()[0], std::vector<std::string>{uid});
}

TEST_F(PodManagerTest, GracefulDeletionUnpreparesThenDeletes) {
  const std::string uid = CreateClaim("gpu");
  CreatePod("p1", {"gpu"});
  {  // A finalizer keeps the pod after Delete, with a deletionTimestamp.
    api::Pod pod = *GetPod("p1");
    pod.metadata.finalizers.push_back("example.com/keep");
    ASSERT_TRUE(api_.Update(pod).ok());
  }
  AllocateAndReserve("gpu", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Running"; }));
  ASSERT_TRUE(api_.Delete(client::PodsResource(), "default", "p1", "").ok());
  ASSERT_TRUE(GetPod("p1")->metadata.deletion_timestamp.has_value());
  ASSERT_TRUE(WaitFor([&] { return UnprepareCalls().size() == 1; }));
  EXPECT_EQ(UnprepareCalls()[0], std::vector<std::string>{uid});
  ASSERT_TRUE(WaitFor([&] { return !pods_->IsRunning("default/p1"); }));
}

// A driver that registers wakes a deletion whose unprepare waits on its
// backoff (here an hour), not only pods that have not started.
TEST_F(PodManagerTest, RequeueWakesAnUnprepareWaitingOnItsBackoff) {
  StopAgent();
  backoff_initial_ = backoff_max_ = 1h;
  StartAgent();
  const std::string uid = CreateClaim("gpu");
  CreatePod("p1", {"gpu"});
  AllocateAndReserve("gpu", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Running"; }));
  {
    std::lock_guard lock(driver_.state().mu);
    driver_.state().unprepare_errors[uid] = "driver restarting";
  }
  ASSERT_TRUE(api_.Delete(client::PodsResource(), "default", "p1", "").ok());
  ASSERT_TRUE(WaitFor([&] { return UnprepareCalls().size() == 1; }));
  {
    std::lock_guard lock(driver_.state().mu);
    driver_.state().unprepare_errors.clear();
  }
  // Requeued until the retry the failed unprepare scheduled is woken (the
  // driver sees the call before the agent schedules the retry).
  ASSERT_TRUE(WaitFor(
      [&] {
        pods_->RequeueWaitingPods();
        return UnprepareCalls().size() == 2;
      },
      5s));
  EXPECT_TRUE(WaitFor([&] { return !pods_->IsRunning("default/p1"); }));
}

TEST_F(PodManagerTest, RestartKeepsRunningPodPreparedOnce) {
  CreateClaim("gpu");
  CreatePod("p1", {"gpu"});
  AllocateAndReserve("gpu", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Running"; }));
  const std::string version = GetPod("p1")->metadata.resource_version;
  StopAgent();
  StartAgent();
  ASSERT_TRUE(WaitFor([&] { return pods_->IsRunning("default/p1"); }));
  // Never set back to Pending: at most one more status write, Running.
  EXPECT_EQ(Phase("p1"), "Running");
  EXPECT_LE(std::stoll(GetPod("p1")->metadata.resource_version),
            std::stoll(version) + 1);
  EXPECT_EQ(PrepareCalls(), 1u);
  EXPECT_TRUE(UnprepareCalls().empty());
}

// --runtime process: the command runs with the claim's CDI env, its exit
// sets the pod's phase, and deletion stops it (SIGTERM) before the claim is
// unprepared and the pod removed.
class ProcessPodManagerTest : public PodManagerTest {
 protected:
  void SetUp() override {
    ProcessRuntimeOptions options;
    options.node_name = "node-a";
    options.logs_root = dir_.Sub("logs");
    options.poll_interval = 5ms;
    auto runtime = std::make_unique<ProcessRuntime>(options);
    process_runtime_ = runtime.get();
    runtime_ = std::move(runtime);
    PodManagerTest::SetUp();
  }
  void TearDown() override {
    PodManagerTest::TearDown();
    runtime_.reset();
  }
  std::string Log(const std::string& pod) {
    auto ref = process_runtime_->LogOf("default", pod, "ctr", false);
    if (!ref.ok()) return "";
    std::ifstream in(ref->path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  ProcessRuntime* process_runtime_ = nullptr;  // owned by runtime_
};

TEST_F(ProcessPodManagerTest, CommandSeesDeviceEnvAndItsExitSetsThePhase) {
  CreateClaim("gpu");
  CreatePod("p1", {"gpu"}, "node-a", "echo GPU=$GPU_DEVICE_0; exit 3");
  AllocateAndReserve("gpu", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Failed"; }, 10s))
      << Phase("p1");
  EXPECT_EQ(Log("p1"), "GPU=gpu-0\n");
  auto status = UnknownField(*GetPod("p1"), "containerStatuses")[0];
  EXPECT_EQ(status["state"]["terminated"]["exitCode"], 3);
  EXPECT_EQ(status["state"]["terminated"]["reason"], "Error");
  EXPECT_EQ(status["restartCount"], 0);  // restartPolicy Never
}

TEST_F(ProcessPodManagerTest, DeletionStopsTheCommandThenUnprepares) {
  const std::string uid = CreateClaim("gpu");
  const std::string marker = dir_.Sub("term-marker");
  CreatePod("p1", {"gpu"}, "node-a",
            "trap 'echo got TERM >" + marker +
                "; exit 0' TERM; echo up; "
                "while true; do sleep 0.05; done");
  AllocateAndReserve("gpu", {"p1"});
  // The process may print before its Running status is written.
  ASSERT_TRUE(WaitFor(
      [&] { return Log("p1") == "up\n" && Phase("p1") == "Running"; }, 10s));
  ASSERT_TRUE(api_.Delete(client::PodsResource(), "default", "p1", "").ok());
  ASSERT_TRUE(WaitFor([&] { return !GetPod("p1").has_value(); }, 10s));
  ASSERT_EQ(UnprepareCalls().size(), 1u);
  EXPECT_EQ(UnprepareCalls()[0], std::vector<std::string>{uid});
  std::ifstream in(marker);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  EXPECT_EQ(text, "got TERM\n");
}

// A runtime whose pods' containers have all exited by the time StartPod
// returns (a command quicker than the agent), and that reports no change
// after it.
class ExitedAtStartRuntime : public ContainerRuntime {
 public:
  void SetChangeListener(ChangeListener) override {}
  api::PodStatus CreatingStatus(const api::Pod& pod) const override {
    return pod.status;
  }
  Status StartPod(const api::Pod& pod, const std::vector<ContainerDevices>&,
                  std::vector<std::string>&) override {
    std::lock_guard lock(mu_);
    started_.insert(pod.metadata.uid);
    return OkStatus();
  }
  uint64_t StateVersion(const std::string& pod_uid) const override {
    std::lock_guard lock(mu_);
    return started_.contains(pod_uid) ? 1 : 0;
  }
  api::PodStatus StatusOf(const api::Pod& pod) const override {
    api::PodStatus status = pod.status;
    status.phase = "Succeeded";
    return status;
  }
  bool StopPod(const std::string& pod_uid, std::chrono::seconds) override {
    std::lock_guard lock(mu_);
    started_.erase(pod_uid);
    return true;
  }
  StatusOr<ContainerLogRef> LogOf(const std::string&, const std::string&,
                                  const std::string&, bool) const override {
    return NotFoundError("no logs");
  }

 private:
  mutable std::mutex mu_;
  std::set<std::string> started_;
};

class ExitedAtStartPodManagerTest : public PodManagerTest {
 protected:
  void SetUp() override {
    runtime_ = std::make_unique<ExitedAtStartRuntime>();
    PodManagerTest::SetUp();
  }
};

// The runtime's state never changes after the start, so the agent must
// see the end at the start: the claim is unprepared without deletion.
TEST_F(ExitedAtStartPodManagerTest, PodThatEndedAtStartIsReleased) {
  const std::string uid = CreateClaim("gpu");
  CreatePod("p1", {"gpu"});
  AllocateAndReserve("gpu", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Succeeded"; }, 10s))
      << Phase("p1");
  ASSERT_TRUE(WaitFor([&] { return !UnprepareCalls().empty(); }, 10s));
  EXPECT_EQ(UnprepareCalls()[0], std::vector<std::string>{uid});
  EXPECT_TRUE(GetPod("p1").has_value());
}

// As the kubelet: the claim controller deallocates a terminal pod's claims,
// so the phase is published only once they are unprepared.
TEST_F(ExitedAtStartPodManagerTest, TerminalPhaseWaitsForTheUnprepare) {
  const std::string uid = CreateClaim("gpu");
  {
    std::lock_guard lock(driver_.state().mu);
    driver_.state().unprepare_errors[uid] = "device busy";
  }
  CreatePod("p1", {"gpu"});
  AllocateAndReserve("gpu", {"p1"});
  ASSERT_TRUE(WaitFor([&] { return UnprepareCalls().size() >= 3; }, 10s));
  EXPECT_EQ(Phase("p1"), "Pending");
  {
    std::lock_guard lock(driver_.state().mu);
    driver_.state().unprepare_errors.clear();
  }
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Succeeded"; }, 10s))
      << Phase("p1");
}

}  // namespace
}  // namespace dralloc::node
