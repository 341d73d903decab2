// Prepare batching per driver, shared claims, per-claim errors, restarts
// from the checkpoint (a kill -9 mid-prepare simulated by a new manager on
// the same state dir), against fake drivers on real unix sockets.
#include "node/dra_manager.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "node/fake_dra_driver.h"
#include "node/node_test_util.h"

namespace dralloc::node {
namespace {

using testing::FakeDraDriver;
using testing::TempDir;
using namespace std::chrono_literals;

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

api::ResourceClaim MakeClaim(const std::string& uid,
                             const std::vector<std::string>& drivers) {
  api::ResourceClaim claim;
  claim.metadata.uid = uid;
  claim.metadata.namespace_ = "ns";
  claim.metadata.name = "claim-" + uid;
  api::AllocationResult allocation;
  for (const std::string& driver : drivers) {
    allocation.devices.results.push_back(Result("gpu", driver, "pool", "dev"));
  }
  claim.status.allocation = allocation;
  return claim;
}

class DraManagerTest : public ::testing::Test {
 protected:
  DraManagerTest()
      : gpu_("gpu.example.com", dir_.Sub("r"), dir_.Sub("p")),
        net_("net.example.com", dir_.Sub("r"), dir_.Sub("p")) {}
  void SetUp() override {
    ASSERT_TRUE(gpu_.Start());
    ASSERT_TRUE(net_.Start());
    Restart();
  }
  // A new manager over the same state dir: what the agent sees after a
  // crash at this point.
  void Restart() {
    manager_.reset();
    auto cache = ClaimInfoCache::Open(dir_.Sub("state"));
    ASSERT_TRUE(cache.ok()) << cache.status();
    cache_ = std::move(*cache);
    manager_ = std::make_unique<DraManager>(
        *cache_,
        [this](std::string_view driver)
            -> StatusOr<std::shared_ptr<const DraPluginClient>> {
          if (unregistered_.count(std::string(driver))) {
            return UnavailableError("DRA driver " + std::string(driver) +
                                    " is not registered on this node");
          }
          FakeDraDriver& d = driver == "gpu.example.com" ? gpu_ : net_;
          return std::make_shared<const DraPluginClient>(
              std::string(driver), d.state().endpoint, DraApiVersion::kV1, 2s);
        });
  }
  std::vector<std::vector<std::string>> PrepareCalls(FakeDraDriver& d) {
    std::lock_guard lock(d.state().mu);
    return d.state().prepare_calls;
  }
  std::vector<std::vector<std::string>> UnprepareCalls(FakeDraDriver& d) {
    std::lock_guard lock(d.state().mu);
    return d.state().unprepare_calls;
  }
  using Calls = std::vector<std::vector<std::string>>;

