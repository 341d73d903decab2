// HttpApiClient against the real dralloc API server, in process on a free
// port over an in-memory store.
#include "client/http_api_client.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/codec.h"
#include "apiserver/api_server.h"
#include "apiserver/in_process_api_client.h"
#include "store/memory_store.h"

namespace dralloc::client {
namespace {

using std::chrono::milliseconds;

// An API server on 127.0.0.1 and a client of it.
struct TestServer {
  explicit TestServer(store::StoreOptions store_options = {})
      : store(store_options) {
    apiserver::ApiServerOptions options;
    options.port = 0;
    options.max_watch_seconds = 60;
    server = std::make_unique<apiserver::ApiServer>(options, store);
  }
  ~TestServer() {
    client.reset();
    server->Stop();
  }

  Status Start() {
    RETURN_IF_ERROR(server->Start());
    Kubeconfig config;
    config.server = "http://127.0.0.1:" + std::to_string(server->port());
    ASSIGN_OR_RETURN(client, NewHttpApiClient(config));
    return OkStatus();
  }

  store::MemoryStore store;
  std::unique_ptr<apiserver::ApiServer> server;
  std::unique_ptr<ApiClient> client;
};

api::Object Decode(std::string_view json) {
  std::vector<api::DecodeResult> results = api::DecodeDocument(json);
  EXPECT_EQ(results.size(), 1u);
  EXPECT_TRUE(results.at(0).errors.empty())
      << results.at(0).errors.front().ToString();
  return *results.at(0).object;
}

api::Object PodObject(std::string_view name) {
  return Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" +
      std::string(name) +
      R"(","namespace":"default"},"spec":{"containers":[{"name":"c","image":"busybox"}]}})");
}

api::Object NodeObject(std::string_view name) {
  return Decode(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" +
                std::string(name) + R"("}})");
}

api::Object ClaimObject(std::string_view name) {
  return Decode(
      R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":")" +
      std::string(name) +
      R"(","namespace":"default"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}})");
}

const api::ObjectMeta& Meta(const api::Object& object) {
  return api::MetaOf(object);
}

int64_t Revision(const api::Object& object) {
  return std::stoll(Meta(object).resource_version);
}

// Collects non-bookmark events until `count` arrived or a call fails.
std::vector<WatchEvent> CollectEvents(WatchStream& watch, size_t count) {
  std::vector<WatchEvent> events;
  for (int attempt = 0; attempt < 100 && events.size() < count; ++attempt) {
    auto batch = watch.Next(milliseconds(200));
    EXPECT_TRUE(batch.ok()) << batch.status();
    if (!batch.ok()) break;
    for (WatchEvent& event : *batch) {
      if (event.type != WatchEvent::Type::kBookmark) {
        events.push_back(std::move(event));
      }
    }
  }
  return events;
}

class HttpApiClientTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.Start().ok()); }
  ApiClient& client() { return *server_.client; }

  TestServer server_;
};

TEST_F(HttpApiClientTest, CreatesAndGetsObjectsOfEachGroup) {
  auto ns = client().Create(Decode(
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}})"));
  ASSERT_TRUE(ns.ok()) << ns.status();
  EXPECT_EQ(Meta(**ns).name, "team-a");
  EXPECT_FALSE(Meta(**ns).uid.empty());

  auto node = client().Create(NodeObject("node-1"));
  ASSERT_TRUE(node.ok()) << node.status();
  auto pod = client().Create(PodObject("web"));
  ASSERT_TRUE(pod.ok()) << pod.status();
  auto claim = client().Create(ClaimObject("gpu-claim"));
  ASSERT_TRUE(claim.ok()) << claim.status();
  EXPECT_EQ(Meta(**claim).namespace_, "default");

  auto got = client().Get(ResourceClaimsResource(), "default", "gpu-claim");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(Meta(**got).uid, Meta(**claim).uid);
  auto got_node = client().Get(NodesResource(), "", "node-1");
  ASSERT_TRUE(got_node.ok()) << got_node.status();
  EXPECT_TRUE(std::holds_alternative<api::Node>(**got_node));
}

