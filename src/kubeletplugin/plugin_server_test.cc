// PluginServer over real unix sockets: registration info, DRA v1 and
// v1beta1 with per-claim errors, unprepare, health streaming, socket cleanup
// and stale sockets.
#include "kubeletplugin/plugin_server.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "k8s.io/kubelet/pkg/apis/dra-health/v1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/dra-health/v1alpha1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/dra/v1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/dra/v1beta1/api.grpc.pb.h"
#include "k8s.io/kubelet/pkg/apis/pluginregistration/v1/api.grpc.pb.h"

namespace dralloc::kubeletplugin {
namespace {

namespace fs = std::filesystem;
namespace drav1 = k8s::io::kubelet::pkg::apis::dra::v1;
namespace drav1beta1 = k8s::io::kubelet::pkg::apis::dra::v1beta1;
using std::chrono::seconds;

// A fresh directory under /tmp (short, so socket paths fit), removed at
// the end of the test.
class ScopedTempDir {
 public:
  ScopedTempDir() {
    char pattern[] = "/tmp/kp-XXXXXX";
    path_ = ::mkdtemp(pattern);
  }
  ~ScopedTempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Prepares claim "c-ok" with one device (share id "s1"), fails "c-bad",
// omits "c-missing"; records unprepared UIDs.
class FakeCallbacks : public DriverCallbacks {
 public:
  std::map<std::string, PrepareResult> PrepareClaims(
      std::span<const ClaimRef> claims) override {
    std::map<std::string, PrepareResult> out;
    for (const ClaimRef& claim : claims) {
      if (claim.uid == "c-missing") continue;
      PrepareResult& result = out[claim.uid];
      if (claim.uid == "c-bad") {
        result.error = InternalError("claim " + claim.name + ": broken");
        continue;
      }
      result.devices.push_back({{"req"},
                                "node-a",
                                "gpu-0",
                                {"k8s.gpu.example.com/gpu=common",
                                 "k8s.gpu.example.com/gpu=" + claim.uid},
                                "s1"});
    }
    return out;
  }
  std::map<std::string, Status> UnprepareClaims(
      std::span<const ClaimRef> claims) override {
    std::map<std::string, Status> out;
    for (const ClaimRef& claim : claims) {
      unprepared.push_back(claim.uid);
      out[claim.uid] =
          claim.uid == "c-bad" ? InternalError("cannot") : Status();
    }
    return out;
  }
  std::vector<std::string> unprepared;
};

std::shared_ptr<grpc::Channel> Dial(const fs::path& socket) {
  return grpc::CreateChannel("unix://" + socket.string(),
                             grpc::InsecureChannelCredentials());
}

void SetDeadline(grpc::ClientContext& context) {
  context.set_deadline(std::chrono::system_clock::now() + seconds(10));
}

class PluginServerTest : public ::testing::Test {
 protected:
  PluginServerOptions Options() {
    PluginServerOptions options;
    options.driver_name = "gpu.example.com";
    options.plugins_dir = dir_.path() / "plugins";
    options.registry_dir = dir_.path() / "registry";
    options.serve_health = true;
    return options;
  }
  std::unique_ptr<PluginServer> StartServer(const PluginServerOptions& o) {
    auto server = PluginServer::Start(o, &callbacks_);
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? std::move(server).value() : nullptr;
  }