  TempDir dir_;
  FakeDraDriver gpu_;
  FakeDraDriver net_;
  std::set<std::string> unregistered_;
  std::unique_ptr<ClaimInfoCache> cache_;
  std::unique_ptr<DraManager> manager_;
};

// Claim "a"'s prepare waits at the driver until "b"'s has arrived: that
// only happens when two pods' prepares run at once.
TEST_F(DraManagerTest, DifferentClaimsArePreparedInParallel) {
  std::mutex mu;
  std::condition_variable arrived_cv;
  std::set<std::string> arrived;
  bool a_saw_b = false;
  gpu_.state().on_prepare = [&](const std::string& uid) {
    std::unique_lock lock(mu);
    arrived.insert(uid);
    arrived_cv.notify_all();
    if (uid == "a") {
      a_saw_b = arrived_cv.wait_for(lock, 1500ms,
                                    [&] { return arrived.contains("b"); });
    }
  };
  auto a = MakeClaim("a", {"gpu.example.com"});
  auto b = MakeClaim("b", {"gpu.example.com"});
  std::thread first([&] {
    EXPECT_TRUE(manager_->PrepareResources("pod-a", {NodeClaim::Of(a)}).ok());
  });
  ASSERT_TRUE(testing::WaitFor([&] {
    std::lock_guard lock(mu);
    return arrived.contains("a");
  }));
  EXPECT_TRUE(manager_->PrepareResources("pod-b", {NodeClaim::Of(b)}).ok());
  first.join();
  std::lock_guard lock(mu);
  EXPECT_TRUE(a_saw_b);
}

// Two pods sharing a claim: the second waits for the first's prepare and
// then only references it; the driver is called once.
TEST_F(DraManagerTest, SharedClaimIsPreparedOnceWhenPodsRace) {
  std::mutex mu;
  std::condition_variable cv;
  bool arrived = false;
  bool release = false;
  gpu_.state().on_prepare = [&](const std::string&) {
    std::unique_lock lock(mu);
    arrived = true;
    cv.notify_all();
    cv.wait_for(lock, 1500ms, [&] { return release; });
  };
  auto shared = MakeClaim("s", {"gpu.example.com"});
  std::thread first([&] {
    EXPECT_TRUE(
        manager_->PrepareResources("pod-1", {NodeClaim::Of(shared)}).ok());
  });
  ASSERT_TRUE(testing::WaitFor([&] {
    std::lock_guard lock(mu);
    return arrived;
  }));
  std::thread second([&] {
    EXPECT_TRUE(
        manager_->PrepareResources("pod-2", {NodeClaim::Of(shared)}).ok());
  });
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  first.join();
  second.join();
  EXPECT_EQ(PrepareCalls(gpu_), (Calls{{"s"}}));
  EXPECT_EQ(cache_->Get("s")->pod_uids,
            (std::set<std::string>{"pod-1", "pod-2"}));
}

TEST_F(DraManagerTest, OneCallPerDriverWithAllClaimsOfThePod) {
  auto a = MakeClaim("a", {"gpu.example.com"});
  auto b = MakeClaim("b", {"gpu.example.com", "net.example.com"});
  auto c = MakeClaim("c", {"net.example.com"});
  ASSERT_TRUE(
      manager_
          ->PrepareResources(
              "pod-1", {NodeClaim::Of(a), NodeClaim::Of(b), NodeClaim::Of(c)})
          .ok());
  EXPECT_EQ(PrepareCalls(gpu_), (Calls{{"a", "b"}}));
  EXPECT_EQ(PrepareCalls(net_), (Calls{{"b", "c"}}));
  ASSERT_TRUE(cache_->Get("b")->prepared());
  auto ids = manager_->CdiDeviceIds("b", "gpu");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids,
            (std::vector<std::string>{"k8s.gpu.example.com/gpu=b-gpu-0",
                                      "k8s.net.example.com/gpu=b-gpu-0"}));

  // Preparing again (pod re-synced) calls nobody.
  ASSERT_TRUE(
      manager_
          ->PrepareResources(
              "pod-1", {NodeClaim::Of(a), NodeClaim::Of(b), NodeClaim::Of(c)})
          .ok());
  EXPECT_EQ(PrepareCalls(gpu_).size(), 1u);