TEST_F(HttpApiClientTest, CreateOfAnExistingNameIsAlreadyExists) {
  ASSERT_TRUE(client().Create(PodObject("web")).ok());
  EXPECT_EQ(client().Create(PodObject("web")).status().code(),
            StatusCode::kAlreadyExists);
}

TEST_F(HttpApiClientTest, HonoursGenerateName) {
  api::Object pod = PodObject("");
  api::MetaOf(pod).generate_name = "web-";
  auto created = client().Create(pod);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(Meta(**created).name.starts_with("web-"));
  EXPECT_GT(Meta(**created).name.size(), 4u);
}

TEST_F(HttpApiClientTest, GetOfAMissingObjectIsNotFound) {
  auto got = client().Get(PodsResource(), "default", "missing");
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
  EXPECT_NE(got.status().message().find("missing"), std::string::npos);
}

TEST_F(HttpApiClientTest, ListReturnsItemsAndRevision) {
  auto first = client().Create(ClaimObject("a"));
  auto second = client().Create(ClaimObject("b"));
  ASSERT_TRUE(first.ok() && second.ok());
  auto list = client().List(ResourceClaimsResource());
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_GE(list->resource_version, Revision(**second));
  EXPECT_EQ(Meta(*list->items[0]).name, "a");
  EXPECT_TRUE(std::holds_alternative<api::ResourceClaim>(*list->items[1]));
}

TEST_F(HttpApiClientTest, UpdateWithStaleRevisionIsAborted) {
  auto created = client().Create(PodObject("web"));
  ASSERT_TRUE(created.ok()) << created.status();
  api::Object changed = **created;
  api::MetaOf(changed).labels["app"] = "demo";
  auto updated = client().Update(changed);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(Meta(**updated).labels.at("app"), "demo");
  EXPECT_GT(Revision(**updated), Revision(**created));

  auto stale = client().Update(**created);
  EXPECT_EQ(stale.status().code(), StatusCode::kAborted) << stale.status();
}

TEST_F(HttpApiClientTest, UpdateStatusRoundTripsTheAllocation) {
  auto created = client().Create(ClaimObject("gpu-claim"));
  ASSERT_TRUE(created.ok()) << created.status();
  api::Object with_status = **created;
  auto& claim = std::get<api::ResourceClaim>(with_status);
  claim.status.allocation.emplace();
  api::DeviceRequestAllocationResult result;
  result.request = "gpu";
  result.driver = "gpu.example.com";
  result.pool = "node-1";
  result.device = "gpu-0";
  claim.status.allocation->devices.results.push_back(result);

  auto updated = client().UpdateStatus(with_status);
  ASSERT_TRUE(updated.ok()) << updated.status();
  auto got = client().Get(ResourceClaimsResource(), "default", "gpu-claim");
  ASSERT_TRUE(got.ok()) << got.status();
  const auto& stored = std::get<api::ResourceClaim>(**got);
  ASSERT_TRUE(stored.status.allocation.has_value());
  EXPECT_EQ(stored.status.allocation->devices.results,
            claim.status.allocation->devices.results);
}