  ScopedTempDir dir_;
  FakeCallbacks callbacks_;
};

template <typename Request>
void AddClaims(Request& request) {
  for (const char* uid : {"c-ok", "c-bad", "c-missing"}) {
    auto* claim = request.add_claims();
    claim->set_namespace_("default");
    claim->set_uid(uid);
    claim->set_name(std::string("name-") + uid);
  }
}

TEST_F(PluginServerTest, GetInfoAndRegistrationStatus) {
  auto server = StartServer(Options());
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(server->dra_socket_path(),
            dir_.path() / "plugins/gpu.example.com/dra.sock");
  EXPECT_EQ(server->registration_socket_path(),
            dir_.path() / "registry/gpu.example.com-reg.sock");
  auto stub = pluginregistration::Registration::NewStub(
      Dial(server->registration_socket_path()));
  grpc::ClientContext context;
  SetDeadline(context);
  pluginregistration::PluginInfo info;
  ASSERT_TRUE(stub->GetInfo(&context, {}, &info).ok());
  EXPECT_EQ(info.type(), "DRAPlugin");
  EXPECT_EQ(info.name(), "gpu.example.com");
  EXPECT_EQ(info.endpoint(), server->dra_socket_path().string());
  std::vector<std::string> versions(info.supported_versions().begin(),
                                    info.supported_versions().end());
  EXPECT_EQ(versions,
            (std::vector<std::string>{"v1.DRAPlugin", "v1beta1.DRAPlugin",
                                      "v1alpha1.DRAResourceHealth",
                                      "v1.DRAResourceHealth"}));

  EXPECT_FALSE(server->registered());
  pluginregistration::RegistrationStatus status;
  status.set_plugin_registered(false);
  status.set_error("no such version");
  pluginregistration::RegistrationStatusResponse ignored;
  grpc::ClientContext notify;
  SetDeadline(notify);
  ASSERT_TRUE(stub->NotifyRegistrationStatus(&notify, status, &ignored).ok());
  EXPECT_FALSE(server->registered());
  EXPECT_EQ(server->last_registration_error(), "no such version");
  status.set_plugin_registered(true);
  status.clear_error();
  grpc::ClientContext notify2;
  SetDeadline(notify2);
  ASSERT_TRUE(stub->NotifyRegistrationStatus(&notify2, status, &ignored).ok());
  EXPECT_TRUE(server->registered());
}

TEST_F(PluginServerTest, PrepareV1BatchWithPerClaimErrors) {
  auto server = StartServer(Options());
  ASSERT_NE(server, nullptr);
  auto stub = drav1::DRAPlugin::NewStub(Dial(server->dra_socket_path()));
  drav1::NodePrepareResourcesRequest request;
  AddClaims(request);
  drav1::NodePrepareResourcesResponse response;
  grpc::ClientContext context;
  SetDeadline(context);
  ASSERT_TRUE(stub->NodePrepareResources(&context, request, &response).ok());
  ASSERT_EQ(response.claims_size(), 3);
  const auto& ok = response.claims().at("c-ok");
  EXPECT_EQ(ok.error(), "");
  ASSERT_EQ(ok.devices_size(), 1);
  EXPECT_EQ(ok.devices(0).pool_name(), "node-a");
  EXPECT_EQ(ok.devices(0).device_name(), "gpu-0");
  EXPECT_EQ(ok.devices(0).request_names(0), "req");
  EXPECT_EQ(ok.devices(0).cdi_device_ids_size(), 2);
  ASSERT_TRUE(ok.devices(0).has_share_id());
  EXPECT_EQ(ok.devices(0).share_id(), "s1");
  EXPECT_EQ(response.claims().at("c-bad").error(), "claim name-c-bad: broken");
  EXPECT_EQ(response.claims().at("c-bad").devices_size(), 0);
  EXPECT_NE(response.claims().at("c-missing").error().find("no result"),
            std::string::npos);
}

TEST_F(PluginServerTest, PrepareV1beta1HasNoShareId) {
  auto server = StartServer(Options());
  ASSERT_NE(server, nullptr);
  auto stub = drav1beta1::DRAPlugin::NewStub(Dial(server->dra_socket_path()));
  drav1beta1::NodePrepareResourcesRequest request;
  AddClaims(request);
  drav1beta1::NodePrepareResourcesResponse response;
  grpc::ClientContext context;
  SetDeadline(context);
  ASSERT_TRUE(stub->NodePrepareResources(&context, request, &response).ok());
  ASSERT_EQ(response.claims_size(), 3);
  const auto& device = response.claims().at("c-ok").devices(0);
  EXPECT_EQ(device.device_name(), "gpu-0");
  // Field 5 must not be on the wire: decode as v1 and look for it.
  drav1::Device as_v1;
  ASSERT_TRUE(as_v1.ParseFromString(device.SerializeAsString()));
  EXPECT_FALSE(as_v1.has_share_id());
  EXPECT_EQ(response.claims().at("c-bad").error(), "claim name-c-bad: broken");
}

TEST_F(PluginServerTest, UnprepareAnswersEveryClaim) {
  auto server = StartServer(Options());
  ASSERT_NE(server, nullptr);
  auto stub = drav1::DRAPlugin::NewStub(Dial(server->dra_socket_path()));
  drav1::NodeUnprepareResourcesRequest request;
  AddClaims(request);
  drav1::NodeUnprepareResourcesResponse response;
  grpc::ClientContext context;
  SetDeadline(context);
  ASSERT_TRUE(stub->NodeUnprepareResources(&context, request, &response).ok());
  ASSERT_EQ(response.claims_size(), 3);
  EXPECT_EQ(response.claims().at("c-ok").error(), "");
  EXPECT_EQ(response.claims().at("c-missing").error(), "");
  EXPECT_EQ(response.claims().at("c-bad").error(), "cannot");
  EXPECT_EQ(callbacks_.unprepared,
            (std::vector<std::string>{"c-ok", "c-bad", "c-missing"}));
}

TEST_F(PluginServerTest, HealthStreamsFullListOnChange) {
  auto server = StartServer(Options());
  ASSERT_NE(server, nullptr);
  server->SetDeviceHealth({{"node-a", "gpu-0", DeviceHealthStatus::kHealthy}});
  auto stub = v1::DRAResourceHealth::NewStub(Dial(server->dra_socket_path()));
  grpc::ClientContext context;
  SetDeadline(context);
  auto reader = stub->NodeWatchResources(&context, {});
  v1::NodeWatchResourcesResponse message;
  ASSERT_TRUE(reader->Read(&message));
  ASSERT_EQ(message.devices_size(), 1);
  EXPECT_EQ(message.devices(0).health(), v1::HEALTHY);
  server->SetDeviceHealth(
      {{"node-a", "gpu-0", DeviceHealthStatus::kUnhealthy, 0, 0, "hot"},
       {"node-a", "gpu-1", DeviceHealthStatus::kHealthy}});
  ASSERT_TRUE(reader->Read(&message));
  ASSERT_EQ(message.devices_size(), 2);
  EXPECT_EQ(message.devices(0).device().device_name(), "gpu-0");
  EXPECT_EQ(message.devices(0).health(), v1::UNHEALTHY);
  EXPECT_EQ(message.devices(0).message(), "hot");
  context.TryCancel();

  auto old_stub =
      v1alpha1::DRAResourceHealth::NewStub(Dial(server->dra_socket_path()));
  grpc::ClientContext old_context;
  SetDeadline(old_context);
  auto old_reader = old_stub->NodeWatchResources(&old_context, {});
  v1alpha1::NodeWatchResourcesResponse old_message;
  ASSERT_TRUE(old_reader->Read(&old_message));
  EXPECT_EQ(old_message.devices_size(), 2);
  // Stop ends open streams instead of waiting for them.
  server->Stop();
  while (old_reader->Read(&old_message)) {
  }
}

TEST_F(PluginServerTest, StopRemovesSockets) {
  auto server = StartServer(Options());
  ASSERT_NE(server, nullptr);
  const fs::path dra = server->dra_socket_path();
  const fs::path registration = server->registration_socket_path();
  EXPECT_TRUE(fs::is_socket(dra));
  EXPECT_TRUE(fs::is_socket(registration));
  server->Stop();
  EXPECT_FALSE(fs::exists(dra));
  EXPECT_FALSE(fs::exists(registration));
  server->Stop();  // idempotent
}

// Leaves a bound but unserved unix socket at `path`, as a crashed driver
// does.
void MakeStaleSocket(const fs::path& path) {
  fs::create_directories(path.parent_path());
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)),
            0);
  ::close(fd);
  ASSERT_TRUE(fs::is_socket(path));
}

