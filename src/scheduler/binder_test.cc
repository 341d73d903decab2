#include "scheduler/binder.h"

#include <gtest/gtest.h>

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
  Binder::FailureHandler on_failure_ = [this](const BindTask& task) {
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

}  // namespace
}  // namespace dralloc::scheduler
