// The example driver behind a PluginServer, driven over a real unix socket
// with the generated DRA v1 and v1beta1 stubs, as the kubelet drives it.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>

#include "client/memory_api_client.h"
#include "exampledriver/example_driver.h"
#include "k8s.io/kubelet/pkg/apis/dra/v1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/dra/v1beta1/api.grpc.pb.h"
#include "kubeletplugin/plugin_server.h"

namespace dralloc::exampledriver {
namespace {

namespace fs = std::filesystem;
namespace drav1 = k8s::io::kubelet::pkg::apis::dra::v1;
namespace drav1beta1 = k8s::io::kubelet::pkg::apis::dra::v1beta1;

class ExampleDriverWireTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/exwire-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    ExampleDriverOptions options;
    options.node_name = "node-a";
    options.cdi_dir = dir_ / "cdi";
    options.state_dir = dir_ / "state";
    options.fail_prepare_claim = "doomed";
    auto driver = ExampleDriver::Create(options, &api_);
    ASSERT_TRUE(driver.ok()) << driver.status();
    driver_ = std::move(driver).value();
    kubeletplugin::PluginServerOptions server_options;
    server_options.driver_name = "gpu.example.com";
    server_options.plugins_dir = dir_ / "plugins";
    server_options.registry_dir = dir_ / "registry";
    auto server =
        kubeletplugin::PluginServer::Start(server_options, driver_.get());
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(server).value();
    channel_ =
        grpc::CreateChannel("unix://" + server_->dra_socket_path().string(),
                            grpc::InsecureChannelCredentials());
  }
  void TearDown() override {
    if (server_) server_->Stop();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // An allocated claim with one device of ours; returns its uid.
  std::string AddClaim(const std::string& name, const std::string& device) {
    api::ResourceClaim claim;
    claim.metadata.namespace_ = "default";
    claim.metadata.name = name;
    claim = std::get<api::ResourceClaim>(**api_.Create(claim));
    api::AllocationResult allocation;
    api::DeviceRequestAllocationResult result;
    result.request = "gpu";
    result.driver = "gpu.example.com";
    result.pool = "node-a";
    result.device = device;
    result.share_id = "share-" + device;
    allocation.devices.results.push_back(result);
    claim.status.allocation = allocation;
    EXPECT_TRUE(api_.UpdateStatus(claim).ok());
    return claim.metadata.uid;
  }

  static void SetDeadline(grpc::ClientContext& context) {
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
  }

  fs::path dir_;
  client::MemoryApiClient api_;
  std::unique_ptr<ExampleDriver> driver_;
  std::unique_ptr<kubeletplugin::PluginServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(ExampleDriverWireTest, PrepareAndUnprepareOverV1) {
  const std::string good = AddClaim("good", "gpu-2");
  const std::string doomed = AddClaim("doomed", "gpu-3");
  auto stub = drav1::DRAPlugin::NewStub(channel_);
  drav1::NodePrepareResourcesRequest request;
  for (const auto& [name, uid] :
       {std::pair{"good", good}, std::pair{"doomed", doomed}}) {
    auto* claim = request.add_claims();
    claim->set_namespace_("default");
    claim->set_name(name);
    claim->set_uid(uid);
  }
  drav1::NodePrepareResourcesResponse response;
  grpc::ClientContext context;
  SetDeadline(context);
  ASSERT_TRUE(stub->NodePrepareResources(&context, request, &response).ok());
  const auto& prepared = response.claims().at(good);
  ASSERT_EQ(prepared.error(), "");
  ASSERT_EQ(prepared.devices_size(), 1);
  EXPECT_EQ(prepared.devices(0).device_name(), "gpu-2");
  EXPECT_EQ(prepared.devices(0).share_id(), "share-gpu-2");
  EXPECT_EQ(prepared.devices(0).cdi_device_ids(1),
            "k8s.gpu.example.com/gpu=" + good + "-gpu-2");
  EXPECT_NE(response.claims().at(doomed).error().find("--fail-prepare-claim"),
            std::string::npos);
  EXPECT_TRUE(fs::exists(driver_->ClaimSpecPath(good)));

  drav1::NodeUnprepareResourcesRequest unprepare;
  *unprepare.mutable_claims() = request.claims();
  drav1::NodeUnprepareResourcesResponse unprepared;
  grpc::ClientContext context2;
  SetDeadline(context2);
  ASSERT_TRUE(
      stub->NodeUnprepareResources(&context2, unprepare, &unprepared).ok());
  EXPECT_EQ(unprepared.claims_size(), 2);
  EXPECT_EQ(unprepared.claims().at(good).error(), "");
  EXPECT_FALSE(fs::exists(driver_->ClaimSpecPath(good)));
}

TEST_F(ExampleDriverWireTest, PrepareOverV1beta1IsIdempotent) {
  const std::string uid = AddClaim("c", "gpu-0");
  auto stub = drav1beta1::DRAPlugin::NewStub(channel_);
  drav1beta1::NodePrepareResourcesRequest request;
  auto* claim = request.add_claims();
  claim->set_namespace_("default");
  claim->set_name("c");
  claim->set_uid(uid);
  std::string first;
  for (int round = 0; round < 2; ++round) {
    drav1beta1::NodePrepareResourcesResponse response;
    grpc::ClientContext context;
    SetDeadline(context);
    ASSERT_TRUE(stub->NodePrepareResources(&context, request, &response).ok());
    ASSERT_EQ(response.claims().at(uid).error(), "");
    const std::string bytes = response.SerializeAsString();
    if (round == 0) first = bytes;
    EXPECT_EQ(bytes, first);
  }
}

}  // namespace
}  // namespace dralloc::exampledriver