// UpdateWithStatus writes metadata and status; `writes` store writes.
void ExpectUpdateWithStatus(ApiClient& client, std::string_view name,
                            int writes) {
  auto created = client.Create(ClaimObject(name));
  ASSERT_TRUE(created.ok()) << created.status();
  api::Object next = **created;
  auto& claim = std::get<api::ResourceClaim>(next);
  claim.metadata.finalizers.push_back("example.com/protect");
  claim.status.allocation.emplace();
  claim.status.allocation->devices.results.push_back(
      {.request = "gpu",
       .driver = "gpu.example.com",
       .pool = "node-1",
       .device = std::string(name)});
  claim.status.reserved_for.push_back(
      {.resource = "pods", .name = "p", .uid = "u-1"});
  auto updated = client.UpdateWithStatus(next);
  ASSERT_TRUE(updated.ok()) << updated.status();
  auto got = client.Get(ResourceClaimsResource(), "default", name);
  ASSERT_TRUE(got.ok()) << got.status();
  const auto& stored = std::get<api::ResourceClaim>(**got);
  EXPECT_EQ(stored.metadata.finalizers, claim.metadata.finalizers);
  EXPECT_EQ(stored.status.allocation, claim.status.allocation);
  EXPECT_EQ(stored.status.reserved_for, claim.status.reserved_for);
  EXPECT_EQ(Revision(**got), Revision(**updated));
  EXPECT_EQ(Revision(**got), Revision(**created) + writes);
  EXPECT_EQ(client.UpdateWithStatus(next).status().code(),
            StatusCode::kAborted);
}

// Over HTTP an update, then a status update; in process one write.
TEST_F(HttpApiClientTest, UpdateWithStatusWritesMetadataAndStatus) {
  ExpectUpdateWithStatus(client(), "over-http", 2);
  apiserver::InProcessApiClient in_process(server_.server->storage(), "test");
  ExpectUpdateWithStatus(in_process, "in-process", 1);
}

TEST_F(HttpApiClientTest, DeleteChecksTheUid) {
  auto created = client().Create(ClaimObject("gpu-claim"));
  ASSERT_TRUE(created.ok()) << created.status();
  Status wrong = client().Delete(ResourceClaimsResource(), "default",
                                 "gpu-claim", "not-the-uid");
  EXPECT_EQ(wrong.code(), StatusCode::kAborted) << wrong;
  Status deleted = client().Delete(ResourceClaimsResource(), "default",
                                   "gpu-claim", Meta(**created).uid);
  ASSERT_TRUE(deleted.ok()) << deleted;
  EXPECT_EQ(client()
                .Get(ResourceClaimsResource(), "default", "gpu-claim")
                .status()
                .code(),
            StatusCode::kNotFound);
  EXPECT_EQ(client()
                .Delete(ResourceClaimsResource(), "default", "gpu-claim", "")
                .code(),
            StatusCode::kNotFound);
}

TEST_F(HttpApiClientTest, BindSetsTheNodeOnce) {
  auto created = client().Create(PodObject("web"));
  ASSERT_TRUE(created.ok()) << created.status();
  Status bound = client().Bind("default", "web", Meta(**created).uid, "node-1");
  ASSERT_TRUE(bound.ok()) << bound;
  auto got = client().Get(PodsResource(), "default", "web");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(std::get<api::Pod>(**got).spec.node_name, "node-1");

  Status again = client().Bind("default", "web", "", "node-2");
  EXPECT_EQ(again.code(), StatusCode::kAborted) << again;
}

TEST_F(HttpApiClientTest, CreatesEvents) {
  api::Event event;
  event.metadata.name = "web.1";
  event.metadata.namespace_ = "default";
  event.involved_object.kind = "Pod";
  event.involved_object.name = "web";
  event.involved_object.namespace_ = "default";
  event.reason = "Scheduled";
  event.message = "assigned to node-1";
  event.type = "Normal";
  Status created = client().CreateEvent(event);
  ASSERT_TRUE(created.ok()) << created;
  auto list = client().List(EventsResource());
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(std::get<api::Event>(*list->items[0]).reason, "Scheduled");
}