TEST_F(PluginServerTest, StaleSocketsAreReplaced) {
  const PluginServerOptions options = Options();
  auto paths = ResolveSocketPaths(options);
  ASSERT_TRUE(paths.ok());
  MakeStaleSocket(paths->dra);
  MakeStaleSocket(paths->registration);
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  auto stub = pluginregistration::Registration::NewStub(
      Dial(server->registration_socket_path()));
  grpc::ClientContext context;
  SetDeadline(context);
  pluginregistration::PluginInfo info;
  EXPECT_TRUE(stub->GetInfo(&context, {}, &info).ok());
}

TEST_F(PluginServerTest, NonSocketFileIsAnError) {
  const PluginServerOptions options = Options();
  auto paths = ResolveSocketPaths(options);
  ASSERT_TRUE(paths.ok());
  fs::create_directories(paths->dra.parent_path());
  std::ofstream(paths->dra) << "x";
  auto server = PluginServer::Start(options, &callbacks_);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("is not a socket"),
            std::string::npos);
}

TEST_F(PluginServerTest, RollingUpdateNamesAndLongPaths) {
  PluginServerOptions options = Options();
  options.rolling_update_uid = "abc";
  auto paths = ResolveSocketPaths(options);
  ASSERT_TRUE(paths.ok());
  EXPECT_EQ(paths->dra.filename(), "dra-abc.sock");
  EXPECT_EQ(paths->registration.filename(), "gpu.example.com-abc-reg.sock");

  options.plugins_dir = dir_.path() / std::string(100, 'p');
  auto too_long = ResolveSocketPaths(options);
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.status().message().find("longer than the 107"),
            std::string::npos)
      << too_long.status();
  auto server = PluginServer::Start(options, &callbacks_);
  EXPECT_FALSE(server.ok());

  options = Options();
  options.plugins_dir = "relative/plugins";
  auto relative = ResolveSocketPaths(options);
  ASSERT_TRUE(relative.ok());
  EXPECT_TRUE(relative->dra.is_absolute());
  EXPECT_EQ(relative->dra,
            fs::current_path() / "relative/plugins/gpu.example.com/dra.sock");

  options = Options();
  options.driver_name = "";
  EXPECT_FALSE(ResolveSocketPaths(options).ok());
}