  ASSERT_TRUE(manager_->UnprepareResources("pod-1").ok());
  EXPECT_EQ(UnprepareCalls(gpu_), (Calls{{"a", "b"}}));
  EXPECT_EQ(UnprepareCalls(net_), (Calls{{"b", "c"}}));
  EXPECT_TRUE(cache_->List().empty());
}

// KEP-5945: a driver whose every device in the claim skips an operation is
// never called for it, and needs not even be registered; a driver with one
// device that does not skip is called as before.
TEST_F(DraManagerTest, SkippedNodeOperationsCallNoDriver) {
  auto claim = MakeClaim("a", {"gpu.example.com", "net.example.com"});
  auto& results = claim.status.allocation->devices.results;
  results[0].skip_node_operations = {"*"};
  results[1].skip_node_operations = {"NodeUnprepareResources"};
  results.push_back(Result("gpu", "gpu.example.com", "pool", "dev-2"));
  results.back().skip_node_operations = {"NodePrepareResources",
                                         "NodeUnprepareResources"};
  unregistered_.insert("gpu.example.com");
  ASSERT_TRUE(manager_->PrepareResources("pod-1", {NodeClaim::Of(claim)}).ok());
  EXPECT_TRUE(PrepareCalls(gpu_).empty());
  EXPECT_EQ(PrepareCalls(net_), (Calls{{"a"}}));
  ASSERT_TRUE(cache_->Get("a")->prepared());

  Restart();  // the skips survive in the checkpoint
  ASSERT_TRUE(manager_->UnprepareResources("pod-1").ok());
  EXPECT_TRUE(UnprepareCalls(gpu_).empty());
  EXPECT_TRUE(UnprepareCalls(net_).empty());
  EXPECT_TRUE(cache_->List().empty());
}

TEST_F(DraManagerTest, OneDeviceThatNeedsTheDriverMeansACall) {
  auto claim = MakeClaim("a", {"gpu.example.com", "gpu.example.com"});
  claim.status.allocation->devices.results[0].skip_node_operations = {"*"};
  ASSERT_TRUE(manager_->PrepareResources("pod-1", {NodeClaim::Of(claim)}).ok());
  EXPECT_EQ(PrepareCalls(gpu_), (Calls{{"a"}}));
  ASSERT_TRUE(manager_->UnprepareResources("pod-1").ok());
  EXPECT_EQ(UnprepareCalls(gpu_), (Calls{{"a"}}));
}

TEST_F(DraManagerTest, SharedClaimUnpreparedAfterItsLastPod) {
  auto shared = MakeClaim("s", {"gpu.example.com"});
  ASSERT_TRUE(
      manager_->PrepareResources("pod-1", {NodeClaim::Of(shared)}).ok());
  ASSERT_TRUE(
      manager_->PrepareResources("pod-2", {NodeClaim::Of(shared)}).ok());
  EXPECT_EQ(PrepareCalls(gpu_).size(), 1u);  // referenced, not prepared again
  EXPECT_EQ(cache_->Get("s")->pod_uids,
            (std::set<std::string>{"pod-1", "pod-2"}));

  ASSERT_TRUE(manager_->UnprepareResources("pod-1").ok());
  EXPECT_TRUE(UnprepareCalls(gpu_).empty());
  ASSERT_TRUE(manager_->UnprepareResources("pod-2").ok());
  EXPECT_EQ(UnprepareCalls(gpu_), (Calls{{"s"}}));
  EXPECT_FALSE(cache_->Get("s").has_value());
}

TEST_F(DraManagerTest, PerClaimErrorIsRetriedAlone) {
  {
    std::lock_guard lock(gpu_.state().mu);
    gpu_.state().prepare_errors["bad"] = "device is broken";
    gpu_.state().omit.insert("lost");
  }
  auto good = MakeClaim("good", {"gpu.example.com"});
  auto bad = MakeClaim("bad", {"gpu.example.com"});
  auto lost = MakeClaim("lost", {"gpu.example.com"});
  Status status = manager_->PrepareResources(
      "pod-1", {NodeClaim::Of(good), NodeClaim::Of(bad), NodeClaim::Of(lost)});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("claim ns/claim-bad: driver gpu.example.com: "
                                  "NodePrepareResources: device is broken"),
            std::string::npos)
      << status;
  EXPECT_NE(status.message().find("claim ns/claim-lost:"), std::string::npos);
  EXPECT_EQ(status.message().find("claim-good"), std::string::npos);
  EXPECT_TRUE(cache_->Get("good")->prepared());
  EXPECT_FALSE(cache_->Get("bad")->prepared());

  {
    std::lock_guard lock(gpu_.state().mu);
    gpu_.state().prepare_errors.clear();
    gpu_.state().omit.clear();
  }
  ASSERT_TRUE(
      manager_
          ->PrepareResources("pod-1", {NodeClaim::Of(good), NodeClaim::Of(bad),
                                       NodeClaim::Of(lost)})
          .ok());
  EXPECT_EQ(PrepareCalls(gpu_),
            (Calls{{"good", "bad", "lost"}, {"bad", "lost"}}));
}

TEST_F(DraManagerTest, UnprepareFailureIsNeverForgotten) {
  auto claim = MakeClaim("u", {"gpu.example.com"});
  ASSERT_TRUE(manager_->PrepareResources("pod-1", {NodeClaim::Of(claim)}).ok());
  {
    std::lock_guard lock(gpu_.state().mu);
    gpu_.state().unprepare_errors["u"] = "busy";
  }
  EXPECT_FALSE(manager_->UnprepareResources("pod-1").ok());
  // Still tied to the pod: the pod's next sync retries it.
  ASSERT_TRUE(cache_->Get("u").has_value());
  EXPECT_EQ(cache_->Get("u")->pod_uids, std::set<std::string>{"pod-1"});
  EXPECT_FALSE(manager_->UnprepareResources("pod-1").ok());
  Restart();  // even across a restart
  ASSERT_TRUE(cache_->Get("u").has_value());
  {
    std::lock_guard lock(gpu_.state().mu);
    gpu_.state().unprepare_errors.clear();
  }
  // The pod is gone by now: restart recovery forgets it and unprepares.
  ASSERT_TRUE(manager_->RemovePodsExcept({}).ok());
  ASSERT_TRUE(manager_->UnprepareUnused().ok());
  EXPECT_FALSE(cache_->Get("u").has_value());
  EXPECT_EQ(UnprepareCalls(gpu_).size(), 3u);
}

