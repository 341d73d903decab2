// Registration handshake, version negotiation, rejection, stale sockets,
// rolling updates and socket removal, against fake drivers on real unix
// sockets; plus the DRA client's batching, per-claim errors, missing claims
// and deadlines.
#include "node/dra_plugin_manager.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "client/memory_api_client.h"
#include "client/node_identity_api_client.h"
#include "node/fake_dra_driver.h"
#include "node/node_test_util.h"

namespace dralloc::node {
namespace {

using testing::BindUnixSocket;
using testing::FakeDraDriver;
using testing::TempDir;
using testing::WaitFor;
using namespace std::chrono_literals;

class DraPluginManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DraPluginManagerOptions options;
    options.node_name = "node-a";
    options.call_timeout = 2s;
    options.registration_timeout = 2s;
    options.wiping_delay = 100ms;
    options.retry_initial = 20ms;
    options.retry_max = 200ms;
    manager_ = std::make_unique<DraPluginManager>(&node_api_, options);
    manager_->Start();
    watcher_ = std::make_unique<PluginWatcher>(
        registry(), [this](const auto& e) { manager_->OnSocketEvent(e); });
    ASSERT_TRUE(watcher_->Start().ok());
  }
  void TearDown() override {
    watcher_->Stop();
    manager_->Stop();
    EXPECT_EQ(node_api_.refused(), std::vector<std::string>{});
  }
  std::string registry() const { return dir_.Sub("registry"); }
  std::string plugins() const { return dir_.Sub("plugins"); }
  bool Registered(const std::string& driver) {
    return manager_->GetClient(driver).ok();
  }
  std::string Endpoint(const std::string& driver) {
    auto client = manager_->GetClient(driver);
    return client.ok() ? (*client)->endpoint() : "";
  }
  void AddSlice(const std::string& name, const std::string& driver,
                const std::string& node) {
    api::ResourceSlice slice;
    slice.metadata.name = name;
    slice.spec.driver = driver;
    slice.spec.node_name = node;
    slice.spec.pool.name = node;
    slice.spec.pool.resource_slice_count = 1;
    ASSERT_TRUE(api_.Create(slice).ok());
  }
  std::vector<std::string> SliceNames() {
    std::vector<std::string> names;
    auto slices = api_.List(client::ResourceSlicesResource());
    for (const auto& o : slices->items) {
      names.push_back(std::get<api::ResourceSlice>(*o).metadata.name);
    }
    return names;
  }

  TempDir dir_;
  client::MemoryApiClient api_;
  // What the manager sees: list and watch as the Node authorizer allows.
  client::testing::NodeIdentityApiClient node_api_{api_, "node-a"};
  std::unique_ptr<DraPluginManager> manager_;
  std::unique_ptr<PluginWatcher> watcher_;
};

TEST_F(DraPluginManagerTest, RegistersAndPrefersV1) {
  FakeDraDriver driver("gpu.example.com", registry(), plugins());
  ASSERT_TRUE(driver.Start());
  ASSERT_TRUE(WaitFor([&] { return Registered("gpu.example.com"); }));
  auto client = *manager_->GetClient("gpu.example.com");
  EXPECT_EQ(client->version(), DraApiVersion::kV1);
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard lock(driver.state().mu);
    return driver.state().registered.has_value();
  }));
  EXPECT_TRUE(*driver.state().registered);
  EXPECT_EQ(manager_->RegisteredDrivers(),
            std::vector<std::string>{"gpu.example.com"});
}

TEST_F(DraPluginManagerTest, FallsBackToV1beta1) {
  FakeDraDriver driver("old.example.com", registry(), plugins());
  driver.state().versions = {"v1beta1.DRAPlugin", "v1alpha1.DRAResourceHealth"};
  ASSERT_TRUE(driver.Start());
  ASSERT_TRUE(WaitFor([&] { return Registered("old.example.com"); }));
  auto client = *manager_->GetClient("old.example.com");
  EXPECT_EQ(client->version(), DraApiVersion::kV1beta1);
  PrepareResults results = client->Prepare({{"ns", "uid-1", "claim-1"}});
  ASSERT_TRUE(results.at("uid-1").ok());
  std::lock_guard lock(driver.state().mu);
  EXPECT_EQ(driver.state().call_versions, std::vector<std::string>{"v1beta1"});
}

TEST_F(DraPluginManagerTest, EmptyEndpointMeansTheRegistrationSocket) {
  FakeDraDriver driver("one.example.com", registry(), plugins());
  driver.ServeDraOnRegistrationSocket();
  ASSERT_TRUE(driver.Start());
  ASSERT_TRUE(WaitFor([&] { return Registered("one.example.com"); }));
  EXPECT_EQ(Endpoint("one.example.com"), driver.registration_socket());
  auto client = *manager_->GetClient("one.example.com");
  EXPECT_TRUE(client->Prepare({{"ns", "u1", "c1"}}).at("u1").ok());
}