TEST_F(PluginServerTest, Version1beta1Only) {
  PluginServerOptions options = Options();
  options.serve_v1 = false;
  options.serve_health = false;
  EXPECT_EQ(PluginServer::SupportedVersions(options),
            std::vector<std::string>{"v1beta1.DRAPlugin"});
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  auto stub = drav1::DRAPlugin::NewStub(Dial(server->dra_socket_path()));
  drav1::NodePrepareResourcesRequest request;
  drav1::NodePrepareResourcesResponse response;
  grpc::ClientContext context;
  SetDeadline(context);
  EXPECT_EQ(
      stub->NodePrepareResources(&context, request, &response).error_code(),
      grpc::StatusCode::UNIMPLEMENTED);
}

// Counts callbacks running at once; each stays inside for a moment so that
// overlapping calls would be seen.
class OverlapCallbacks : public DriverCallbacks {
 public:
  std::map<std::string, PrepareResult> PrepareClaims(
      std::span<const ClaimRef> claims) override {
    Enter();
    std::map<std::string, PrepareResult> out;
    for (const ClaimRef& claim : claims) out[claim.uid] = {};
    return out;
  }
  std::map<std::string, Status> UnprepareClaims(
      std::span<const ClaimRef> claims) override {
    Enter();
    std::map<std::string, Status> out;
    for (const ClaimRef& claim : claims) out[claim.uid] = Status();
    return out;
  }
  std::atomic<int> max_active{0};

