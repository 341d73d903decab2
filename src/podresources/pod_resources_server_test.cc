// PodResourcesServer and PodResourcesClient over a real unix socket in a
// fresh temp dir, fed by a fake source.
#include "podresources/pod_resources_server.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "podresources/pod_resources_client.h"
#include "podresources/pod_resources_test_util.h"

namespace dralloc::podresources {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (fs::temp_directory_path() / "dralloc-podres-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

class PodResourcesServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    socket_ = dir_.path() / "pod-resources" / "kubelet.sock";
    Status started = server_.Start(socket_);
    ASSERT_TRUE(started.ok()) << started;
  }

  PodResourcesClient Client() {
    StatusOr<PodResourcesClient> client =
        PodResourcesClient::Connect(socket_, std::chrono::seconds(10));
    EXPECT_TRUE(client.ok()) << client.status();
    return *std::move(client);
  }

  TempDir dir_;
  fs::path socket_;
  FakeSource source_{SamplePods()};
  PodResourcesServer server_{source_};
};

TEST_F(PodResourcesServerTest, ListReportsEveryPodContainerClaimAndDevice) {
  StatusOr<v1::ListPodResourcesResponse> list = Client().List();
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->pod_resources_size(), 2);

  const v1::PodResources& trainer = list->pod_resources(0);
  EXPECT_EQ(trainer.name(), "trainer");
  EXPECT_EQ(trainer.namespace_(), "ml");
  ASSERT_EQ(trainer.containers_size(), 2);
  EXPECT_EQ(trainer.containers(0).name(), "main");
  const v1::ContainerResources& sidecar = trainer.containers(1);
  EXPECT_EQ(sidecar.name(), "sidecar");
  ASSERT_EQ(sidecar.dynamic_resources_size(), 2);
  EXPECT_EQ(sidecar.dynamic_resources(0).claim_name(), "shared");
  const v1::DynamicResource& own = sidecar.dynamic_resources(1);
  EXPECT_EQ(own.claim_name(), "own");
  EXPECT_EQ(own.claim_namespace(), "ml");
  ASSERT_EQ(own.claim_resources_size(), 1);
  const v1::ClaimResource& gpu1 = own.claim_resources(0);
  EXPECT_EQ(gpu1.driver_name(), "gpu.example.com");
  EXPECT_EQ(gpu1.pool_name(), "node-a");
  EXPECT_EQ(gpu1.device_name(), "gpu-1");
  ASSERT_EQ(gpu1.cdi_devices_size(), 1);
  EXPECT_EQ(gpu1.cdi_devices(0).name(), "k8s.gpu.example.com/gpu=gpu-1");
  // No device plugins, CPU or memory managers on this node.
  EXPECT_EQ(sidecar.devices_size(), 0);
  EXPECT_EQ(sidecar.cpu_ids_size(), 0);
  EXPECT_EQ(sidecar.memory_size(), 0);

  const v1::PodResources& web = list->pod_resources(1);
  ASSERT_EQ(web.containers_size(), 2);
  EXPECT_EQ(web.containers(0).dynamic_resources_size(), 0);
  ASSERT_EQ(web.containers(1).dynamic_resources_size(), 1);
  EXPECT_EQ(web.containers(1).dynamic_resources(0).claim_resources_size(), 2);
}

TEST_F(PodResourcesServerTest, ShareIdIsPresentOnlyWhenSet) {
  StatusOr<v1::ListPodResourcesResponse> list = Client().List();
  ASSERT_TRUE(list.ok()) << list.status();
  const v1::ClaimResource& shared =
      list->pod_resources(0).containers(0).dynamic_resources(0).claim_resources(
          0);
  ASSERT_TRUE(shared.has_share_id());
  EXPECT_EQ(shared.share_id(), "share-7");
  const v1::ClaimResource& unshared =
      list->pod_resources(0).containers(1).dynamic_resources(1).claim_resources(
          0);
  EXPECT_FALSE(unshared.has_share_id());
}

TEST_F(PodResourcesServerTest, GetFindsPodByNamespaceAndName) {
  StatusOr<v1::GetPodResourcesResponse> got = Client().Get("default", "web");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->pod_resources().name(), "web");
  EXPECT_EQ(got->pod_resources().namespace_(), "default");
  EXPECT_EQ(got->pod_resources().containers(1).name(), "app");
}