struct RejectionCase {
  std::string name;
  std::string type;
  std::vector<std::string> versions;
  std::string error;  // substring of NotifyRegistrationStatus.error
};

TEST_F(DraPluginManagerTest, RejectsUnsupportedPlugins) {
  std::vector<RejectionCase> cases = {
      {"v2.example.com",
       "DRAPlugin",
       {"v2.DRAPlugin", "v1alpha1.DRAResourceHealth"},
       "no supported DRAPlugin version in [v2.DRAPlugin "
       "v1alpha1.DRAResourceHealth]"},
      {"empty.example.com",
       "DRAPlugin",
       {},
       "no supported DRAPlugin version in []"},
      {"csi.example.com",
       "CSIPlugin",
       {"v1.DRAPlugin"},
       "plugin type \"CSIPlugin\" is not supported"},
      {"", "DRAPlugin", {"v1.DRAPlugin"}, "DRA plugin name is empty"},
  };
  int index = 0;
  for (const RejectionCase& c : cases) {
    SCOPED_TRACE(c.error);
    FakeDraDriver driver(c.name, registry(), plugins(),
                         "reject-" + std::to_string(index++) + "-reg.sock");
    driver.state().type = c.type;
    driver.state().versions = c.versions;
    ASSERT_TRUE(driver.Start());
    ASSERT_TRUE(WaitFor([&] {
      std::lock_guard lock(driver.state().mu);
      return driver.state().registered.has_value();
    }));
    std::lock_guard lock(driver.state().mu);
    EXPECT_FALSE(*driver.state().registered);
    EXPECT_NE(driver.state().registration_error.find(c.error),
              std::string::npos)
        << driver.state().registration_error;
  }
  EXPECT_TRUE(manager_->RegisteredDrivers().empty());
}

TEST_F(DraPluginManagerTest, StaleSocketIsRetriedUntilADriverAnswers) {
  // A socket file nothing listens on (a crashed driver's leftover).
  std::filesystem::create_directories(registry());
  const std::string socket = registry() + "/late.example.com-reg.sock";
  int fd = BindUnixSocket(socket, false);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::this_thread::sleep_for(100ms);  // several failed attempts
  EXPECT_FALSE(Registered("late.example.com"));
  // The driver restarts on the same path: replaces the stale file.
  ::unlink(socket.c_str());
  FakeDraDriver driver("late.example.com", registry(), plugins());
  ASSERT_TRUE(driver.Start());
  ASSERT_TRUE(WaitFor([&] { return Registered("late.example.com"); }));
}

TEST_F(DraPluginManagerTest, RollingUpdateUsesNewestAndFallsBack) {
  FakeDraDriver old_pod("gpu.example.com", registry(), plugins(),
                        "gpu.example.com-old-reg.sock");
  ASSERT_TRUE(old_pod.Start());
  ASSERT_TRUE(WaitFor([&] { return Registered("gpu.example.com"); }));
  const std::string old_endpoint = Endpoint("gpu.example.com");

  FakeDraDriver new_pod("gpu.example.com", registry(), plugins(),
                        "gpu.example.com-new-reg.sock");
  ASSERT_TRUE(new_pod.Start());
  ASSERT_TRUE(
      WaitFor([&] { return Endpoint("gpu.example.com") != old_endpoint; }));
  EXPECT_EQ(Endpoint("gpu.example.com"), new_pod.state().endpoint);

  // The new one goes away first: the old one serves again.
  new_pod.Stop();
  ASSERT_TRUE(
      WaitFor([&] { return Endpoint("gpu.example.com") == old_endpoint; }));
  old_pod.Stop();
  ASSERT_TRUE(WaitFor([&] { return !Registered("gpu.example.com"); }));
}

TEST_F(DraPluginManagerTest, RemovalWipesSlicesAfterDelayUnlessBack) {
  AddSlice("a-gpu", "gpu.example.com", "node-a");
  AddSlice("a-net", "net.example.com", "node-a");
  AddSlice("b-gpu", "gpu.example.com", "node-b");
  {
    FakeDraDriver driver("gpu.example.com", registry(), plugins());
    ASSERT_TRUE(driver.Start());
    ASSERT_TRUE(WaitFor([&] { return Registered("gpu.example.com"); }));
  }  // stopped: socket removed
  ASSERT_TRUE(WaitFor([&] { return !Registered("gpu.example.com"); }));
  ASSERT_TRUE(WaitFor([&] { return SliceNames().size() == 2; }));
  EXPECT_EQ(SliceNames(), (std::vector<std::string>{"a-net", "b-gpu"}));

  // Back within the delay: nothing is wiped.
  AddSlice("a-net-2", "net.example.com", "node-a");
  FakeDraDriver net("net.example.com", registry(), plugins());
  ASSERT_TRUE(net.Start());
  ASSERT_TRUE(WaitFor([&] { return Registered("net.example.com"); }));
  net.Stop();
  FakeDraDriver net_again("net.example.com", registry(), plugins());
  ASSERT_TRUE(net_again.Start());
  ASSERT_TRUE(WaitFor([&] { return Registered("net.example.com"); }));
  std::this_thread::sleep_for(300ms);  // > wiping delay
  EXPECT_EQ(SliceNames().size(), 3u);
}

