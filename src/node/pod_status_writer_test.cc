#include "node/pod_status_writer.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <vector>

#include "client/informer.h"
#include "client/memory_api_client.h"
#include "node/node_test_util.h"

namespace dralloc::node {
namespace {

using namespace std::chrono_literals;

api::Pod CreatePod(client::ApiClient& api, const std::string& name) {
  api::Pod pod;
  pod.metadata.namespace_ = "default";
  pod.metadata.name = name;
  api::Container container;
  container.name = "c";
  container.image = "busybox";
  pod.spec.containers.push_back(container);
  auto created = api.Create(pod);
  EXPECT_TRUE(created.ok()) << created.status();
  return created.ok() ? *client::As<api::Pod>(*created) : pod;
}

std::string PhaseOf(client::ApiClient& api, const std::string& name) {
  auto got = api.Get(client::PodsResource(), "default", name);
  return got.ok() ? client::As<api::Pod>(*got)->status.phase : "<gone>";
}

PodStatusWriter::StatusOf Phase(std::string phase) {
  return [phase](const api::Pod& current) {
    api::PodStatus status = current.status;
    status.phase = phase;
    return status;
  };
}

// While the first status of a pod is being written, two more are set: the
// middle one is overtaken and never evaluated nor sent; the last one is.
TEST(PodStatusWriter, OnlyTheLatestPendingStatusIsWritten) {
  client::MemoryApiClient api;
  const api::Pod pod = CreatePod(api, "p1");
  PodStatusWriter writer(api, 2, nullptr);
  std::mutex mu;
  std::condition_variable cv;
  bool first_started = false, release = false;
  std::vector<std::string> evaluated;
  auto recorded = [&](std::string phase, bool block) {
    return [&, phase, block](const api::Pod& current) {
      std::unique_lock lock(mu);
      evaluated.push_back(phase);
      if (block) {
        first_started = true;
        cv.notify_all();
        cv.wait_for(lock, 5s, [&] { return release; });
      }
      api::PodStatus status = current.status;
      status.phase = phase;
      return status;
    };
  };
  writer.Set("default/p1", pod, recorded("Pending", true));
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return first_started; }));
  }
  writer.Set("default/p1", pod, recorded("Unknown", false));
  writer.Set("default/p1", pod, recorded("Running", false));
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  ASSERT_TRUE(
      testing::WaitFor([&] { return PhaseOf(api, "p1") == "Running"; }));
  writer.Stop();
  std::lock_guard lock(mu);
  EXPECT_EQ(evaluated, (std::vector<std::string>{"Pending", "Running"}));
}

TEST(PodStatusWriter, AStaleBaseIsRereadAndAMissingPodReported) {
  client::MemoryApiClient api;
  const api::Pod stale = CreatePod(api, "p1");
  // Someone else changes the pod: `stale` now has an old resourceVersion.
  ASSERT_TRUE(
      PodStatusWriter(api, 1, nullptr).WriteNow(stale, Phase("Pending")).ok());
  std::mutex mu;
  std::vector<std::pair<std::string, StatusCode>> failures;
  PodStatusWriter writer(api, 1, [&](const std::string& key, const Status& s) {
    std::lock_guard lock(mu);
    failures.emplace_back(key, s.code());
  });
  writer.Set("default/p1", stale, Phase("Running"));
  api::Pod missing = stale;
  missing.metadata.name = "gone";
  writer.Set("default/gone", missing, Phase("Running"));
  ASSERT_TRUE(testing::WaitFor([&] {
    std::lock_guard lock(mu);
    return PhaseOf(api, "p1") == "Running" && failures.size() == 1;
  }));
  std::lock_guard lock(mu);
  EXPECT_EQ(failures[0].first, "default/gone");
  EXPECT_EQ(failures[0].second, StatusCode::kNotFound);
}

TEST(PodStatusWriter, ForgetDropsAPendingStatus) {
  client::MemoryApiClient api;
  const api::Pod pod = CreatePod(api, "p1");
  PodStatusWriter writer(api, 1, nullptr);
  writer.Stop();  // nothing is written from here on
  writer.Set("default/p1", pod, Phase("Running"));
  writer.Forget("default/p1");
  EXPECT_EQ(PhaseOf(api, "p1"), "Pending");  // as created
}

}  // namespace
}  // namespace dralloc::node
