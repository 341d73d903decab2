#include "scheduler/binder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "api/claim_helpers.h"
#include "scheduler/test_cluster.h"
#include "scheduler/test_manifests.h"

namespace dralloc::scheduler {
namespace {

class BinderTest : public testing::Test {
 protected:
  void SetUp() override {
    cluster_.Load(test_manifests::Namespace() + test_manifests::Node("node-a"));
  }

  // A pod in the API (with `create`) and the task binding it to node-a.
  BindTask Task(std::string name, bool create = true) {
    api::Pod pod;
    pod.metadata.name = std::move(name);
    pod.metadata.namespace_ = "ns";
    pod.spec.containers.push_back({.name = "c", .image = "busybox"});
    client::ObjectPtr object = std::make_shared<const api::Object>(pod);
    if (create) {
      auto created = cluster_.api.Create(api::Object(pod));
      EXPECT_TRUE(created.ok()) << created.status();
      if (created.ok()) object = *created;
    }
    return BindTask{object, "node-a", {}};
  }

  std::string NodeOf(std::string_view name) {
    auto pod = cluster_.api.Get(client::PodsResource(), "ns", name);
    return pod.ok() ? std::get<api::Pod>(**pod).spec.node_name : "<none>";
  }

  std::vector<std::string> TakeBoundKeys(Binder& binder) {
    std::vector<BoundPod> bound;
    binder.TakeBound(bound);
    std::vector<std::string> keys;
    for (const BoundPod& pod : bound) keys.push_back(pod.pod_key);
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  TestCluster cluster_;
  ClusterSnapshot snapshot_{cluster_.sources()};
  DraPlugin dra_{cluster_.api, snapshot_, DraPluginOptions{}};
  std::vector<std::string> failed_;
  Binder::FailureHandler on_failure_ = [this](const BindTask& task,
                                              const std::string&) {
    failed_.push_back(client::ObjectKey(*task.pod));
  };
};

TEST_F(BinderTest, InlineBindingsAreBookedLater) {
  Binder binder(cluster_.api, dra_, 0, on_failure_);
  binder.Announce();
  EXPECT_EQ(binder.in_flight(), 1);
  binder.Submit(Task("p1"));
  EXPECT_EQ(binder.in_flight(), 0);
  EXPECT_EQ(NodeOf("p1"), "node-a");
  EXPECT_EQ(TakeBoundKeys(binder), std::vector<std::string>{"ns/p1"});
  EXPECT_TRUE(TakeBoundKeys(binder).empty());
  EXPECT_TRUE(failed_.empty());
}

TEST_F(BinderTest, FailedBindingsGoToTheHandler) {
  Binder binder(cluster_.api, dra_, 0, on_failure_);
  binder.Announce();
  binder.Submit(Task("ghost", /*create=*/false));
  EXPECT_EQ(failed_, std::vector<std::string>{"ns/ghost"});
  EXPECT_TRUE(TakeBoundKeys(binder).empty());
  EXPECT_EQ(binder.in_flight(), 0);
}

TEST_F(BinderTest, ThreadsBindEverythingBeforeWaitForBindsReturns) {
  Binder binder(cluster_.api, dra_, 2, on_failure_);
  binder.Start();
  std::vector<std::string> expected;
  for (int i = 0; i < 5; ++i) {
    const std::string name = "p" + std::to_string(i);
    binder.Announce();
    binder.Submit(Task(name));
    expected.push_back("ns/" + name);
  }
  binder.WaitForBinds();
  EXPECT_EQ(binder.in_flight(), 0);
  EXPECT_EQ(TakeBoundKeys(binder), expected);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(NodeOf("p" + std::to_string(i)), "node-a");
  binder.Stop();
  EXPECT_TRUE(failed_.empty());
}

// KEP-5007: a pod whose claim gets a device with binding conditions.
class BindingConditionsTest : public BinderTest {
 protected:
  void SetUp() override {
    BinderTest::SetUp();
    cluster_.Load(test_manifests::GpuClass() +
                  test_manifests::GpuSlice("node-a", 1));
  }