TEST_F(PodResourcesServerTest, GetErrors) {
  struct Case {
    std::string namespace_, name;
    StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"default", "absent", StatusCode::kNotFound,
       "Get: pod absent in namespace default not found"},
      // Right name, wrong namespace.
      {"ml", "web", StatusCode::kNotFound,
       "Get: pod web in namespace ml not found"},
      {"default", "", StatusCode::kInvalidArgument,
       "Get: pod_name: Required value"},
      {"", "web", StatusCode::kInvalidArgument,
       "Get: pod_namespace: Required value"},
  };
  PodResourcesClient client = Client();
  for (const Case& c : cases) {
    StatusOr<v1::GetPodResourcesResponse> got =
        client.Get(c.namespace_, c.name);
    ASSERT_FALSE(got.ok()) << c.namespace_ << "/" << c.name;
    EXPECT_EQ(got.status().code(), c.code) << got.status();
    EXPECT_NE(got.status().message().find(c.message), std::string::npos)
        << got.status();
    EXPECT_NE(got.status().message().find(socket_.string()), std::string::npos)
        << got.status();
  }
}

TEST_F(PodResourcesServerTest, AllocatableResourcesAreEmpty) {
  StatusOr<v1::AllocatableResourcesResponse> allocatable =
      Client().GetAllocatableResources();
  ASSERT_TRUE(allocatable.ok()) << allocatable.status();
  EXPECT_EQ(allocatable->devices_size(), 0);
  EXPECT_EQ(allocatable->cpu_ids_size(), 0);
  EXPECT_EQ(allocatable->memory_size(), 0);
}

TEST_F(PodResourcesServerTest, StopRemovesSocketAndIsIdempotent) {
  ASSERT_TRUE(fs::exists(socket_));
  EXPECT_EQ(server_.Start(socket_).code(), StatusCode::kFailedPrecondition);
  server_.Stop();
  EXPECT_FALSE(fs::exists(socket_));
  server_.Stop();
  // A client now finds nothing at the path.
  StatusOr<PodResourcesClient> client = PodResourcesClient::Connect(socket_);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kNotFound);
  EXPECT_NE(client.status().message().find(socket_.string()),
            std::string::npos);
  // And the server can serve again.
  ASSERT_TRUE(server_.Start(socket_).ok());
  EXPECT_TRUE(Client().List().ok());
}

// Leaves a bound-but-closed unix socket file at `path`, as a crashed
// process would.
void LeaveStaleSocket(const fs::path& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  path.string().copy(address.sun_path, sizeof(address.sun_path) - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)),
            0);
  close(fd);
  ASSERT_EQ(fs::symlink_status(path).type(), fs::file_type::socket);
}

TEST(PodResourcesServerStart, ReplacesStaleSocket) {
  TempDir dir;
  fs::path socket = dir.path() / "kubelet.sock";
  LeaveStaleSocket(socket);
  // Nothing listens on the stale socket.
  StatusOr<PodResourcesClient> stale =
      PodResourcesClient::Connect(socket, std::chrono::seconds(5));
  ASSERT_TRUE(stale.ok());
  StatusOr<v1::ListPodResourcesResponse> refused = stale->List();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(refused.status().message().find(socket.string()),
            std::string::npos);

  FakeSource source(SamplePods());
  PodResourcesServer server(source);
  Status started = server.Start(socket);
  ASSERT_TRUE(started.ok()) << started;
  StatusOr<PodResourcesClient> client = PodResourcesClient::Connect(socket);
  ASSERT_TRUE(client.ok());
  StatusOr<v1::ListPodResourcesResponse> list = client->List();
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->pod_resources_size(), 2);
}

TEST(PodResourcesServerStart, RejectsBadPaths) {
  TempDir dir;
  FakeSource source({});
  PodResourcesServer server(source);

  fs::path regular = dir.path() / "not-a-socket";
  { std::ofstream(regular) << "keep me"; }
  Status not_socket = server.Start(regular);
  EXPECT_EQ(not_socket.code(), StatusCode::kFailedPrecondition) << not_socket;
  EXPECT_NE(not_socket.message().find(regular.string()), std::string::npos);
  EXPECT_TRUE(fs::exists(regular));

  fs::path too_long = dir.path() / std::string(120, 'x');
  Status long_status = server.Start(too_long);
  EXPECT_EQ(long_status.code(), StatusCode::kInvalidArgument) << long_status;

  // An empty source answers List with no pods.
  fs::path socket = dir.path() / "a" / "b" / "kubelet.sock";
  ASSERT_TRUE(server.Start(socket).ok());
  StatusOr<PodResourcesClient> client = PodResourcesClient::Connect(socket);
  ASSERT_TRUE(client.ok());
  StatusOr<v1::ListPodResourcesResponse> list = client->List();
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->pod_resources_size(), 0);
}

}  // namespace
}  // namespace dralloc::podresources
