// Device health end to end inside the node agent: a fake driver serves
// DRAResourceHealth (v1 or v1alpha1) beside its DRA service on a real unix
// socket, a pod uses one of its devices, and what the driver reports shows
// in the pod's containerStatuses[].allocatedResourcesStatus: a change, a
// stream break and reconnect, a report timing out, the driver going.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "client/memory_api_client.h"
#include "client/node_identity_api_client.h"
#include "node/fake_dra_driver.h"
#include "node/fake_health_service.h"
#include "node/node_agent.h"
#include "node/node_test_util.h"

namespace dralloc::node {
namespace {

using nlohmann::json;
using testing::FakeDeviceHealth;
using testing::FakeHealthService;
using testing::FakeHealthV1;
using testing::FakeHealthV1alpha1;
using testing::TempDir;
using testing::WaitFor;
using namespace std::chrono_literals;
constexpr char kDriver[] = "gpu.example.com";

class DeviceHealthTest : public ::testing::Test {
 protected:
  DeviceHealthTest()
      : driver_(kDriver, dir_.Sub("plugins_registry"), dir_.Sub("plugins")) {
    driver_.state().cdi_dir = dir_.Sub("cdi");
  }
  ~DeviceHealthTest() override {
    if (agent_) agent_->Stop();
    driver_.Stop();
    EXPECT_EQ(node_api_.refused(), std::vector<std::string>{});
  }

  void StartAgent() {
    NodeAgentOptions options;
    options.node_name = "node-a";
    options.plugins_registry = dir_.Sub("plugins_registry");
    options.plugins_dir = dir_.Sub("plugins");
    options.cdi_dirs = {dir_.Sub("cdi")};
    options.state_dir = dir_.Sub("state");
    options.prepare_timeout = 5s;
    options.backoff_max = 200ms;
    options.claim_recheck_initial = 10ms;
    options.claim_recheck_max = 40ms;
    options.sync_timeout = 5s;
    options.health.retry_initial = 20ms;
    options.health.retry_max = 100ms;
    options.health.expiry_interval = 50ms;
    agent_ = std::make_unique<NodeAgent>(node_api_, options);
    ASSERT_TRUE(agent_->Start().ok());
  }

  // Claim "gpu" allocated to the fake's device and pod "p1" using it.
  void CreatePodWithClaim() {
    api::ResourceClaim claim;
    claim.metadata = {.name = "gpu", .namespace_ = "default"};
    auto created = api_.Create(claim);
    ASSERT_TRUE(created.ok());
    claim = std::get<api::ResourceClaim>(**created);
    claim_uid_ = claim.metadata.uid;
    api::Pod pod;
    pod.metadata = {.name = "p1", .namespace_ = "default"};
    pod.spec.node_name = "node-a";
    pod.spec.resource_claims.push_back({"gpu", "gpu", std::nullopt});
    api::Container container;
    container.name = "ctr";
    container.resources.claims.push_back({"gpu", ""});
    pod.spec.containers.push_back(container);
    auto made = api_.Create(pod);
    ASSERT_TRUE(made.ok());
    api::AllocationResult allocation;
    api::DeviceRequestAllocationResult result;
    result.request = "gpu";
    result.driver = kDriver;
    result.pool = "pool";
    result.device = "gpu-0";
    allocation.devices.results.push_back(result);
    claim.status.allocation = allocation;
    claim.status.reserved_for.push_back(
        {"", "pods", "p1", std::get<api::Pod>(**made).metadata.uid});
    ASSERT_TRUE(api_.UpdateStatus(claim).ok());
  }

  // The pod's allocatedResourcesStatus of container "ctr" (null if none).
  json PodHealth() {
    auto got = api_.Get(client::PodsResource(), "default", "p1");
    if (!got.ok()) return nullptr;
    const api::RawJson* raw = FindUnknownField(
        std::get<api::Pod>(**got).status.unknown_fields, "containerStatuses");
    if (raw == nullptr) return nullptr;
    for (const json& status : json::parse(raw->json)) {
      if (status.value("name", "") == "ctr") {
        return status.value("allocatedResourcesStatus", json());
      }
    }
    return nullptr;
  }
  // The expected allocatedResourcesStatus for one health of gpu-0.
  json Expected(const std::string& health, const std::string& message = "") {
    json resource = {{"resourceID", "gpu.example.com/pool/gpu-0"},
                     {"health", health}};
    if (!message.empty()) resource["message"] = message;
    return json::array(
        {{{"name", "claim:gpu"}, {"resources", json::array({resource})}}});
  }
  bool PodShows(const json& want) {
    return WaitFor([&] { return PodHealth() == want; });
  }

