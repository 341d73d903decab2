// The contract every Store backend must pass: run once per backend.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

#include "store/etcd_cluster_test_util.h"
#include "store/etcd_store.h"
#include "store/memory_store.h"
#include "store/sqlite_store.h"
#include "store/store_factory.h"

namespace dralloc::store {
namespace {

using std::chrono::milliseconds;

// "text@REVISION"; the revision is spliced in by the store when it is
// assigned at commit (etcd).
ValueEncoder Text(std::string text) {
  return [text](int64_t revision) {
    return text + "@" +
           (revision == kRevisionAtCommit ? std::string(kRevisionMarker)
                                          : std::to_string(revision));
  };
}

// One etcd member for every etcd test of this program; each test works
// under its own key prefix.
EtcdTestCluster& SharedEtcd() {
  static std::unique_ptr<EtcdTestCluster> cluster = [] {
    auto started = EtcdTestCluster::Start(
        1, testing::TempDir() + "/etcd-" + std::to_string(getpid()));
    if (!started.ok()) {
      ADD_FAILURE() << started.status();
      std::abort();
    }
    return std::move(started).value();
  }();
  return *cluster;
}

struct Backend {
  std::string name;
  // Opens the backend's store; `reopen` reopens the same data.
  std::function<std::unique_ptr<Store>(const std::string& dir,
                                       StoreOptions options)>
      open;
  bool durable;
};

std::vector<Backend> Backends() {
  return {
      {"memory",
       [](const std::string&, StoreOptions options) {
         return std::unique_ptr<Store>(std::make_unique<MemoryStore>(options));
       },
       false},
      {"sqlite",
       [](const std::string& dir, StoreOptions options) {
         auto store = OpenSqliteStore(dir, {false, options});
         EXPECT_TRUE(store.ok()) << store.status();
         return std::move(store).value();
       },
       true},
      {"etcd",
       [](const std::string& dir, StoreOptions options) {
         EtcdOptions etcd;
         etcd.endpoints = SharedEtcd().Endpoints();
         etcd.prefix =
             "/contract/" + std::filesystem::path(dir).filename().string();
         etcd.compaction_interval = std::chrono::seconds(0);
         etcd.window = options;
         auto store = OpenEtcdStore(etcd);
         EXPECT_TRUE(store.ok()) << store.status();
         return std::move(store).value();
       },
       true},
  };
}

class StoreContractTest : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    static std::atomic<int> tests = 0;
    dir_ = testing::TempDir() + "/store-" + GetParam().name + "-" +
           std::to_string(getpid()) + "-" + std::to_string(++tests);
    std::filesystem::remove_all(dir_);
    store_ = GetParam().open(dir_, {});
    base_ = store_->Revision();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Reopen(StoreOptions options = {}) {
    store_.reset();
    store_ = GetParam().open(dir_, options);
  }

  // The revision `n` writes after the test began (etcd's revisions count
  // the writes of every test).
  int64_t R(int64_t n) const { return base_ + n; }
  // The value Text(text) writes at R(n).
  std::string V(std::string_view text, int64_t n) const {
    return std::string(text) + "@" + std::to_string(R(n));
  }

  std::string dir_;
  std::unique_ptr<Store> store_;
  int64_t base_ = 0;
};

TEST_P(StoreContractTest, CreateGetAndRevisions) {
  EXPECT_EQ(store_->Revision(), R(0));
  auto a = store_->Put("/a/1", Precondition::MustNotExist(), Text("one"));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->mod_revision, R(1));
  EXPECT_EQ(a->create_revision, R(1));
  EXPECT_EQ(*a->value, V("one", 1));
  auto got = store_->Get("/a/1");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got->value, V("one", 1));
  EXPECT_FALSE(store_->Get("/a/2").has_value());
  EXPECT_EQ(store_->Revision(), R(1));
}

