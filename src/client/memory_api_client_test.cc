// The in-memory API keeps the ApiClient contract: optimistic concurrency,
// generateName, status subresource, binding, finalizers, garbage collection
// and ordered watches; informers and the assume cache on top of it.
#include "client/memory_api_client.h"

#include <gtest/gtest.h>

#include "client/assume_cache.h"
#include "client/informer.h"
#include "client/work_queue.h"

namespace dralloc::client {
namespace {

api::Pod MakePod(std::string name) {
  api::Pod pod;
  pod.metadata.name = std::move(name);
  pod.metadata.namespace_ = "ns";
  pod.spec.containers.push_back({.name = "c", .image = "busybox"});
  return pod;
}

api::ResourceClaim MakeClaim(std::string name) {
  api::ResourceClaim claim;
  claim.metadata.name = std::move(name);
  claim.metadata.namespace_ = "ns";
  api::DeviceRequest request;
  request.name = "gpu";
  request.exactly = api::ExactDeviceRequest{.device_class_name = "gpu"};
  claim.spec.devices.requests.push_back(request);
  return claim;
}

TEST(MemoryApiClientTest, CreateDefaultsAndNames) {
  MemoryApiClient api;
  api::ResourceClaim claim = MakeClaim("");
  claim.metadata.generate_name = "pod-gpu-";
  claim.status.reserved_for.push_back({.resource = "pods", .name = "x"});
  auto created = api.Create(claim);
  ASSERT_TRUE(created.ok()) << created.status();
  const auto& stored = std::get<api::ResourceClaim>(**created);
  EXPECT_TRUE(stored.metadata.name.starts_with("pod-gpu-"));
  EXPECT_EQ(stored.metadata.name.size(), 13u);
  EXPECT_FALSE(stored.metadata.uid.empty());
  EXPECT_EQ(stored.metadata.generation, 1);
  EXPECT_TRUE(stored.status.reserved_for.empty());  // status is not created
  EXPECT_EQ(stored.spec.devices.requests[0].exactly->count, 1);  // defaulted
  EXPECT_EQ(api.Create(**created).status().code(), StatusCode::kAlreadyExists);
}

TEST(MemoryApiClientTest, StaleWritesConflictAndStatusIsSeparate) {
  MemoryApiClient api;
  auto created = api.Create(MakePod("web"));
  ASSERT_TRUE(created.ok());
  api::Pod pod = std::get<api::Pod>(**created);
  EXPECT_EQ(pod.status.phase, "Pending");

  api::Pod labelled = pod;
  labelled.metadata.labels["app"] = "web";
  labelled.status.phase = "Running";  // ignored by Update
  auto updated = api.Update(labelled);
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(std::get<api::Pod>(**updated).status.phase, "Pending");
  EXPECT_EQ(api.Update(labelled).status().code(), StatusCode::kAborted);

  api::Pod status = std::get<api::Pod>(**updated);
  status.status.phase = "Running";
  status.metadata.labels.clear();  // ignored by UpdateStatus
  auto with_status = api.UpdateStatus(status);
  ASSERT_TRUE(with_status.ok());
  EXPECT_EQ(std::get<api::Pod>(**with_status).status.phase, "Running");
  EXPECT_EQ(std::get<api::Pod>(**with_status).metadata.labels.at("app"), "web");

  // Only the status differs: the written object becomes the new version.
  api::Pod succeeded = std::get<api::Pod>(**with_status);
  succeeded.status.phase = "Succeeded";
  auto finished = api.UpdateStatus(succeeded);
  ASSERT_TRUE(finished.ok());
  succeeded.metadata.resource_version =
      api::MetaOf(**finished).resource_version;
  EXPECT_EQ(std::get<api::Pod>(**finished), succeeded);
  // The same status again changes nothing, not even the resourceVersion.
  const int64_t revision = api.revision();
  auto again = api.UpdateStatus(succeeded);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *finished);
  EXPECT_EQ(api.revision(), revision);
}

TEST(MemoryApiClientTest, UpdateWithStatusIsOneWrite) {
  MemoryApiClient api;
  auto created = api.Create(MakeClaim("gpu"));
  ASSERT_TRUE(created.ok()) << created.status();
  api::ResourceClaim claim = std::get<api::ResourceClaim>(**created);
  claim.metadata.finalizers.push_back("example.com/protect");
  claim.status.reserved_for.push_back(
      {.resource = "pods", .name = "p", .uid = "u-1"});
  auto updated = api.UpdateWithStatus(claim);
  ASSERT_TRUE(updated.ok()) << updated.status();
  const auto& stored = std::get<api::ResourceClaim>(**updated);
  EXPECT_EQ(stored.metadata.finalizers, claim.metadata.finalizers);
  EXPECT_EQ(stored.status.reserved_for, claim.status.reserved_for);
  EXPECT_EQ(std::stoll(stored.metadata.resource_version),
            std::stoll(claim.metadata.resource_version) + 1);
  EXPECT_EQ(api.UpdateWithStatus(claim).status().code(), StatusCode::kAborted);
}

TEST(MemoryApiClientTest, BindOnce) {
  MemoryApiClient api;
  auto created = api.Create(MakePod("web"));
  ASSERT_TRUE(created.ok());
  const std::string uid = api::MetaOf(**created).uid;
  EXPECT_EQ(api.Bind("ns", "web", "other-uid", "n1").code(),
            StatusCode::kAborted);
  EXPECT_TRUE(api.Bind("ns", "web", uid, "n1").ok());
  EXPECT_EQ(api.Bind("ns", "web", uid, "n2").code(), StatusCode::kAborted);
  auto bound = api.Get(PodsResource(), "ns", "web");
  ASSERT_TRUE(bound.ok());
  EXPECT_EQ(std::get<api::Pod>(**bound).spec.node_name, "n1");
  EXPECT_EQ(std::get<api::Pod>(**bound).status.conditions.at(0).status, "True");
}

TEST(MemoryApiClientTest, FinalizersAndGarbageCollection) {
  MemoryApiClient api;
  auto pod = api.Create(MakePod("owner"));
  ASSERT_TRUE(pod.ok());
  api::ResourceClaim claim = MakeClaim("owned");
  claim.metadata.owner_references.push_back({.api_version = "v1",
                                             .kind = "Pod",
                                             .name = "owner",
                                             .uid = api::MetaOf(**pod).uid,
                                             .controller = true});
  claim.metadata.finalizers.push_back("example.com/keep");
  ASSERT_TRUE(api.Create(claim).ok());

  ASSERT_TRUE(api.Delete(PodsResource(), "ns", "owner", "").ok());
  EXPECT_EQ(api.Get(PodsResource(), "ns", "owner").status().code(),
            StatusCode::kNotFound);
  // The dependent is marked for deletion and goes when its finalizer does.
  auto marked = api.Get(ResourceClaimsResource(), "ns", "owned");
  ASSERT_TRUE(marked.ok());
  EXPECT_TRUE(api::MetaOf(**marked).deletion_timestamp.has_value());
  api::Object unfinalized = **marked;
  api::MetaOf(unfinalized).finalizers.clear();
  ASSERT_TRUE(api.Update(unfinalized).ok());
  EXPECT_EQ(api.Get(ResourceClaimsResource(), "ns", "owned").status().code(),
            StatusCode::kNotFound);
}

// Lookups by namespace and name build the key on the stack up to 256
// characters and fall back to a heap string beyond; both find the object.
TEST(MemoryApiClientTest, InformerFindsObjectsByNamespaceAndName) {
  MemoryApiClient api;
  const std::string long_name(300, 'x');
  ASSERT_TRUE(api.Create(MakeClaim("short")).ok());
  ASSERT_TRUE(api.Create(MakeClaim(long_name)).ok());
  Informer informer(api, ResourceClaimsResource());
  ASSERT_TRUE(informer.Pump(std::chrono::milliseconds(0)).ok());
  ASSERT_NE(informer.Get("ns", "short"), nullptr);
  EXPECT_EQ(api::MetaOf(*informer.Get("ns", "short")).name, "short");
  ASSERT_NE(informer.Get("ns", long_name), nullptr);
  EXPECT_EQ(api::MetaOf(*informer.Get("ns", long_name)).name, long_name);
  EXPECT_EQ(informer.Get("ns", "missing"), nullptr);
  EXPECT_EQ(informer.Get("other", "short"), nullptr);
}

// A client that cannot filter returns everything; the informer's keep
// filter still limits its cache, and an object that stops matching is
// seen as deleted.
TEST(MemoryApiClientTest, InformerFilterKeepsOnlyMatchingObjects) {
  MemoryApiClient client;
  Informer::Filter filter{"spec.nodeName=node-1", [](const api::Object& o) {
                            const auto* pod = std::get_if<api::Pod>(&o);
                            return pod != nullptr &&
                                   pod->spec.node_name == "node-1";
                          }};
  Informer informer(client, PodsResource(), filter);
  std::vector<std::pair<std::string, std::string>> seen;  // old/now names
  informer.AddHandler([&](const ObjectPtr& old, const ObjectPtr& now) {
    seen.emplace_back(old ? api::MetaOf(*old).name : "-",
                      now ? api::MetaOf(*now).name : "-");
  });
  auto make = [&](const std::string& name, const std::string& node) {
    api::Pod pod;
    pod.metadata.namespace_ = "default";
    pod.metadata.name = name;
    pod.spec.node_name = node;
    api::Container container;
    container.name = "c";
    container.image = "busybox";
    pod.spec.containers.push_back(container);
    auto created = client.Create(pod);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? std::get<api::Pod>(**created) : pod;
  };
  make("a", "node-1");
  make("b", "node-2");
  ASSERT_TRUE(informer.Pump(std::chrono::milliseconds(0)).ok());
  EXPECT_EQ(informer.size(), 1u);
  EXPECT_NE(informer.Get("default", "a"), nullptr);
  EXPECT_EQ(informer.Get("default", "b"), nullptr);
  api::Pod moved = std::get<api::Pod>(*informer.Get("default", "a"));
  moved.spec.node_name = "node-3";
  ASSERT_TRUE(client.Update(moved).ok());
  for (int i = 0; i < 20 && informer.size() > 0; ++i) {
    ASSERT_TRUE(informer.Pump(std::chrono::milliseconds(50)).ok());
  }
  EXPECT_EQ(informer.size(), 0u);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1], (std::pair<std::string, std::string>{"a", "-"}));
}