TEST_F(HttpApiClientTest, InvalidClaimIsInvalidArgumentNamingTheField) {
  api::Object claim = ClaimObject("bad");
  std::get<api::ResourceClaim>(claim).spec.devices.requests[0].name =
      "Not_A_DNS_Label";
  auto created = client().Create(claim);
  EXPECT_EQ(created.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(created.status().message().find("spec.devices.requests[0].name"),
            std::string::npos)
      << created.status();
}

TEST_F(HttpApiClientTest, WatchFromListRevisionSeesChangesInOrder) {
  auto list = client().List(ResourceClaimsResource());
  ASSERT_TRUE(list.ok()) << list.status();
  auto watch = client().Watch(ResourceClaimsResource(), list->resource_version);
  ASSERT_TRUE(watch.ok()) << watch.status();

  auto created = client().Create(ClaimObject("gpu-claim"));
  ASSERT_TRUE(created.ok()) << created.status();
  api::Object changed = **created;
  api::MetaOf(changed).labels["app"] = "demo";
  auto updated = client().Update(changed);
  ASSERT_TRUE(updated.ok()) << updated.status();
  ASSERT_TRUE(client()
                  .Delete(ResourceClaimsResource(), "default", "gpu-claim", "")
                  .ok());

  std::vector<WatchEvent> events = CollectEvents(**watch, 3);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, WatchEvent::Type::kAdded);
  EXPECT_EQ(events[0].resource_version, Revision(**created));
  EXPECT_EQ(events[1].type, WatchEvent::Type::kModified);
  EXPECT_EQ(events[1].resource_version, Revision(**updated));
  EXPECT_EQ(Meta(*events[1].object).labels.at("app"), "demo");
  EXPECT_EQ(events[2].type, WatchEvent::Type::kDeleted);
  EXPECT_GT(events[2].resource_version, Revision(**updated));
  EXPECT_EQ(Meta(*events[2].object).name, "gpu-claim");
}

TEST_F(HttpApiClientTest, WatchOnlySeesItsResource) {
  auto watch = client().Watch(NodesResource(), 0);
  ASSERT_TRUE(watch.ok()) << watch.status();
  ASSERT_TRUE(client().Create(PodObject("web")).ok());
  ASSERT_TRUE(client().Create(NodeObject("node-1")).ok());
  std::vector<WatchEvent> events = CollectEvents(**watch, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<api::Node>(*events[0].object));
}

// A node agent's view: the server filters by spec.nodeName; a pod that
// becomes bound to the node is ADDED to the selected watch.
TEST_F(HttpApiClientTest, FieldSelectedListAndWatchSeeOnlyTheNodesPods) {
  auto mine = client().Create(PodObject("mine"));
  ASSERT_TRUE(mine.ok()) << mine.status();
  ASSERT_TRUE(client().Create(PodObject("other")).ok());
  ASSERT_TRUE(
      client().Bind("default", "mine", Meta(**mine).uid, "node-1").ok());
  auto list = client().ListMatching(PodsResource(), "spec.nodeName=node-1");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(Meta(*list->items[0]).name, "mine");

  auto watch = client().WatchMatching(PodsResource(), list->resource_version,
                                      "spec.nodeName=node-1");
  ASSERT_TRUE(watch.ok()) << watch.status();
  auto late = client().Create(PodObject("late"));
  ASSERT_TRUE(late.ok()) << late.status();
  ASSERT_TRUE(client().Create(PodObject("elsewhere")).ok());
  ASSERT_TRUE(
      client().Bind("default", "late", Meta(**late).uid, "node-1").ok());
  std::vector<WatchEvent> events = CollectEvents(**watch, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, WatchEvent::Type::kAdded);
  EXPECT_EQ(Meta(*events[0].object).name, "late");

  auto bad = client().ListMatching(PodsResource(), "spec.nope=x");
  EXPECT_FALSE(bad.ok());
}

TEST_F(HttpApiClientTest, StopWakesABlockedNext) {
  auto watch = client().Watch(PodsResource(), 0);
  ASSERT_TRUE(watch.ok()) << watch.status();
  std::optional<Status> result;
  std::thread reader([&] {
    while (true) {
      auto events = (*watch)->Next(milliseconds(600000));
      if (!events.ok()) {
        result = events.status();
        return;
      }
    }
  });
  std::this_thread::sleep_for(milliseconds(100));
  (*watch)->Stop();
  reader.join();
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->code(), StatusCode::kCancelled);
}