TEST_P(StoreContractTest, PreconditionsFailWithoutWriting) {
  ASSERT_TRUE(store_->Put("/k", Precondition::MustNotExist(), Text("v")).ok());
  auto again = store_->Put("/k", Precondition::MustNotExist(), Text("w"));
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  auto stale = store_->Put("/k", Precondition::AtRevision(R(7)), Text("w"));
  EXPECT_EQ(stale.status().code(), StatusCode::kAborted);
  auto missing = store_->Put("/x", Precondition::MustExist(), Text("w"));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Delete("/x", {}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(
      store_->Delete("/k", Precondition::AtRevision(R(9))).status().code(),
      StatusCode::kAborted);
  EXPECT_EQ(store_->Revision(), R(1));
  EXPECT_EQ(*store_->Get("/k")->value, V("v", 1));
}

TEST_P(StoreContractTest, UpdateKeepsCreateRevision) {
  ASSERT_TRUE(store_->Put("/k", Precondition::MustNotExist(), Text("v")).ok());
  auto updated = store_->Put("/k", Precondition::AtRevision(R(1)), Text("w"));
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(updated->create_revision, R(1));
  EXPECT_EQ(updated->mod_revision, R(2));
  auto deleted = store_->Delete("/k", Precondition::AtRevision(R(2)));
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted->mod_revision, R(3));
  EXPECT_EQ(*deleted->value, V("w", 2));
  EXPECT_FALSE(store_->Get("/k").has_value());
}

TEST_P(StoreContractTest, ListByPrefixWithPages) {
  for (const char* key : {"/b/2", "/a/1", "/b/1", "/b/3", "/c/1"}) {
    ASSERT_TRUE(store_->Put(key, {}, Text(key)).ok());
  }
  ListResult all = store_->List("/b/", "", 0);
  ASSERT_EQ(all.items.size(), 3u);
  EXPECT_EQ(all.items[0].key, "/b/1");
  EXPECT_EQ(all.items[2].key, "/b/3");
  EXPECT_FALSE(all.more);
  EXPECT_EQ(all.revision, R(5));
  ListResult page = store_->List("/b/", "", 2);
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_TRUE(page.more);
  ListResult rest = store_->List("/b/", page.items.back().key, 2);
  ASSERT_EQ(rest.items.size(), 1u);
  EXPECT_EQ(rest.items[0].key, "/b/3");
  EXPECT_FALSE(rest.more);
  EXPECT_EQ(store_->Count("/b/"), 3u);
  EXPECT_EQ(store_->Count("/"), 5u);
}

TEST_P(StoreContractTest, WatchDeliversEventsInOrder) {
  ASSERT_TRUE(store_->Put("/w/a", {}, Text("a")).ok());
  auto watcher = store_->Watch("/w/", store_->Revision());
  ASSERT_TRUE(watcher.ok());
  ASSERT_TRUE(store_->Put("/w/b", {}, Text("b")).ok());
  ASSERT_TRUE(store_->Put("/other", {}, Text("o")).ok());
  ASSERT_TRUE(store_->Put("/w/a", {}, Text("a2")).ok());
  ASSERT_TRUE(store_->Delete("/w/b", {}).ok());
  std::vector<WatchEvent> seen;
  for (int i = 0; i < 50 && seen.size() < 3; ++i) {
    auto events = (*watcher)->Next(milliseconds(100));
    ASSERT_TRUE(events.ok());
    seen.insert(seen.end(), events->begin(), events->end());
  }
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_TRUE(seen[0].created());
  EXPECT_EQ(seen[0].kv.key, "/w/b");
  EXPECT_FALSE(seen[1].created());
  EXPECT_EQ(*seen[1].kv.value, V("a2", 4));
  EXPECT_EQ(seen[2].type, WatchEvent::Type::kDelete);
  EXPECT_EQ(seen[2].kv.mod_revision, R(5));
  EXPECT_EQ(*seen[2].kv.value, V("b", 2));
  EXPECT_EQ((*watcher)->revision(), R(5));
}

TEST_P(StoreContractTest, WatchFromHistoryReplaysWindow) {
  ASSERT_TRUE(store_->Put("/h/1", {}, Text("1")).ok());
  ASSERT_TRUE(store_->Put("/h/2", {}, Text("2")).ok());
  auto watcher = store_->Watch("/h/", R(0));
  ASSERT_TRUE(watcher.ok());
  auto events = (*watcher)->Next(milliseconds(100));
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ(events->at(1).kv.key, "/h/2");
}

TEST_P(StoreContractTest, WatchTooOldIsOutOfRange) {
  Reopen({.window_events = 2});
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store_->Put("/t/" + std::to_string(i), {}, Text("x")).ok());
  }
  EXPECT_EQ(store_->Watch("/t/", R(1)).status().code(),
            StatusCode::kOutOfRange);
  EXPECT_TRUE(store_->Watch("/t/", R(3)).ok());
  EXPECT_EQ(store_->OldestWatchableRevision(), R(3));
}