// kill -9 after the "preparing" record and before the driver answered
// (here: the driver refused): the claim is in the checkpoint.
TEST_F(DraManagerTest, RestartMidPrepareFinishesOrUnprepares) {
  auto kept = MakeClaim("kept", {"gpu.example.com"});
  auto gone = MakeClaim("gone", {"gpu.example.com"});
  {
    std::lock_guard lock(gpu_.state().mu);
    gpu_.state().prepare_errors = {{"kept", "busy"}, {"gone", "busy"}};
  }
  EXPECT_FALSE(
      manager_->PrepareResources("pod-kept", {NodeClaim::Of(kept)}).ok());
  EXPECT_FALSE(
      manager_->PrepareResources("pod-gone", {NodeClaim::Of(gone)}).ok());
  {
    std::lock_guard lock(gpu_.state().mu);
    gpu_.state().prepare_errors.clear();
  }

  Restart();
  ASSERT_EQ(cache_->List().size(), 2u);
  EXPECT_FALSE(cache_->Get("kept")->prepared());
  // The agent's startup: pod-gone no longer exists.
  ASSERT_TRUE(manager_->RemovePodsExcept({"pod-kept"}).ok());
  ASSERT_TRUE(manager_->UnprepareUnused().ok());
  EXPECT_EQ(UnprepareCalls(gpu_), (Calls{{"gone"}}));
  // pod-kept is synced again: prepared once.
  ASSERT_TRUE(
      manager_->PrepareResources("pod-kept", {NodeClaim::Of(kept)}).ok());
  EXPECT_EQ(PrepareCalls(gpu_), (Calls{{"kept"}, {"gone"}, {"kept"}}));
  EXPECT_EQ(cache_->List().size(), 1u);
}

// As the kubelet: nothing is recorded while a driver of the claims is not
// registered, so the pod can go without waiting for that driver.
TEST_F(DraManagerTest, UnregisteredDriverRecordsNothing) {
  auto claim = MakeClaim("a", {"gpu.example.com", "net.example.com"});
  unregistered_.insert("gpu.example.com");
  Status prepared = manager_->PrepareResources("pod-1", {NodeClaim::Of(claim)});
  EXPECT_EQ(prepared.message(),
            "prepare dynamic resources: claim ns/claim-a: DRA driver "
            "gpu.example.com is not registered on this node");
  EXPECT_TRUE(cache_->List().empty());
  EXPECT_TRUE(PrepareCalls(net_).empty());
  EXPECT_TRUE(manager_->UnprepareResources("pod-1").ok());
  EXPECT_TRUE(UnprepareCalls(net_).empty());
}

// kill -9 after a successful prepare: not prepared twice after restart.
TEST_F(DraManagerTest, RestartAfterPrepareDoesNotPrepareTwice) {
  auto claim = MakeClaim("c", {"gpu.example.com"});
  ASSERT_TRUE(manager_->PrepareResources("pod-1", {NodeClaim::Of(claim)}).ok());
  Restart();
  ASSERT_TRUE(manager_->RemovePodsExcept({"pod-1"}).ok());
  ASSERT_TRUE(manager_->UnprepareUnused().ok());
  ASSERT_TRUE(manager_->PrepareResources("pod-1", {NodeClaim::Of(claim)}).ok());
  EXPECT_EQ(PrepareCalls(gpu_).size(), 1u);
  EXPECT_TRUE(UnprepareCalls(gpu_).empty());
}

TEST(PreparedDevice, ServesRequest) {
  PreparedDevice all;
  PreparedDevice some{{"gpu", "nic/sub"}, "p", "d", {}, std::nullopt};
  EXPECT_TRUE(ServesRequest(all, "anything"));
  EXPECT_TRUE(ServesRequest(some, ""));
  EXPECT_TRUE(ServesRequest(some, "gpu"));
  EXPECT_TRUE(ServesRequest(some, "nic"));
  EXPECT_TRUE(ServesRequest(some, "nic/sub"));
  EXPECT_FALSE(ServesRequest(some, "gp"));
  EXPECT_FALSE(ServesRequest(some, "other"));
}

}  // namespace
}  // namespace dralloc::node