  // The claim "c" in the API and a task allocating gpu-0 of node-a to it
  // for pod `pod`, the device carrying binding condition "attached" and
  // failure condition "attach-failed".
  BindTask ClaimTask(std::string pod) {
    BindTask task = Task(std::move(pod));
    api::ResourceClaim claim;
    claim.metadata.name = "c";
    claim.metadata.namespace_ = "ns";
    claim.spec.devices.requests.push_back(
        {.name = "gpu",
         .exactly = api::ExactDeviceRequest{.device_class_name = "gpu"}});
    auto created = cluster_.api.Create(api::Object(claim));
    EXPECT_TRUE(created.ok()) << created.status();
    api::ResourceClaim assumed = std::get<api::ResourceClaim>(**created);
    assumed.status.allocation.emplace();
    assumed.status.allocation->devices.results.push_back(
        {.request = "gpu",
         .driver = "gpu.example.com",
         .pool = "node-a",
         .device = "gpu-0",
         .binding_conditions = {"attached"},
         .binding_failure_conditions = {"attach-failed"}});
    assumed.status.reserved_for.push_back(
        api::PodConsumerRef(std::get<api::Pod>(*task.pod)));
    task.claims.push_back({"ns/c", *created,
                           std::make_shared<const api::Object>(assumed),
                           /*allocate=*/true});
    return task;
  }

  // What a driver does: sets condition `type` of gpu-0 to True, once the
  // claim is allocated, retrying when its write races the binder's (as a
  // driver retries a conflict). Bounded: 10 s.
  void DriverSets(const std::string& type) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(10);
    Status last;
    while (std::chrono::steady_clock::now() < deadline) {
      auto current =
          cluster_.api.Get(client::ResourceClaimsResource(), "ns", "c");
      ASSERT_TRUE(current.ok()) << current.status();
      api::ResourceClaim claim = std::get<api::ResourceClaim>(**current);
      if (!claim.status.allocation) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      if (claim.status.devices.empty()) {
        claim.status.devices.push_back(
            {.driver = "gpu.example.com", .pool = "node-a", .device = "gpu-0"});
      }
      claim.status.devices[0].conditions.push_back(
          {.type = type,
           .status = "True",
           .last_transition_time = "2026-11-28T17:00:00Z",
           .reason = "Driver",
           .message = "set by the test"});
      auto updated = cluster_.api.UpdateStatus(api::Object(std::move(claim)));
      if (updated.ok()) return;
      last = updated.status();
      if (last.code() != StatusCode::kAborted) break;
    }
    FAIL() << "the driver could not set " << type << ": " << last;
  }

  api::ResourceClaim StoredClaim() {
    auto current =
        cluster_.api.Get(client::ResourceClaimsResource(), "ns", "c");
    EXPECT_TRUE(current.ok()) << current.status();
    return current.ok() ? std::get<api::ResourceClaim>(**current)
                        : api::ResourceClaim{};
  }