TEST_P(StoreContractTest, BlockedWatcherOfAQuietPrefixOutlivesTheWindow) {
  // Writes under other prefixes may push the window past a blocked watcher:
  // it lost nothing of its own, so it keeps watching. (A watcher that is
  // not blocked yet may still fall behind, so the test allows retries.)
  Reopen({.window_events = 2});
  bool delivered = false;
  for (int attempt = 0; attempt < 20 && !delivered; ++attempt) {
    auto watcher = store_->Watch("/quiet/", store_->Revision());
    ASSERT_TRUE(watcher.ok());
    StatusOr<std::vector<WatchEvent>> events = std::vector<WatchEvent>{};
    std::thread reader(
        [&] { events = (*watcher)->Next(milliseconds(60'000)); });
    std::this_thread::sleep_for(milliseconds(20 << std::min(attempt, 5)));
    for (int i = 0; i < 10; ++i) {
      ASSERT_TRUE(
          store_->Put("/busy/" + std::to_string(i), {}, Text("b")).ok());
    }
    const std::string key = "/quiet/" + std::to_string(attempt);
    ASSERT_TRUE(store_->Put(key, {}, Text("q")).ok());
    reader.join();
    if (!events.ok()) {
      EXPECT_EQ(events.status().code(), StatusCode::kOutOfRange);
      continue;
    }
    ASSERT_EQ(events->size(), 1u);
    EXPECT_EQ(events->front().kv.key, key);
    delivered = true;
  }
  EXPECT_TRUE(delivered);
}

TEST_P(StoreContractTest, StopWakesBlockedWatcher) {
  auto watcher = store_->Watch("/s/", store_->Revision());
  ASSERT_TRUE(watcher.ok());
  std::thread stopper([&] { (*watcher)->Stop(); });
  auto events = (*watcher)->Next(milliseconds(60'000));
  stopper.join();
  EXPECT_EQ(events.status().code(), StatusCode::kCancelled);
}

TEST_P(StoreContractTest, ConcurrentWritersGetDistinctRevisions) {
  constexpr int kThreads = 4, kWrites = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kWrites; ++i) {
        const std::string key =
            "/c/" + std::to_string(t) + "/" + std::to_string(i);
        EXPECT_TRUE(
            store_->Put(key, Precondition::MustNotExist(), Text("v")).ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(store_->Revision(), R(kThreads * kWrites));
  EXPECT_EQ(store_->Count("/c/"), static_cast<size_t>(kThreads * kWrites));
}

// Read-modify-write loops on one key through revision preconditions.
TEST_P(StoreContractTest, ConcurrentCompareAndSwapLosesNoUpdate) {
  ASSERT_TRUE(store_->Put("/n", {}, [](int64_t) { return "0"; }).ok());
  constexpr int kThreads = 4, kIncrements = 100;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements;) {
        auto current = store_->Get("/n");
        ASSERT_TRUE(current.has_value());
        const int next = std::stoi(*current->value) + 1;
        auto written =
            store_->Put("/n", Precondition::AtRevision(current->mod_revision),
                        [next](int64_t) { return std::to_string(next); });
        if (written.ok()) {
          ++i;
        } else {
          ASSERT_EQ(written.status().code(), StatusCode::kAborted);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(*store_->Get("/n")->value, std::to_string(kThreads * kIncrements));
}

TEST_P(StoreContractTest, ReopenKeepsEveryAcknowledgedWrite) {
  if (!GetParam().durable) GTEST_SKIP() << "not a durable backend";
  ASSERT_TRUE(store_->Put("/p/1", {}, Text("one")).ok());
  ASSERT_TRUE(store_->Put("/p/2", {}, Text("two")).ok());
  ASSERT_TRUE(store_->Delete("/p/1", {}).ok());
  Reopen();
  EXPECT_EQ(store_->Revision(), R(3));
  EXPECT_FALSE(store_->Get("/p/1").has_value());
  auto two = store_->Get("/p/2");
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(*two->value, V("two", 2));
  EXPECT_EQ(two->mod_revision, R(2));
  auto next = store_->Put("/p/3", {}, Text("three"));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->mod_revision, R(4));
  EXPECT_TRUE(store_->Watch("/p/", R(4)).ok());
}

TEST_P(StoreContractTest, ReopenKeepsRevisionAfterPutsAndDeletes) {
  if (!GetParam().durable) GTEST_SKIP() << "not a durable backend";
  ASSERT_TRUE(store_->Put("/q/1", {}, Text("a")).ok());
  ASSERT_TRUE(store_->Delete("/q/1", {}).ok());
  ASSERT_TRUE(store_->Put("/q/2", {}, Text("b")).ok());
  ASSERT_TRUE(store_->Put("/q/2", {}, Text("c")).ok());
  Reopen();
  EXPECT_EQ(store_->Revision(), R(4));
  ASSERT_TRUE(store_->Delete("/q/2", {}).ok());
  Reopen();
  EXPECT_EQ(store_->Revision(), R(5));
  EXPECT_EQ(store_->Count("/q/"), 0u);
}

TEST_P(StoreContractTest, WatchesResumeAcrossReopenWhenTheWritesAreKnown) {
  if (!GetParam().durable) GTEST_SKIP() << "not a durable backend";
  ASSERT_TRUE(store_->Put("/w/1", {}, Text("a")).ok());
  ASSERT_TRUE(store_->Put("/w/1", {}, Text("b")).ok());  // revision 2
  ASSERT_TRUE(store_->Put("/w/2", {}, Text("c")).ok());  // revision 3
  ASSERT_TRUE(store_->Put("/w/3", {}, Text("d")).ok());  // revision 4
  Reopen();
  // Revisions 2..4 are each a key's current state, so they are replayed;
  // revision 1 was overwritten, so a watch from before 2 is too old.
  EXPECT_EQ(store_->OldestWatchableRevision(), R(1));
  auto watcher = store_->Watch("/w/", R(2));
  ASSERT_TRUE(watcher.ok()) << watcher.status();
  auto events = (*watcher)->Next(std::chrono::milliseconds(100));
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].kv.key, "/w/2");
  EXPECT_TRUE((*events)[0].created());
  EXPECT_EQ((*events)[1].kv.mod_revision, R(4));
  EXPECT_EQ(store_->Watch("/w/", R(0)).status().code(),
            StatusCode::kOutOfRange);
  // After a delete nothing earlier can be replayed exactly.
  ASSERT_TRUE(store_->Delete("/w/3", {}).ok());
  Reopen();
  EXPECT_EQ(store_->OldestWatchableRevision(), store_->Revision());
}

// The keys of a list result, with each value ("text@revision").
std::vector<std::string> Listed(const ListResult& result) {
  std::vector<std::string> out;
  for (const KeyValue& kv : result.items)
    out.push_back(kv.key + "=" + *kv.value);
  return out;
}

using Strings = std::vector<std::string>;

TEST_P(StoreContractTest, ListAtAnEarlierRevisionUndoesLaterWrites) {
  ASSERT_TRUE(store_->Put("/p/a", {}, Text("a")).ok());  // 1
  ASSERT_TRUE(store_->Put("/p/b", {}, Text("b")).ok());  // 2
  ASSERT_TRUE(store_->Put("/p/c", {}, Text("c")).ok());  // 3
  ASSERT_TRUE(store_->Put("/q/x", {}, Text("x")).ok());  // 4: other prefix
  const int64_t snapshot = store_->Revision();
  ASSERT_TRUE(store_->Put("/p/b", {}, Text("b2")).ok());     // 5: update
  ASSERT_TRUE(store_->Delete("/p/c", {}).ok());              // 6: delete
  ASSERT_TRUE(store_->Put("/p/0", {}, Text("new")).ok());    // 7: create
  ASSERT_TRUE(store_->Delete("/p/a", {}).ok());              // 8
  ASSERT_TRUE(store_->Put("/p/a", {}, Text("again")).ok());  // 9: re-create

  auto then = store_->ListAt("/p/", "", 0, snapshot);
  ASSERT_TRUE(then.ok()) << then.status();
  EXPECT_EQ(then->revision, snapshot);
  EXPECT_EQ(Listed(*then),
            (Strings{V("/p/a=a", 1), V("/p/b=b", 2), V("/p/c=c", 3)}));
  EXPECT_EQ(then->items[1].mod_revision, R(2));
  EXPECT_EQ(then->items[1].create_revision, R(2));
  EXPECT_EQ(then->items[2].mod_revision, R(3));
  EXPECT_FALSE(then->more);

  auto now = store_->ListAt("/p/", "", 0, 0);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ(now->revision, R(9));
  EXPECT_EQ(Listed(*now),
            (Strings{V("/p/0=new", 7), V("/p/a=again", 9), V("/p/b=b2", 5)}));
  EXPECT_EQ(now->items[1].create_revision, R(9));

  // Between the writes: after the update and the delete (revision 6).
  auto middle = store_->ListAt("/p/", "", 0, R(6));
  ASSERT_TRUE(middle.ok());
  EXPECT_EQ(Listed(*middle), (Strings{V("/p/a=a", 1), V("/p/b=b2", 5)}));
}

TEST_P(StoreContractTest, ListAtPagesFromAnInclusiveStartAndCountsTheRest) {
  for (const char* key : {"/r/1", "/r/2", "/r/3", "/r/4", "/r/5", "/s/1"}) {
    ASSERT_TRUE(store_->Put(key, {}, Text(key)).ok());
  }
  const int64_t snapshot = store_->Revision();
  ASSERT_TRUE(store_->Delete("/r/2", {}).ok());
  ASSERT_TRUE(store_->Put("/r/6", {}, Text("six")).ok());

  auto first = store_->ListAt("/r/", "", 2, snapshot);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(Listed(*first), (Strings{V("/r/1=/r/1", 1), V("/r/2=/r/2", 2)}));
  EXPECT_TRUE(first->more);
  EXPECT_EQ(first->remaining, 3u);
  // The next page starts at the key after the last one returned.
  auto second = store_->ListAt("/r/", std::string("/r/2") + '\0', 2, snapshot);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(Listed(*second), (Strings{V("/r/3=/r/3", 3), V("/r/4=/r/4", 4)}));
  EXPECT_EQ(second->remaining, 1u);
  auto last = store_->ListAt("/r/", "/r/5", 2, snapshot);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(Listed(*last), (Strings{V("/r/5=/r/5", 5)}));
  EXPECT_FALSE(last->more);
  EXPECT_EQ(last->remaining, 0u);

  // At the current revision the same paging sees the later writes.
  auto current = store_->ListAt("/r/", "", 2, 0);
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(Listed(*current), (Strings{V("/r/1=/r/1", 1), V("/r/3=/r/3", 3)}));
  EXPECT_EQ(current->remaining, 3u);
  EXPECT_EQ(current->revision, store_->Revision());
}

TEST_P(StoreContractTest, ListAtOutsideTheWindowFails) {
  Reopen({.window_events = 3});
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(store_->Put("/t/" + std::to_string(i % 2), {}, Text("v")).ok());
  }
  EXPECT_EQ(store_->OldestListableRevision(), R(3));
  EXPECT_TRUE(store_->ListAt("/t/", "", 0, R(3)).ok());
  EXPECT_EQ(store_->ListAt("/t/", "", 0, R(2)).status().code(),
            StatusCode::kOutOfRange);
  EXPECT_EQ(store_->ListAt("/t/", "", 0, R(7)).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_P(StoreContractTest, ListAtStaysConsistentUnderConcurrentWrites) {
  // Every write moves one unit between two keys, so each consistent
  // snapshot sums to the same total.
  EXPECT_TRUE(store_->Put("/u/a", {}, [](int64_t) { return "50"; }).ok());
  EXPECT_TRUE(store_->Put("/u/b", {}, [](int64_t) { return "50"; }).ok());
  std::atomic<bool> done = false;
  std::thread writer([&] {
    for (int i = 0; i < 400; ++i) {
      // One key at a time: a snapshot between the two writes sums to 99
      // (after taking from a) or 100; never anything else.
      const auto a = store_->Get("/u/a");
      const int value = std::stoi(*a->value);
      EXPECT_TRUE(store_
                      ->Put("/u/a", {},
                            [&](int64_t) { return std::to_string(value - 1); })
                      .ok());
      const auto b = store_->Get("/u/b");
      const int other = std::stoi(*b->value);
      EXPECT_TRUE(store_
                      ->Put("/u/b", {},
                            [&](int64_t) { return std::to_string(other + 1); })
                      .ok());
    }
    done = true;
  });
  int checked = 0;
  // Reads for as long as the writer runs (and at least a few times).
  while (!done || checked < 20) {
    const int64_t revision = store_->Revision();
    auto list = store_->ListAt("/u/", "", 0, revision);
    if (!list.ok()) {
      ASSERT_EQ(list.status().code(), StatusCode::kOutOfRange);
      continue;
    }
    ASSERT_EQ(list->items.size(), 2u);
    const int sum =
        std::stoi(*list->items[0].value) + std::stoi(*list->items[1].value);
    // Even revisions follow a completed pair of writes.
    EXPECT_EQ(sum, (revision - R(0)) % 2 == 0 ? 100 : 99) << "at " << revision;
    auto current = store_->ListAt("/u/", "", 0, 0);
    ASSERT_TRUE(current.ok());
    const int now = std::stoi(*current->items[0].value) +
                    std::stoi(*current->items[1].value);
    EXPECT_EQ(now, (current->revision - R(0)) % 2 == 0 ? 100 : 99);
    ++checked;
  }
  writer.join();
  EXPECT_GT(checked, 0);
}

TEST_P(StoreContractTest, ListAtSnapshotsTakenDuringConcurrentWritesReplay) {
  // Several writers (batched together by a durable backend); every list
  // taken meanwhile, current or at a revision, must equal the same list
  // read again afterwards at its revision.
  std::atomic<int> running = 3;
  std::vector<std::thread> writers;
  for (int w = 0; w < 3; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < 150; ++i) {
        const std::string key = "/m/" + std::to_string((w * 7 + i) % 10);
        if (i % 4 == 3) {
          (void)store_->Delete(key, {});
        } else {
          EXPECT_TRUE(store_->Put(key, {}, Text(std::to_string(w))).ok());
        }
      }
      --running;
    });
  }
  std::vector<ListResult> seen;
  while (running > 0 || seen.size() < 10) {
    const int64_t earlier = std::max<int64_t>(store_->Revision() - 3, R(0));
    for (int64_t revision : {int64_t{0}, earlier}) {
      auto list = store_->ListAt("/m/", "", 0, revision);
      if (list.ok()) seen.push_back(std::move(*list));
    }
  }
  for (std::thread& writer : writers) writer.join();
  for (const ListResult& then : seen) {
    if (then.revision == 0) continue;  // before any write: 0 means "now"
    auto again = store_->ListAt("/m/", "", 0, then.revision);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(Listed(*again), Listed(then)) << "at " << then.revision;
  }
}

TEST_P(StoreContractTest, ListAtAfterReopenGoesBackOnlyOverKnownWrites) {
  if (!GetParam().durable) GTEST_SKIP() << "not a durable backend";
  ASSERT_TRUE(store_->Put("/v/1", {}, Text("a")).ok());  // 1
  ASSERT_TRUE(store_->Put("/v/1", {}, Text("b")).ok());  // 2: an update
  ASSERT_TRUE(store_->Put("/v/2", {}, Text("c")).ok());  // 3: a create
  Reopen();
  // The update's previous state is lost, the create's is known (absent).
  EXPECT_EQ(store_->OldestListableRevision(), R(2));
  auto at2 = store_->ListAt("/v/", "", 0, R(2));
  ASSERT_TRUE(at2.ok()) << at2.status();
  EXPECT_EQ(Listed(*at2), (Strings{V("/v/1=b", 2)}));
  EXPECT_EQ(store_->ListAt("/v/", "", 0, R(1)).status().code(),
            StatusCode::kOutOfRange);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreContractTest,
                         testing::ValuesIn(Backends()),
                         [](const auto& info) { return info.param.name; });

// A persistence that fails on demand: a failed write must change nothing.
class FailingPersistence : public Persistence {
 public:
  explicit FailingPersistence(bool& fail) : fail_(fail) {}
  Status Write(std::span<const Record>) override {
    return fail_ ? Status(StatusCode::kUnavailable, "disk full") : OkStatus();
  }

 private:
  bool& fail_;
};

TEST(MemoryStoreTest, FailedPersistenceChangesNothing) {
  bool fail = false;
  MemoryStore store({}, std::make_unique<FailingPersistence>(fail));
  ASSERT_TRUE(store.Put("/a", {}, Text("1")).ok());
  auto watcher = store.Watch("/", store.Revision());
  ASSERT_TRUE(watcher.ok());
  fail = true;
  EXPECT_EQ(store.Put("/a", {}, Text("2")).status().code(),
            StatusCode::kUnavailable);
  EXPECT_EQ(store.Delete("/a", {}).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(store.Revision(), 1);
  EXPECT_EQ(*store.Get("/a")->value, "1@1");
  auto events = (*watcher)->Next(std::chrono::milliseconds(10));
  ASSERT_TRUE(events.ok());
  EXPECT_TRUE(events->empty());
  fail = false;
  auto next = store.Put("/a", {}, Text("3"));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->mod_revision, 2);
}

// A persistence whose writes wait for the test: shows what is visible
// while a batch is being made durable.
class GatedPersistence : public Persistence {
 public:
  Status Write(std::span<const Record> records) override {
    std::unique_lock lock(mutex_);
    batches_.push_back(records.size());
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
    return fail_ ? Status(StatusCode::kUnavailable, "disk full") : OkStatus();
  }
  // Waits until `n` batches have reached the log.
  void AwaitBatches(size_t n) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return batches_.size() >= n; });
  }
  void Open(bool fail) {
    std::lock_guard lock(mutex_);
    open_ = true;
    fail_ = fail;
    changed_.notify_all();
  }
  std::vector<size_t> batches() {
    std::lock_guard lock(mutex_);
    return batches_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<size_t> batches_;
  bool open_ = false;
  bool fail_ = false;
};

TEST(MemoryStoreTest, GroupCommitShowsAndAcknowledgesOnlyDurableWrites) {
  auto owned = std::make_unique<GatedPersistence>();
  GatedPersistence& log = *owned;
  MemoryStore store({}, std::move(owned));
  std::thread first([&] { EXPECT_TRUE(store.Put("/a", {}, Text("1")).ok()); });
  log.AwaitBatches(1);
  // The first batch is in the log, not yet durable: invisible.
  EXPECT_FALSE(store.Get("/a").has_value());
  EXPECT_EQ(store.Revision(), 0);
  // Writes arriving meanwhile queue up as the next batch.
  std::vector<std::thread> more;
  for (const char* key : {"/b", "/c", "/d"}) {
    more.emplace_back(
        [&, key] { EXPECT_TRUE(store.Put(key, {}, Text("x")).ok()); });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  log.Open(false);
  first.join();
  for (std::thread& t : more) t.join();
  EXPECT_EQ(store.Revision(), 4);
  EXPECT_EQ(*store.Get("/a")->value, "1@1");
  const std::vector<size_t> batches = log.batches();
  size_t written = 0;
  for (size_t n : batches) written += n;
  EXPECT_EQ(written, 4u);
  EXPECT_EQ(batches.front(), 1u);
  EXPECT_LE(batches.size(), 4u);
}

// A store on a GatedPersistence whose first write, to /a, is in the log
// (not yet durable) when a test starts; `failed` counts writes that fail.
class FailingBatchTest : public testing::Test {
 protected:
  FailingBatchTest()
      : owned_(std::make_unique<GatedPersistence>()),
        log_(*owned_),
        store_({}, std::move(owned_)) {}
  void SetUp() override {
    first_ = std::thread([&] { PutCounted("/a", "1"); });
    log_.AwaitBatches(1);
  }
  void TearDown() override {
    // A test that stopped early still lets the first write return.
    if (first_.joinable()) {
      log_.Open(true);
      first_.join();
    }
  }
  void PutCounted(const char* key, const char* text) {
    if (!store_.Put(key, {}, Text(text)).ok()) ++failed_;
  }

  std::unique_ptr<GatedPersistence> owned_;
  GatedPersistence& log_;
  MemoryStore store_;
  std::atomic<int> failed_ = 0;
  std::thread first_;
};

TEST_F(FailingBatchTest, FailedBatchFailsWritesQueuedBehindIt) {
  // Same key: waits for the first write, then fails or is written.
  std::thread second([&] { PutCounted("/a", "2"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  log_.Open(true);
  first_.join();
  second.join();
  EXPECT_EQ(failed_.load(), 2);
  EXPECT_EQ(store_.Revision(), 0);
  EXPECT_FALSE(store_.Get("/a").has_value());
}

TEST_F(FailingBatchTest, FailedBatchReturnsEveryWriterOfTheBatchBehindIt) {
  // Other keys: these join the next batch and wait for the first commit.
  std::vector<std::thread> queued;
  for (const char* key : {"/b", "/c", "/d"}) {
    queued.emplace_back([&, key] { PutCounted(key, "x"); });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  log_.Open(true);
  first_.join();
  for (std::thread& t : queued) t.join();
  EXPECT_EQ(failed_.load(), 4);
  EXPECT_EQ(log_.batches().size(), 1u);
  EXPECT_EQ(store_.Revision(), 0);
  // The store takes writes again once the log does.
  log_.Open(false);
  EXPECT_TRUE(store_.Put("/b", {}, Text("y")).ok());
  EXPECT_EQ(store_.Revision(), 1);
}

TEST(StoreFactoryTest, RejectsUnknownScheme) {
  EXPECT_EQ(OpenStore("etcd://x").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(OpenStore("memory:").ok());
}

TEST(SqliteStoreTest, SecondServerOnTheSameDirectoryIsRefused) {
  const std::string dir = testing::TempDir() + "/store-exclusive";
  std::filesystem::remove_all(dir);
  auto first = OpenSqliteStore(dir, {});
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE((*first)->Put("/k", {}, Text("v")).ok());
  auto second = OpenSqliteStore(dir, {});
  EXPECT_FALSE(second.ok());
  first->reset();
  std::filesystem::remove_all(dir);
}

TEST(SqliteStoreTest, RecreatedKeysKeepOneRowAcrossReopen) {
  const std::string dir = testing::TempDir() + "/store-recreate";
  std::filesystem::remove_all(dir);
  {
    auto store = OpenSqliteStore(dir, {});
    ASSERT_TRUE(store.ok()) << store.status();
    for (int round = 0; round < 3; ++round) {
      ASSERT_TRUE((*store)->Put("/a", {}, Text("a")).ok());
      ASSERT_TRUE((*store)->Put("/b", {}, Text("b")).ok());
      ASSERT_TRUE((*store)->Put("/a", {}, Text("a2")).ok());
      ASSERT_TRUE((*store)->Delete("/a", {}).ok());
    }
    ASSERT_TRUE((*store)->Put("/a", {}, Text("last")).ok());
  }
  auto store = OpenSqliteStore(dir, {});
  ASSERT_TRUE(store.ok()) << store.status();
  const ListResult all = (*store)->List("/", "", 0);
  ASSERT_EQ(all.items.size(), 2u);
  EXPECT_EQ(*all.items[0].value, "last@13");
  EXPECT_EQ(*all.items[1].value, "b@10");
  EXPECT_EQ(all.revision, 13);
  store->reset();
  std::filesystem::remove_all(dir);
}

// Data directories from before the object_rows table keep objects in a
// table keyed by `key`, in either of two layouts.
TEST(SqliteStoreTest, OpensDataOfTheKeyedTableLayouts) {
  for (const char* layout : {"", " WITHOUT ROWID"}) {
    SCOPED_TRACE(layout);
    const std::string dir = testing::TempDir() + "/store-keyed";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir + "/dralloc.db").c_str(), &db), SQLITE_OK);
    const std::string setup =
        std::string(
            "CREATE TABLE objects(key TEXT PRIMARY KEY, value BLOB NOT NULL,"
            "  create_revision INTEGER NOT NULL, mod_revision INTEGER NOT "
            "NULL)") +
        layout +
        ";CREATE TABLE meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL);"
        "INSERT INTO objects VALUES('/a', 'a@3', 1, 3), ('/b', 'b@2', 2, 2);"
        "INSERT INTO meta VALUES('revision', 4);";
    ASSERT_EQ(sqlite3_exec(db, setup.c_str(), nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    for (int open = 0; open < 2; ++open) {
      auto store = OpenSqliteStore(dir, {});
      ASSERT_TRUE(store.ok()) << store.status();
      const ListResult all = (*store)->List("/", "", 0);
      ASSERT_EQ(all.items.size(), 2u);
      EXPECT_EQ(*all.items[0].value, open == 0 ? "a@3" : "a@5");
      EXPECT_EQ(all.items[0].create_revision, 1);
      EXPECT_EQ(*all.items[1].value, "b@2");
      EXPECT_EQ(all.revision, open == 0 ? 4 : 5);
      // The moved rows are updated in place.
      if (open == 0) {
        ASSERT_TRUE((*store)->Put("/a", {}, Text("a")).ok());
      }
    }
    std::filesystem::remove_all(dir);
  }
}

TEST(SqliteStoreTest, UnwritableDirectoryIsAnError) {
  auto store = OpenSqliteStore("/proc/self/no-such-dir", {});
  EXPECT_FALSE(store.ok());
}

}  // namespace
}  // namespace dralloc::store
