// The generated protocol code: field numbers match the wire contract (a
// message encoded by hand decodes as expected), and a service answers over a
// real unix socket.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "k8s.io/kubelet/pkg/apis/dra/v1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/dra/v1beta1/api.pb.h"
#include "k8s.io/kubelet/pkg/apis/pluginregistration/v1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/podresources/v1/api.pb.h"

namespace {

namespace drav1 = k8s::io::kubelet::pkg::apis::dra::v1;
namespace drav1beta1 = k8s::io::kubelet::pkg::apis::dra::v1beta1;

// Tag byte of field `number` with wire type `type`.
char Tag(int number, int type) { return static_cast<char>(number << 3 | type); }

std::string LengthDelimited(int number, const std::string& payload) {
  return std::string{Tag(number, 2), static_cast<char>(payload.size())} +
         payload;
}

TEST(KubeletApiWire, ClaimFieldNumbers) {
  // Claim{namespace=1, uid=2, name=3} as the kubelet encodes it.
  std::string wire = LengthDelimited(1, "ns") + LengthDelimited(2, "u-1") +
                     LengthDelimited(3, "gpu");
  drav1::Claim claim;
  ASSERT_TRUE(claim.ParseFromString(wire));
  EXPECT_EQ(claim.namespace_(), "ns");
  EXPECT_EQ(claim.uid(), "u-1");
  EXPECT_EQ(claim.name(), "gpu");
}

TEST(KubeletApiWire, DeviceShareIdIsV1Only) {
  drav1::Device device;
  device.set_pool_name("node-a");
  device.set_device_name("gpu-0");
  device.add_cdi_device_ids("k8s.gpu.example.com/gpu=gpu-0");
  device.set_share_id("share-1");
  std::string wire = device.SerializeAsString();
  EXPECT_NE(wire.find(std::string{Tag(5, 2)} + '\x07' + "share-1"),
            std::string::npos);

  drav1beta1::Device old;
  ASSERT_TRUE(old.ParseFromString(wire));
  EXPECT_EQ(old.pool_name(), "node-a");
  EXPECT_EQ(old.device_name(), "gpu-0");
  ASSERT_EQ(old.cdi_device_ids_size(), 1);
  // v1beta1 has no field 5: it survives only as an unknown field.
  EXPECT_EQ(old.GetDescriptor()->FindFieldByNumber(5), nullptr);
}

TEST(KubeletApiWire, PodResourcesDynamicResources) {
  v1::ContainerResources container;
  container.set_name("ctr");
  v1::DynamicResource* dynamic = container.add_dynamic_resources();
  dynamic->set_claim_name("gpu");
  dynamic->set_claim_namespace("default");
  v1::ClaimResource* resource = dynamic->add_claim_resources();
  resource->set_driver_name("gpu.example.com");
  resource->add_cdi_devices()->set_name("k8s.gpu.example.com/gpu=gpu-0");
  const auto* descriptor = v1::ContainerResources::descriptor();
  ASSERT_NE(descriptor->FindFieldByName("dynamic_resources"), nullptr);
  EXPECT_EQ(descriptor->FindFieldByName("dynamic_resources")->number(), 5);
  EXPECT_EQ(
      v1::ClaimResource::descriptor()->FindFieldByName("device_name")->number(),
      4);
  v1::ContainerResources copy;
  ASSERT_TRUE(copy.ParseFromString(container.SerializeAsString()));
  EXPECT_EQ(copy.dynamic_resources(0).claim_resources(0).driver_name(),
            "gpu.example.com");
}

TEST(KubeletApiWire, FullServiceNamesMatchUpstream) {
  EXPECT_EQ(std::string(drav1::DRAPlugin::service_full_name()),
            "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin");
  EXPECT_EQ(std::string(pluginregistration::Registration::service_full_name()),
            "pluginregistration.Registration");
}

class EchoRegistration final
    : public pluginregistration::Registration::Service {
  grpc::Status GetInfo(grpc::ServerContext*,
                       const pluginregistration::InfoRequest*,
                       pluginregistration::PluginInfo* info) override {
    info->set_type("DRAPlugin");
    info->set_name("gpu.example.com");
    info->add_supported_versions("v1.DRAPlugin");
    return grpc::Status::OK;
  }
};

TEST(KubeletApiWire, RegistrationOverUnixSocket) {
  std::filesystem::path socket =
      std::filesystem::temp_directory_path() /
      ("dralloc-wire-" + std::to_string(getpid()) + ".sock");
  std::filesystem::remove(socket);
  EchoRegistration service;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("unix://" + socket.string(),
                           grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);

  auto channel = grpc::CreateChannel("unix://" + socket.string(),
                                     grpc::InsecureChannelCredentials());
  auto stub = pluginregistration::Registration::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(5));
  pluginregistration::PluginInfo info;
  grpc::Status status =
      stub->GetInfo(&context, pluginregistration::InfoRequest(), &info);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(info.name(), "gpu.example.com");
  EXPECT_EQ(info.supported_versions(0), "v1.DRAPlugin");
  server->Shutdown();
  std::filesystem::remove(socket);
}

}  // namespace