  std::vector<std::string> pending_;
  Binder::PendingHandler on_pending_ = [this](const BindTask& task) {
    pending_.push_back(client::ObjectKey(*task.pod));
  };
  std::vector<std::string> why_;
  Binder::BindingFailedHandler on_binding_failed_ =
      [this](const BindTask&, const std::string& why) { why_.push_back(why); };
};

TEST_F(BindingConditionsTest, WaitsUntilEveryConditionIsTrueThenBinds) {
  Binder binder(cluster_.api, dra_, 0, on_failure_, nullptr,
                BindingWaitOptions{}, on_pending_);
  binder.Announce();
  binder.Submit(ClaimTask("p1"));
  EXPECT_EQ(pending_, std::vector<std::string>{"ns/p1"});
  EXPECT_EQ(binder.waiting(), 1);
  EXPECT_EQ(binder.in_flight(), 1);
  EXPECT_TRUE(StoredClaim().status.allocation.has_value());
  EXPECT_EQ(NodeOf("p1"), "");

  binder.CheckWaiting();  // nothing set yet
  EXPECT_EQ(binder.waiting(), 1);
  EXPECT_EQ(NodeOf("p1"), "");

  DriverSets("unrelated");
  binder.CheckWaiting();
  EXPECT_EQ(NodeOf("p1"), "");

  DriverSets("attached");
  binder.CheckWaiting();
  EXPECT_EQ(binder.waiting(), 0);
  EXPECT_EQ(binder.in_flight(), 0);
  EXPECT_EQ(NodeOf("p1"), "node-a");
  EXPECT_EQ(TakeBoundKeys(binder), std::vector<std::string>{"ns/p1"});
  EXPECT_TRUE(failed_.empty());
}

TEST_F(BindingConditionsTest, FailureConditionReleasesTheClaimAndRequeues) {
  Binder binder(cluster_.api, dra_, 0, on_failure_, nullptr,
                BindingWaitOptions{}, on_pending_, on_binding_failed_);
  binder.Announce();
  binder.Submit(ClaimTask("p1"));
  DriverSets("attach-failed");
  binder.CheckWaiting();
  EXPECT_EQ(failed_, std::vector<std::string>{"ns/p1"});
  EXPECT_EQ(binder.waiting(), 0);
  EXPECT_EQ(binder.in_flight(), 0);
  EXPECT_EQ(NodeOf("p1"), "");
  const api::ResourceClaim claim = StoredClaim();
  EXPECT_FALSE(claim.status.allocation.has_value());
  EXPECT_TRUE(claim.status.reserved_for.empty());
  EXPECT_TRUE(claim.status.devices.empty());
  EXPECT_TRUE(TakeBoundKeys(binder).empty());
  ASSERT_EQ(why_.size(), 1u);
  EXPECT_TRUE(why_[0].starts_with(
      "claim c binding failed: reason=Driver, message=set by the test"))
      << why_[0];
}

TEST_F(BindingConditionsTest, FailureWinsOverReadyConditions) {
  Binder binder(cluster_.api, dra_, 0, on_failure_, nullptr,
                BindingWaitOptions{}, on_pending_);
  binder.Announce();
  binder.Submit(ClaimTask("p1"));
  DriverSets("attached");
  DriverSets("attach-failed");
  binder.CheckWaiting();
  EXPECT_EQ(failed_, std::vector<std::string>{"ns/p1"});
  EXPECT_EQ(NodeOf("p1"), "");
}

TEST_F(BindingConditionsTest, TimeoutReleasesTheClaimAndRequeues) {
  Binder binder(cluster_.api, dra_, 0, on_failure_, nullptr,
                BindingWaitOptions{.timeout = std::chrono::seconds(0)},
                on_pending_, on_binding_failed_);
  binder.Announce();
  binder.Submit(ClaimTask("p1"));
  EXPECT_EQ(binder.waiting(), 1);  // the first look comes from the waiter
  binder.CheckWaiting();
  EXPECT_EQ(failed_, std::vector<std::string>{"ns/p1"});
  EXPECT_EQ(binder.in_flight(), 0);
  EXPECT_EQ(NodeOf("p1"), "");
  EXPECT_FALSE(StoredClaim().status.allocation.has_value());
  EXPECT_EQ(why_, std::vector<std::string>{"device binding timeout"});
}

TEST_F(BindingConditionsTest, ClaimsWithoutBindingConditionsBindAtOnce) {
  Binder binder(cluster_.api, dra_, 0, on_failure_, nullptr,
                BindingWaitOptions{}, on_pending_);
  BindTask task = ClaimTask("p1");
  api::ResourceClaim plain =
      std::get<api::ResourceClaim>(*task.claims[0].assumed);
  plain.status.allocation->devices.results[0].binding_conditions.clear();
  plain.status.allocation->devices.results[0]
      .binding_failure_conditions.clear();
  task.claims[0].assumed = std::make_shared<const api::Object>(plain);
  binder.Announce();
  binder.Submit(std::move(task));
  EXPECT_TRUE(pending_.empty());
  EXPECT_EQ(NodeOf("p1"), "node-a");
}

TEST_F(BindingConditionsTest, TheWaiterThreadBindsWithoutHoldingABinder) {
  Binder binder(
      cluster_.api, dra_, 1, on_failure_, nullptr,
      BindingWaitOptions{.timeout = std::chrono::seconds(30),
                         .poll_interval = std::chrono::milliseconds(1)},
      on_pending_);
  binder.Start();
  binder.Announce();
  binder.Submit(ClaimTask("waits"));
  // The only binder thread is free: another pod binds meanwhile.
  binder.Announce();
  binder.Submit(Task("other"));
  DriverSets("attached");
  binder.WaitForBinds();
  EXPECT_EQ(NodeOf("waits"), "node-a");
  EXPECT_EQ(NodeOf("other"), "node-a");
  binder.Stop();
  EXPECT_TRUE(failed_.empty());
}

}  // namespace
}  // namespace dralloc::scheduler
