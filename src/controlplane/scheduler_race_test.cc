// Two schedulers and a claim controller share one store, each with its own
// informers, as separate processes would. Over 1,500 pods competing for
// 1,000 devices, no device may end up in two claims, every bound pod's claim
// must be allocated and reserved for it, and exactly 1,000 pods get bound.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "apiserver/in_process_api_client.h"
#include "apiserver/resource_storage.h"
#include "controlplane/control_plane.h"
#include "store/memory_store.h"

namespace dralloc::controlplane {
namespace {

constexpr int kNodes = 100;
constexpr int kDevicesPerNode = 10;
constexpr int kPods = 1500;

api::Object NodeObject(int i) {
  api::Node node;
  node.metadata.name = fmt::format("node-{}", i);
  return node;
}

api::Object SliceObject(int i) {
  api::ResourceSlice slice;
  slice.metadata.name = fmt::format("node-{}-gpus", i);
  slice.spec.driver = "gpu.example.com";
  slice.spec.node_name = fmt::format("node-{}", i);
  slice.spec.pool.name = slice.spec.node_name.value_or("");
  slice.spec.pool.generation = 1;
  slice.spec.pool.resource_slice_count = 1;
  for (int d = 0; d < kDevicesPerNode; ++d) {
    api::Device device;
    device.name = fmt::format("gpu-{}", d);
    slice.spec.devices.push_back(device);
  }
  return slice;
}

api::Object PodObject(int i) {
  api::Pod pod;
  pod.metadata.name = fmt::format("pod-{}", i);
  pod.metadata.namespace_ = "race";
  pod.spec.containers.push_back({.name = "c", .image = "busybox"});
  pod.spec.resource_claims.push_back(
      {.name = "gpu", .resource_claim_template_name = "one-gpu"});
  return pod;
}

TEST(SchedulerRaceTest, TwoSchedulersNeverShareADevice) {
  store::MemoryStore store;
  apiserver::ResourceStorage storage(store);
  apiserver::InProcessApiClient setup(storage, "test");

  api::Namespace ns;
  ns.metadata.name = "race";
  ASSERT_TRUE(setup.Create(ns).ok());
  api::DeviceClass device_class;
  device_class.metadata.name = "gpu.example.com";
  ASSERT_TRUE(setup.Create(device_class).ok());
  for (int i = 0; i < kNodes; ++i) {
    ASSERT_TRUE(setup.Create(NodeObject(i)).ok());
    auto slice = setup.Create(SliceObject(i));
    ASSERT_TRUE(slice.ok()) << slice.status();
  }
  api::ResourceClaimTemplate tmpl;
  tmpl.metadata.name = "one-gpu";
  tmpl.metadata.namespace_ = "race";
  api::DeviceRequest request;
  request.name = "gpu";
  request.exactly =
      api::ExactDeviceRequest{.device_class_name = "gpu.example.com"};
  tmpl.spec.spec.devices.requests.push_back(request);
  ASSERT_TRUE(setup.Create(tmpl).ok());

  apiserver::InProcessApiClient controller_client(storage, "controller");
  apiserver::InProcessApiClient client_a(storage, "scheduler-a");
  apiserver::InProcessApiClient client_b(storage, "scheduler-b");
  ControlPlaneOptions controller_only;
  controller_only.run_scheduler = false;
  ControlPlaneOptions scheduler_only;
  scheduler_only.run_controller = false;
  scheduler_only.scheduler.binders = 2;
  scheduler_only.scheduler.initial_backoff = std::chrono::milliseconds(5);
  scheduler_only.scheduler.max_backoff = std::chrono::milliseconds(50);
  ControlPlane controller(controller_client, controller_only);
  ControlPlane scheduler_a(client_a, scheduler_only);
  ControlPlane scheduler_b(client_b, scheduler_only);
  controller.Start();
  scheduler_a.Start();
  scheduler_b.Start();

  for (int i = 0; i < kPods; ++i) {
    auto created = setup.Create(PodObject(i));
    ASSERT_TRUE(created.ok()) << created.status();
  }

  // Wait (bounded) until every device is taken and nothing changes.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int bound = 0, stable_rounds = 0, last = -1;
  while (std::chrono::steady_clock::now() < deadline && stable_rounds < 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto pods = setup.List(client::PodsResource());
    ASSERT_TRUE(pods.ok());
    bound = 0;
    for (const auto& object : pods->items) {
      if (!std::get<api::Pod>(*object).spec.node_name.empty()) ++bound;
    }
    stable_rounds = (bound == last && bound == kNodes * kDevicesPerNode)
                        ? stable_rounds + 1
                        : 0;
    last = bound;
  }
  scheduler_a.Stop();
  scheduler_b.Stop();
  controller.Stop();

  EXPECT_EQ(bound, kNodes * kDevicesPerNode);
  auto claims = setup.List(client::ResourceClaimsResource());
  ASSERT_TRUE(claims.ok());
  auto pods = setup.List(client::PodsResource());
  ASSERT_TRUE(pods.ok());
  std::map<std::string, const api::ResourceClaim*> by_name;
  std::set<std::string> devices;
  for (const auto& object : claims->items) {
    const auto& claim = std::get<api::ResourceClaim>(*object);
    by_name[claim.metadata.name] = &claim;
    if (!claim.status.allocation) continue;
    for (const auto& r : claim.status.allocation->devices.results) {
      EXPECT_TRUE(devices.insert(r.pool + "/" + r.device).second)
          << r.pool << "/" << r.device << " allocated twice";
    }
  }
  EXPECT_EQ(devices.size(), static_cast<size_t>(kNodes * kDevicesPerNode));
  for (const auto& object : pods->items) {
    const auto& pod = std::get<api::Pod>(*object);
    if (pod.spec.node_name.empty()) continue;
    ASSERT_EQ(pod.status.resource_claim_statuses.size(), 1u);
    const auto* claim =
        by_name[*pod.status.resource_claim_statuses[0].resource_claim_name];
    ASSERT_NE(claim, nullptr) << pod.metadata.name;
    ASSERT_TRUE(claim->status.allocation) << pod.metadata.name;
    EXPECT_EQ(claim->status.allocation->devices.results[0].pool,
              pod.spec.node_name);
    ASSERT_EQ(claim->status.reserved_for.size(), 1u);
    EXPECT_EQ(claim->status.reserved_for[0].uid, pod.metadata.uid);
  }
  const uint64_t a = scheduler_a.scheduler()->stats().scheduled;
  const uint64_t b = scheduler_b.scheduler()->stats().scheduled;
  EXPECT_EQ(a + b, static_cast<uint64_t>(kNodes * kDevicesPerNode));
  RecordProperty("scheduled_by_a", std::to_string(a));
  RecordProperty("scheduled_by_b", std::to_string(b));
}

}  // namespace
}  // namespace dralloc::controlplane