 private:
  void Enter() {
    const int now = ++active_;
    int seen = max_active.load();
    while (now > seen && !max_active.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    --active_;
  }
  std::atomic<int> active_{0};
};

TEST_F(PluginServerTest, DriverCallsAreSerialized) {
  OverlapCallbacks callbacks;
  auto server = PluginServer::Start(Options(), &callbacks);
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel = Dial((*server)->dra_socket_path());
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    clients.emplace_back([&, i] {
      auto stub = drav1::DRAPlugin::NewStub(channel);
      for (int round = 0; round < 5; ++round) {
        grpc::ClientContext context;
        SetDeadline(context);
        bool done = false;
        if ((i + round) % 2 == 0) {
          drav1::NodePrepareResourcesRequest request;
          request.add_claims()->set_uid("u" + std::to_string(i));
          drav1::NodePrepareResourcesResponse response;
          done = stub->NodePrepareResources(&context, request, &response).ok();
        } else {
          drav1::NodeUnprepareResourcesRequest request;
          request.add_claims()->set_uid("u" + std::to_string(i));
          drav1::NodeUnprepareResourcesResponse response;
          done =
              stub->NodeUnprepareResources(&context, request, &response).ok();
        }
        if (done) ++ok;
      }
    });
  }
  for (auto& client : clients) client.join();
  EXPECT_EQ(ok.load(), 40);
  EXPECT_EQ(callbacks.max_active.load(), 1);
}

// Each call waits (bounded) inside the driver until `expected` calls are
// inside at once: only calls that run in parallel meet.
class RendezvousCallbacks : public DriverCallbacks {
 public:
  explicit RendezvousCallbacks(int expected) : expected_(expected) {}
  std::map<std::string, PrepareResult> PrepareClaims(
      std::span<const ClaimRef> claims) override {
    Meet();
    std::map<std::string, PrepareResult> out;
    for (const ClaimRef& claim : claims) out[claim.uid] = {};
    return out;
  }
  std::map<std::string, Status> UnprepareClaims(
      std::span<const ClaimRef> claims) override {
    Meet();
    std::map<std::string, Status> out;
    for (const ClaimRef& claim : claims) out[claim.uid] = Status();
    return out;
  }
  int met() {
    std::lock_guard<std::mutex> lock(mu_);
    return met_;
  }

 private:
  void Meet() {
    std::unique_lock<std::mutex> lock(mu_);
    ++inside_;
    cv_.notify_all();
    if (cv_.wait_for(lock, seconds(5), [&] { return inside_ >= expected_; })) {
      ++met_;
    }
  }
  const int expected_;
  std::mutex mu_;
  std::condition_variable cv_;
  int inside_ = 0;
  int met_ = 0;
};

TEST_F(PluginServerTest, UnserializedCallsRunInParallel) {
  RendezvousCallbacks callbacks(2);
  PluginServerOptions options = Options();
  options.serialize_calls = false;
  auto server = PluginServer::Start(options, &callbacks);
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel = Dial((*server)->dra_socket_path());
  std::atomic<int> ok{0};
  std::thread prepare([&] {
    auto stub = drav1::DRAPlugin::NewStub(channel);
    grpc::ClientContext context;
    SetDeadline(context);
    drav1::NodePrepareResourcesRequest request;
    request.add_claims()->set_uid("a");
    drav1::NodePrepareResourcesResponse response;
    if (stub->NodePrepareResources(&context, request, &response).ok()) ++ok;
  });
  std::thread unprepare([&] {
    auto stub = drav1beta1::DRAPlugin::NewStub(channel);
    grpc::ClientContext context;
    SetDeadline(context);
    drav1beta1::NodeUnprepareResourcesRequest request;
    request.add_claims()->set_uid("b");
    drav1beta1::NodeUnprepareResourcesResponse response;
    if (stub->NodeUnprepareResources(&context, request, &response).ok()) ++ok;
  });
  prepare.join();
  unprepare.join();
  EXPECT_EQ(ok.load(), 2);
  EXPECT_EQ(callbacks.met(), 2);  // both were inside the driver at once
}

}  // namespace
}  // namespace dralloc::kubeletplugin
