// The whole agent over the in-memory API: a driver registers through the
// registry directory, a pod with a claim runs, its deletion unprepares; a
// corrupt checkpoint stops the agent.
#include "node/node_agent.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <fstream>

#include "client/memory_api_client.h"
#include "client/node_identity_api_client.h"
#include "k8s.io/kubelet/pkg/apis/podresources/v1/api.grpc.pb.h"
#include "node/fake_dra_driver.h"
#include "node/node_test_util.h"

namespace dralloc::node {
namespace {

using testing::TempDir;
using testing::WaitFor;
using namespace std::chrono_literals;

NodeAgentOptions OptionsUnder(const TempDir& dir) {
  NodeAgentOptions options;
  options.node_name = "node-a";
  options.plugins_registry = dir.Sub("plugins_registry");
  options.plugins_dir = dir.Sub("plugins");
  options.cdi_dirs = {dir.Sub("cdi")};
  options.state_dir = dir.Sub("state");
  options.pod_resources_socket = dir.Sub("pod-resources/kubelet.sock");
  options.prepare_timeout = 5s;
  options.backoff_max = 200ms;
  options.claim_recheck_initial = 10ms;
  options.claim_recheck_max = 40ms;
  options.sync_timeout = 5s;
  return options;
}

TEST(NodeAgent, DriverRegistersAndPodRuns) {
  TempDir dir;
  client::MemoryApiClient api;
  {  // A stale slice of this node from before the restart.
    api::ResourceSlice slice;
    slice.metadata.name = "node-a-old";
    slice.spec.driver = "gpu.example.com";
    slice.spec.node_name = "node-a";
    ASSERT_TRUE(api.Create(slice).ok());
  }
  // The agent reads only what the Node authorizer lets node-a read.
  client::testing::NodeIdentityApiClient node_api(api, "node-a");
  NodeAgent agent(node_api, OptionsUnder(dir));
  ASSERT_TRUE(agent.Start().ok());
  EXPECT_TRUE(api.List(client::ResourceSlicesResource())->items.empty());
  EXPECT_TRUE(api.Get(client::NodesResource(), "", "node-a").ok());

  // The pod comes first; the driver registers later.
  api::ResourceClaim claim;
  claim.metadata = {.name = "gpu", .namespace_ = "default"};
  auto created = api.Create(claim);
  ASSERT_TRUE(created.ok());
  claim = std::get<api::ResourceClaim>(**created);
  api::Pod pod;
  pod.metadata = {.name = "p1", .namespace_ = "default"};
  pod.spec.node_name = "node-a";
  pod.spec.resource_claims.push_back({"gpu", "gpu", std::nullopt});
  api::Container container;
  container.name = "ctr";
  container.resources.claims.push_back({"gpu", ""});
  pod.spec.containers.push_back(container);
  auto made = api.Create(pod);
  ASSERT_TRUE(made.ok());
  const std::string pod_uid = std::get<api::Pod>(**made).metadata.uid;
  api::AllocationResult allocation;
  api::DeviceRequestAllocationResult result;
  result.request = "gpu";
  result.driver = "gpu.example.com";
  result.pool = "node-a";
  result.device = "gpu-0";
  allocation.devices.results.push_back(result);
  claim.status.allocation = allocation;
  claim.status.reserved_for.push_back({"", "pods", "p1", pod_uid});
  ASSERT_TRUE(api.UpdateStatus(claim).ok());

  testing::FakeDraDriver driver("gpu.example.com", dir.Sub("plugins_registry"),
                                dir.Sub("plugins"));
  driver.state().cdi_dir = dir.Sub("cdi");
  ASSERT_TRUE(driver.Start());
  ASSERT_TRUE(WaitFor([&] {
    auto got = api.Get(client::PodsResource(), "default", "p1");
    return got.ok() && std::get<api::Pod>(**got).status.phase == "Running";
  }));
  // The agent records the pod as running as it queues the Running status.
  ASSERT_TRUE(WaitFor([&] { return agent.pods().IsRunning("default/p1"); }));
  auto devices = agent.pods().DevicesOf("default/p1");
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].edits.env,
            std::vector<std::string>{"GPU_DEVICE_0=gpu-0"});

  {  // PodResources List, as a monitoring agent sees it.
    auto stub = ::v1::PodResourcesLister::NewStub(
        grpc::CreateChannel("unix://" + dir.Sub("pod-resources/kubelet.sock"),
                            grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 5s);
    ::v1::ListPodResourcesResponse response;
    ASSERT_TRUE(
        stub->List(&context, ::v1::ListPodResourcesRequest(), &response).ok());
    ASSERT_EQ(response.pod_resources_size(), 1);
    const auto& listed = response.pod_resources(0);
    EXPECT_EQ(listed.name(), "p1");
    ASSERT_EQ(listed.containers_size(), 1);
    ASSERT_EQ(listed.containers(0).dynamic_resources_size(), 1);
    const auto& dynamic = listed.containers(0).dynamic_resources(0);
    EXPECT_EQ(dynamic.claim_name(), "gpu");
    EXPECT_EQ(dynamic.claim_namespace(), "default");
    ASSERT_EQ(dynamic.claim_resources_size(), 1);
    EXPECT_EQ(dynamic.claim_resources(0).driver_name(), "gpu.example.com");
    EXPECT_EQ(dynamic.claim_resources(0).device_name(), "gpu-0");
    EXPECT_EQ(dynamic.claim_resources(0).cdi_devices(0).name(),
              "k8s.gpu.example.com/gpu=" + claim.metadata.uid + "-gpu-0");
  }

  ASSERT_TRUE(api.Delete(client::PodsResource(), "default", "p1", "").ok());
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard lock(driver.state().mu);
    return driver.state().prepared.empty() &&
           driver.state().unprepare_calls.size() == 1;
  }));
  agent.Stop();
  EXPECT_EQ(node_api.refused(), std::vector<std::string>{});
}

TEST(NodeAgent, CorruptCheckpointRefusesToStart) {
  TempDir dir;
  std::filesystem::create_directories(dir.Sub("state"));
  std::ofstream(dir.Sub("state/dra_manager_state")) << "{\"version\":";
  client::MemoryApiClient api;
  NodeAgent agent(api, OptionsUnder(dir));
  Status started = agent.Start();
  EXPECT_EQ(started.code(), StatusCode::kDataLoss);
  EXPECT_NE(started.message().find(dir.Sub("state/dra_manager_state")),
            std::string::npos);
  // Nothing was done: the Node was not even registered.
  EXPECT_FALSE(api.Get(client::NodesResource(), "", "node-a").ok());
}

}  // namespace
}  // namespace dralloc::node