TEST(MemoryApiClientTest, InformerSeesEveryChangeInOrder) {
  MemoryApiClient api;
  ASSERT_TRUE(api.Create(MakeClaim("before")).ok());
  Informer informer(api, ResourceClaimsResource());
  std::vector<std::string> seen;
  informer.AddHandler([&](const ObjectPtr& old, const ObjectPtr& now) {
    const char* what = !old ? "add" : !now ? "delete" : "update";
    seen.push_back(std::string(what) + " " +
                   api::MetaOf(*(now ? now : old)).name);
  });
  ASSERT_TRUE(informer.Pump(std::chrono::milliseconds(0)).ok());
  auto after = api.Create(MakeClaim("after"));
  ASSERT_TRUE(after.ok());
  api::Object labelled = **after;
  api::MetaOf(labelled).labels["x"] = "y";
  ASSERT_TRUE(api.Update(labelled).ok());
  ASSERT_TRUE(api.Delete(ResourceClaimsResource(), "ns", "before", "").ok());
  while (*informer.Pump(std::chrono::milliseconds(0)) > 0) {
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"add before", "add after",
                                            "update after", "delete before"}));
  EXPECT_EQ(informer.size(), 1u);
  EXPECT_NE(informer.Get("ns", "after"), nullptr);
}