TEST_F(DraPluginManagerTest, WipeNodeSlicesAtStartup) {
  AddSlice("a-gpu", "gpu.example.com", "node-a");
  AddSlice("a-net", "net.example.com", "node-a");
  AddSlice("b-gpu", "gpu.example.com", "node-b");
  ASSERT_TRUE(manager_->WipeNodeSlices("").ok());
  EXPECT_EQ(SliceNames(), std::vector<std::string>{"b-gpu"});
}

class DraPluginClientTest : public ::testing::Test {
 protected:
  DraPluginClientTest()
      : driver_("gpu.example.com", dir_.Sub("r"), dir_.Sub("p")) {}
  void SetUp() override { ASSERT_TRUE(driver_.Start()); }
  DraPluginClient Client(std::chrono::milliseconds timeout = 2s) {
    return DraPluginClient("gpu.example.com", driver_.state().endpoint,
                           DraApiVersion::kV1, timeout);
  }
  TempDir dir_;
  FakeDraDriver driver_;
};

TEST_F(DraPluginClientTest, BatchWithPerClaimErrorAndMissingClaim) {
  {
    std::lock_guard lock(driver_.state().mu);
    driver_.state().prepare_errors["bad"] = "no such device";
    driver_.state().omit.insert("lost");
    testing::drav1::Device shared;
    shared.set_pool_name("node-a");
    shared.set_device_name("gpu-1");
    shared.add_request_names("gpu");
    shared.add_cdi_device_ids("k8s.gpu.example.com/gpu=x");
    shared.set_share_id("share-7");
    driver_.state().devices["good"] = {shared};
  }
  PrepareResults results = Client().Prepare(
      {{"ns", "good", "c1"}, {"ns", "bad", "c2"}, {"ns", "lost", "c3"}});
  ASSERT_EQ(results.size(), 3u);
  ASSERT_TRUE(results.at("good").ok());
  PreparedDevice want{
      {"gpu"}, "node-a", "gpu-1", {"k8s.gpu.example.com/gpu=x"}, "share-7"};
  EXPECT_EQ(*results.at("good"), std::vector<PreparedDevice>{want});
  EXPECT_NE(results.at("bad").status().message().find("no such device"),
            std::string::npos);
  EXPECT_NE(results.at("lost").status().message().find(
                "claim ns/c3 (uid lost) missing from the response"),
            std::string::npos)
      << results.at("lost").status();
  std::lock_guard lock(driver_.state().mu);
  ASSERT_EQ(driver_.state().prepare_calls.size(), 1u);  // one batch
  EXPECT_EQ(driver_.state().prepare_calls[0],
            (std::vector<std::string>{"good", "bad", "lost"}));
}

TEST_F(DraPluginClientTest, UnprepareErrorsPerClaim) {
  {
    std::lock_guard lock(driver_.state().mu);
    driver_.state().unprepare_errors["bad"] = "busy";
    driver_.state().omit.insert("lost");
  }
  UnprepareResults results = Client().Unprepare(
      {{"ns", "good", "c1"}, {"ns", "bad", "c2"}, {"ns", "lost", "c3"}});
  EXPECT_TRUE(results.at("good").ok());
  EXPECT_NE(results.at("bad").message().find("busy"), std::string::npos);
  EXPECT_FALSE(results.at("lost").ok());
}

TEST_F(DraPluginClientTest, DeadlineFailsTheWholeBatch) {
  {
    std::lock_guard lock(driver_.state().mu);
    driver_.state().delay = 500ms;
  }
  auto start = std::chrono::steady_clock::now();
  PrepareResults results =
      Client(100ms).Prepare({{"ns", "u1", "c1"}, {"ns", "u2", "c2"}});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 450ms);
  for (const auto& [uid, result] : results) {
    EXPECT_EQ(result.status().code(), StatusCode::kDeadlineExceeded) << uid;
  }
}

TEST(DraPluginClient, NothingListeningIsUnavailable) {
  TempDir dir;
  DraPluginClient client("x", dir.Sub("none.sock"), DraApiVersion::kV1, 1s);
  PrepareResults results = client.Prepare({{"ns", "u1", "c1"}});
  EXPECT_EQ(results.at("u1").status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace dralloc::node
