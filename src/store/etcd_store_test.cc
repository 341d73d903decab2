// What the etcd backend does beyond the store contract: endpoint parsing,
// reservations, several stores on one etcd, failover between members.
#include "store/etcd_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "store/etcd_cluster_test_util.h"

namespace dralloc::store {
namespace {

using std::chrono::milliseconds;

ValueEncoder Text(std::string text) {
  return [text](int64_t revision) {
    return revision == kRevisionAtCommit
               ? text + "@" + std::string(kRevisionMarker)
               : text + "@" + std::to_string(revision);
  };
}

TEST(EtcdEndpointsTest, ParsesAndRejects) {
  struct Case {
    std::string spec;
    std::vector<std::string> endpoints;  // empty: an error
    std::string error;                   // part of the message
  };
  const std::vector<Case> cases = {
      {"http://127.0.0.1:2379", {"127.0.0.1:2379"}, ""},
      {"http://a:1,http://b:2/", {"a:1", "b:2"}, ""},
      {"", {}, "at least one endpoint"},
      {"https://a:1", {}, "TLS to etcd is not supported"},
      {"a:1", {}, "expected http://HOST:PORT"},
      {"http://a", {}, "expected http://HOST:PORT"},
      {"http://a:x1", {}, "expected http://HOST:PORT"},
  };
  for (const Case& c : cases) {
    auto parsed = ParseEtcdEndpoints(c.spec);
    if (c.endpoints.empty()) {
      ASSERT_FALSE(parsed.ok()) << c.spec;
      EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(parsed.status().message().find(c.error), std::string::npos)
          << parsed.status();
    } else {
      ASSERT_TRUE(parsed.ok()) << c.spec << ": " << parsed.status();
      EXPECT_EQ(*parsed, c.endpoints);
    }
  }
}

TEST(StampRevisionTest, ReplacesTheFirstMarkerOnly) {
  EXPECT_EQ(StampRevision("a@revision@b@revision@", 42), "a42b@revision@");
  EXPECT_EQ(StampRevision("none", 42), "none");
}

TEST(MemoryStoreTest, ReservationsNeedASharedStore) {
  MemoryStore store;
  EXPECT_FALSE(store.Shared());
  EXPECT_EQ(store.PutReserving("/a", {}, Text("a"), {}).status().code(),
            StatusCode::kUnimplemented);
}

class EtcdStoreTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto started = EtcdTestCluster::Start(
        3, testing::TempDir() + "/etcd-store-" + std::to_string(getpid()));
    ASSERT_TRUE(started.ok()) << started.status();
    cluster_ = std::move(started).value().release();
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }

  std::unique_ptr<Store> Open(const std::string& prefix) {
    EtcdOptions options;
    options.endpoints = cluster_->Endpoints();
    options.prefix = prefix;
    options.compaction_interval = std::chrono::seconds(0);
    auto store = OpenEtcdStore(options);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  static EtcdTestCluster* cluster_;
};

EtcdTestCluster* EtcdStoreTest::cluster_ = nullptr;

TEST_F(EtcdStoreTest, TwoStoresSeeEachOthersWritesAndConflicts) {
  auto a = Open("/shared");
  auto b = Open("/shared");
  ASSERT_TRUE(a && b);
  auto watcher = b->Watch("/k/", b->Revision());
  ASSERT_TRUE(watcher.ok());
  auto written = a->Put("/k/1", Precondition::MustNotExist(), Text("one"));
  ASSERT_TRUE(written.ok()) << written.status();
  std::vector<WatchEvent> seen;
  for (int i = 0; i < 50 && seen.empty(); ++i) {
    auto events = (*watcher)->Next(milliseconds(100));
    ASSERT_TRUE(events.ok());
    seen = *events;
  }
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(*seen[0].kv.value, *written->value);
  EXPECT_EQ(seen[0].kv.mod_revision, written->mod_revision);
  // A write through b based on a's first revision wins; a's stale one loses.
  ASSERT_TRUE(
      b->Put("/k/1", Precondition::AtRevision(written->mod_revision), Text("b"))
          .ok());
  EXPECT_EQ(
      a->Put("/k/1", Precondition::AtRevision(written->mod_revision), Text("a"))
          .status()
          .code(),
      StatusCode::kAborted);
  EXPECT_EQ(
      b->Put("/k/1", Precondition::MustNotExist(), Text("c")).status().code(),
      StatusCode::kAlreadyExists);
}

TEST_F(EtcdStoreTest, SyncMakesTheNextReadSeeEveryAcknowledgedWrite) {
  auto a = Open("/sync");
  auto b = Open("/sync");
  ASSERT_TRUE(a && b);
  for (int i = 0; i < 20; ++i) {
    const std::string key = "/s/" + std::to_string(i);
    ASSERT_TRUE(a->Put(key, {}, Text("v")).ok());
    ASSERT_TRUE(b->Sync().ok());
    EXPECT_TRUE(b->Get(key).has_value()) << key;
    EXPECT_EQ(b->Count("/s/"), static_cast<size_t>(i + 1));
  }
  EXPECT_TRUE(a->Sync().ok());  // nothing new: at once
}

TEST_F(EtcdStoreTest, ReservationsAreExclusiveAcrossStores) {
  auto a = Open("/reserve");
  auto b = Open("/reserve");
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(a->Shared());
  const Reservations gpu0{.take = {"/locks/gpu-0"}, .release = {}};
  ASSERT_TRUE(a->PutReserving("/claims/x", {}, Text("x"), gpu0).ok());
  // b's replica may not have the reservation yet: etcd refuses anyway.
  auto refused = b->PutReserving("/claims/y", {}, Text("y"), gpu0);
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("held by /claims/x"),
            std::string::npos)
      << refused.status();
  EXPECT_FALSE(b->Get("/claims/y").has_value());
  // Taking again what one holds is fine; releasing frees it for another.
  ASSERT_TRUE(a->PutReserving("/claims/x", {}, Text("x2"), gpu0).ok());
  ASSERT_TRUE(a->PutReserving("/claims/x", {}, Text("x3"),
                              {.take = {}, .release = {"/locks/gpu-0"}})
                  .ok());
  EXPECT_TRUE(b->PutReserving("/claims/y", {}, Text("y"), gpu0).ok());
  // Deleting the holder releases too.
  ASSERT_TRUE(b->DeleteReleasing("/claims/y", {}, {"/locks/gpu-0"}).ok());
  EXPECT_TRUE(a->PutReserving("/claims/x", {}, Text("x4"), gpu0).ok());
}

TEST_F(EtcdStoreTest, CompactsHistoryOneIntervalBehind) {
  EtcdOptions options;
  options.endpoints = cluster_->Endpoints();
  options.prefix = "/compact";
  options.compaction_interval = std::chrono::seconds(1);
  auto store = OpenEtcdStore(options);
  ASSERT_TRUE(store.ok()) << store.status();
  auto first = (*store)->Put("/c/a", {}, Text("a"));
  ASSERT_TRUE(first.ok());
  EtcdClient client(cluster_->Endpoints(), milliseconds(2000));
  etcdserverpb::RangeRequest old;
  old.set_key("/compact/c/a");
  old.set_revision(first->mod_revision);
  // Rounds record the revision and compact to the one recorded a round
  // earlier, so within a few rounds the first write's revision is gone.
  bool compacted = false;
  for (int i = 0; i < 100 && !compacted; ++i) {
    ASSERT_TRUE((*store)->Put("/c/b", {}, Text("b")).ok());
    compacted = client.Range(old).status().code() == StatusCode::kOutOfRange;
    if (!compacted) std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_TRUE(compacted);
  // The store keeps serving from its replica.
  EXPECT_TRUE((*store)->Get("/c/a").has_value());
}

TEST_F(EtcdStoreTest, WritesContinueWhenAMemberDies) {
  auto store = Open("/failover");
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Put("/f/0", {}, Text("0")).ok());
  // The store talks to the first member until it fails.
  cluster_->Kill(0);
  for (int i = 1; i <= 20; ++i) {
    auto written = store->Put("/f/" + std::to_string(i), {}, Text("v"));
    ASSERT_TRUE(written.ok()) << i << ": " << written.status();
  }
  EXPECT_EQ(store->Count("/f/"), 21u);
  ASSERT_TRUE(cluster_->Restart(0).ok());
  ASSERT_TRUE(cluster_->AwaitReady().ok());
}

}  // namespace
}  // namespace dralloc::store