  TempDir dir_;
  client::MemoryApiClient api_;
  // What the agent sees: list and watch as the Node authorizer allows them.
  client::testing::NodeIdentityApiClient node_api_{api_, "node-a"};
  // Served by driver_ when added: they outlive its server.
  FakeHealthService<FakeHealthV1> v1_;
  FakeHealthService<FakeHealthV1alpha1> v1alpha1_;
  testing::FakeDraDriver driver_;
  std::unique_ptr<NodeAgent> agent_;
  std::string claim_uid_;
};

TEST_F(DeviceHealthTest, HealthyThenUnhealthyThenDriverGoes) {
  auto& v1 = v1_;
  auto& v1alpha1 = v1alpha1_;
  v1.SetDevices({{"pool", "gpu-0", 1, "", 0}});
  driver_.state().versions = {"v1.DRAPlugin", "v1alpha1.DRAResourceHealth",
                              "v1.DRAResourceHealth"};
  driver_.AddService(&v1);
  driver_.AddService(&v1alpha1);
  ASSERT_TRUE(driver_.Start());
  StartAgent();
  CreatePodWithClaim();
  ASSERT_TRUE(WaitFor([&] { return agent_->pods().IsRunning("default/p1"); }));
  EXPECT_TRUE(PodShows(Expected("Healthy"))) << PodHealth().dump();

  v1.SetDevices({{"pool", "gpu-0", 2, "XID 79: fell off the bus", 0}});
  EXPECT_TRUE(PodShows(Expected("Unhealthy", "XID 79: fell off the bus")))
      << PodHealth().dump();
  // v1 is preferred: the v1alpha1 service was never asked.
  EXPECT_EQ(v1alpha1.streams_opened(), 0);
  EXPECT_EQ(agent_->health().StreamsEstablished(kDriver), 1);

  // The driver goes (sockets removed): its devices' health is unknown.
  driver_.Stop();
  EXPECT_TRUE(PodShows(Expected("Unknown"))) << PodHealth().dump();
}

TEST_F(DeviceHealthTest, StreamBreakIsUnknownUntilReconnected) {
  auto& v1 = v1_;
  v1.SetDevices({{"pool", "gpu-0", 1, "", 0}});
  driver_.state().versions = {"v1.DRAPlugin", "v1.DRAResourceHealth"};
  driver_.AddService(&v1);
  ASSERT_TRUE(driver_.Start());
  StartAgent();
  CreatePodWithClaim();
  ASSERT_TRUE(PodShows(Expected("Healthy"))) << PodHealth().dump();

  v1.SetAvailable(false);
  v1.BreakStreams();
  EXPECT_TRUE(PodShows(Expected("Unknown"))) << PodHealth().dump();
  v1.SetAvailable(true);
  EXPECT_TRUE(PodShows(Expected("Healthy"))) << PodHealth().dump();
  EXPECT_EQ(v1.streams_opened(), 2);
  EXPECT_EQ(agent_->health().StreamsEstablished(kDriver), 2);
}

TEST_F(DeviceHealthTest, ReportNotRenewedWithinTimeoutBecomesUnknown) {
  auto& v1 = v1_;
  // The driver says once that gpu-0 is Unhealthy, valid for 3 s, and then
  // stays silent: the pod shows Unhealthy, then Unknown once it expires.
  v1.SetDevices({{"pool", "gpu-0", 2, "hot", 3}});
  driver_.state().versions = {"v1.DRAPlugin", "v1.DRAResourceHealth"};
  driver_.AddService(&v1);
  ASSERT_TRUE(driver_.Start());
  StartAgent();
  CreatePodWithClaim();
  ASSERT_TRUE(PodShows(Expected("Unhealthy", "hot"))) << PodHealth().dump();
  EXPECT_TRUE(PodShows(Expected("Unknown"))) << PodHealth().dump();
  EXPECT_EQ(v1.streams_opened(), 1);  // the stream is still open
}

TEST_F(DeviceHealthTest, V1alpha1OnlyDriver) {
  auto& v1alpha1 = v1alpha1_;
  v1alpha1.SetDevices({{"pool", "gpu-0", 1, "", 0}});
  driver_.state().versions = {"v1beta1.DRAPlugin",
                              "v1alpha1.DRAResourceHealth"};
  driver_.AddService(&v1alpha1);
  ASSERT_TRUE(driver_.Start());
  StartAgent();
  CreatePodWithClaim();
  ASSERT_TRUE(PodShows(Expected("Healthy"))) << PodHealth().dump();
  v1alpha1.SetDevices({{"pool", "gpu-0", 2, "ECC errors", 0}});
  EXPECT_TRUE(PodShows(Expected("Unhealthy", "ECC errors")))
      << PodHealth().dump();
  EXPECT_EQ(v1alpha1.streams_opened(), 1);
}

TEST_F(DeviceHealthTest, DriverWithoutHealthServiceIsNotWatched) {
  driver_.state().versions = {"v1.DRAPlugin"};
  ASSERT_TRUE(driver_.Start());
  StartAgent();
  CreatePodWithClaim();
  ASSERT_TRUE(WaitFor([&] { return agent_->pods().IsRunning("default/p1"); }));
  // Nothing reported: the pod lists its device as Unknown, as the kubelet
  // (the status is written in the background: wait for it).
  EXPECT_TRUE(PodShows(Expected("Unknown"))) << PodHealth().dump();
  EXPECT_EQ(agent_->health().StreamsEstablished(kDriver), 0);
}

}  // namespace
}  // namespace dralloc::node