TEST(MemoryApiClientTest, EventLogKeepsWhatOpenWatchesHaveNotRead) {
  MemoryApiClient api;
  auto reader = api.Watch(ResourceClaimsResource(), 0);
  ASSERT_TRUE(reader.ok());
  constexpr int kWrites = 5000;
  for (int i = 0; i < kWrites; ++i) {
    ASSERT_TRUE(api.Create(MakeClaim("c" + std::to_string(i))).ok());
  }
  // The open watch pins every event it has not read.
  auto events = (*reader)->Next(std::chrono::milliseconds(0));
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), static_cast<size_t>(kWrites));
  for (int i = 0; i < kWrites; ++i) {
    ASSERT_EQ(api::MetaOf(*(*events)[i].object).name, "c" + std::to_string(i));
  }
  // Once read, old events go: a watch from the start is told to re-list,
  // one from a recent revision still sees everything after it.
  for (int i = 0; i < kWrites; ++i) {
    ASSERT_TRUE(api.Create(MakeClaim("d" + std::to_string(i))).ok());
  }
  EXPECT_EQ(api.Watch(ResourceClaimsResource(), 1).status().code(),
            StatusCode::kOutOfRange);
  const int64_t recent = api.revision() - 10;
  auto late = api.Watch(ResourceClaimsResource(), recent);
  ASSERT_TRUE(late.ok()) << late.status();
  auto tail = (*late)->Next(std::chrono::milliseconds(0));
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->size(), 10u);
  EXPECT_EQ(tail->front().resource_version, recent + 1);
}