TEST_F(HttpApiClientTest, DestroyingAnIdleWatchDoesNotHang) {
  auto watch = client().Watch(PodsResource(), 0);
  ASSERT_TRUE(watch.ok()) << watch.status();
  auto events = (*watch)->Next(milliseconds(10));
  EXPECT_TRUE(events.ok()) << events.status();
  watch->reset();
}

TEST_F(HttpApiClientTest, ConcurrentCreatesShareThePool) {
  constexpr int kThreads = 8;
  constexpr int kPodsPerThread = 10;
  std::vector<std::thread> threads;
  std::vector<Status> failures[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPodsPerThread; ++i) {
        auto created = client().Create(
            PodObject("pod-" + std::to_string(t) + "-" + std::to_string(i)));
        if (!created.ok()) failures[t].push_back(created.status());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const auto& failed : failures) {
    EXPECT_TRUE(failed.empty()) << failed.front();
  }
  auto list = client().List(PodsResource());
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->items.size(), size_t{kThreads * kPodsPerThread});
}

TEST(HttpApiClientWindowTest, WatchFromACompactedRevisionIsOutOfRange) {
  TestServer server(store::StoreOptions{.window_events = 2});
  ASSERT_TRUE(server.Start().ok());
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(
        server.client->Create(NodeObject("node-" + std::to_string(i))).ok());
  }
  auto watch = server.client->Watch(NodesResource(), 1);
  Status status;
  if (!watch.ok()) {
    status = watch.status();
  } else {
    for (int attempt = 0; attempt < 100 && status.ok(); ++attempt) {
      auto events = (*watch)->Next(milliseconds(200));
      if (!events.ok()) status = events.status();
    }
  }
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange) << status;
}

TEST(HttpApiClientConfigTest, StoppedServerIsUnavailable) {
  std::unique_ptr<ApiClient> client;
  {
    TestServer server;
    ASSERT_TRUE(server.Start().ok());
    client = std::move(server.client);
    ASSERT_TRUE(client->Create(PodObject("web")).ok());
  }
  auto got = client->Get(PodsResource(), "default", "web");
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable) << got.status();
}

TEST(HttpApiClientConfigTest, RetriesOnceWhenAPooledConnectionWasClosed) {
  TestServer first;
  ASSERT_TRUE(first.Start().ok());
  ASSERT_TRUE(first.client->Create(PodObject("web")).ok());  // pools one
  const uint16_t port = first.server->port();
  first.server->Stop();  // closes the pooled connection

  apiserver::ApiServerOptions options;
  options.port = port;
  apiserver::ApiServer second(options, first.store);
  Status started = second.Start();
  if (!started.ok()) GTEST_SKIP() << "port not reusable: " << started;
  auto got = first.client->Get(PodsResource(), "default", "web");
  EXPECT_TRUE(got.ok()) << got.status();
  first.client.reset();
  second.Stop();
}

TEST(HttpApiClientConfigTest, RejectsMalformedServerUrls) {
  for (const char* server :
       {"127.0.0.1:6443", "ftp://host", "http://", "http://[::1"}) {
    Kubeconfig config;
    config.server = server;
    EXPECT_EQ(NewHttpApiClient(config).status().code(),
              StatusCode::kInvalidArgument)
        << server;
  }
}

TEST(HttpApiClientConfigTest, HttpsNeedsTlsSupport) {
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  Kubeconfig config;
  config.server = "https://127.0.0.1:" + std::to_string(server.server->port());
  config.insecure_skip_tls_verify = true;
  auto client = NewHttpApiClient(config);
#ifdef DRALLOC_CLIENT_WITH_TLS
  ASSERT_TRUE(client.ok()) << client.status();
  // The server speaks plain HTTP, so the handshake fails.
  EXPECT_EQ((*client)->Get(PodsResource(), "default", "x").status().code(),
            StatusCode::kUnavailable);
#else
  EXPECT_EQ(client.status().code(), StatusCode::kUnimplemented);
#endif
}

}  // namespace
}  // namespace dralloc::client