// Claim "c" in the API and the informer, and an allocated version of it.
class AssumeCacheTest : public testing::Test {
 protected:
  void SetUp() override {
    auto created = api_.Create(MakeClaim("c"));
    ASSERT_TRUE(created.ok());
    ASSERT_TRUE(informer_.Pump(std::chrono::milliseconds(0)).ok());
    allocated_ = std::get<api::ResourceClaim>(**created);
    allocated_.status.allocation.emplace();
  }

  MemoryApiClient api_;
  Informer informer_{api_, ResourceClaimsResource()};
  AssumeCache cache_{informer_};
  api::ResourceClaim allocated_;
};

TEST_F(AssumeCacheTest, AssumedUntilTheInformerCatchesUp) {
  auto assumed = std::make_shared<const api::Object>(allocated_);
  cache_.Assume("ns/c", assumed);
  EXPECT_EQ(cache_.Get("ns/c"), assumed);
  // In flight: informer events do not drop it.
  EXPECT_FALSE(cache_.Observe("ns/c", informer_.Get("ns/c")));

  auto written = api_.UpdateStatus(allocated_);
  ASSERT_TRUE(written.ok());
  cache_.Confirm("ns/c", AssumeCache::RevisionOf(**written));
  EXPECT_TRUE(cache_.IsAssumed("ns/c"));  // the informer is behind
  ASSERT_TRUE(informer_.Pump(std::chrono::milliseconds(0)).ok());
  EXPECT_TRUE(cache_.Observe("ns/c", informer_.Get("ns/c")));
  EXPECT_FALSE(cache_.IsAssumed("ns/c"));
  EXPECT_NE(cache_.Get("ns/c"), assumed);

  cache_.Assume("ns/c", assumed);
  cache_.Restore("ns/c");  // the write failed
  EXPECT_EQ(cache_.Get("ns/c"), informer_.Get("ns/c"));
}

TEST_F(AssumeCacheTest, ConfirmedAfterTheObjectWasDeletedIsDropped) {
  cache_.Assume("ns/c", std::make_shared<const api::Object>(allocated_));
  auto written = api_.UpdateStatus(allocated_);
  ASSERT_TRUE(written.ok());
  // Deleted, and the deletion observed, before the writer confirms.
  ASSERT_TRUE(api_.Delete(ResourceClaimsResource(), "ns", "c", "").ok());
  ASSERT_TRUE(informer_.Pump(std::chrono::milliseconds(0)).ok());
  EXPECT_FALSE(cache_.Observe("ns/c", nullptr));  // still in flight
  EXPECT_TRUE(cache_.IsAssumed("ns/c"));
  cache_.Confirm("ns/c", AssumeCache::RevisionOf(**written));
  EXPECT_FALSE(cache_.IsAssumed("ns/c"));
  EXPECT_EQ(cache_.Get("ns/c"), nullptr);
}

TEST_F(AssumeCacheTest, ACreatedObjectStaysAssumedUntilTheInformerHasIt) {
  api::Object fresh = MakeClaim("new");
  cache_.Assume("ns/new", std::make_shared<const api::Object>(fresh));
  auto created = api_.Create(fresh);
  ASSERT_TRUE(created.ok());
  // Confirmed before the informer saw the creation: not taken for a
  // deletion.
  cache_.Confirm("ns/new", AssumeCache::RevisionOf(**created));
  EXPECT_TRUE(cache_.IsAssumed("ns/new"));
  ASSERT_TRUE(informer_.Pump(std::chrono::milliseconds(0)).ok());
  EXPECT_TRUE(cache_.Observe("ns/new", informer_.Get("ns/new")));
  EXPECT_FALSE(cache_.IsAssumed("ns/new"));
}

TEST(WorkQueueTest, DeduplicatesAndRequeuesWhatChangedWhileProcessing) {
  WorkQueue queue;
  queue.Add("a");
  queue.Add("b");
  queue.Add("a");
  auto first = queue.Pop(std::chrono::milliseconds(0));
  ASSERT_EQ(first, "a");
  queue.Add("a");  // changed while being processed
  EXPECT_EQ(queue.Pop(std::chrono::milliseconds(0)), "b");
  EXPECT_EQ(queue.Pop(std::chrono::milliseconds(0)), std::nullopt);
  queue.Done("b");
  EXPECT_FALSE(queue.Idle());
  queue.Done("a");  // now queued again
  EXPECT_EQ(queue.Pop(std::chrono::milliseconds(0)), "a");
  queue.Done("a");
  EXPECT_TRUE(queue.Idle());
}

}  // namespace
}  // namespace dralloc::client
