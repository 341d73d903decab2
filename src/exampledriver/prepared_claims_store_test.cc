// PreparedClaimsStore: reopen after changes, the earlier driver's checkpoint
// files, torn tails (crash during an append), corrupt files, compaction
// (also a crash between snapshot and journal truncation), concurrent
// appends (group commit) and kill -9 of a process appending.
#include "exampledriver/prepared_claims_store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace dralloc::exampledriver {
namespace {

namespace fs = std::filesystem;

class ScopedTempDir {
 public:
  ScopedTempDir() {
    char pattern[] = "/tmp/pcstore-XXXXXX";
    path_ = ::mkdtemp(pattern);
  }
  ~ScopedTempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

PreparedClaim Claim(const std::string& name) {
  PreparedClaim claim;
  claim.namespace_ = "default";
  claim.name = name;
  claim.devices.push_back({{"gpu"},
                           "node-a",
                           "gpu-0",
                           {"k8s.gpu.example.com/gpu=common",
                            "k8s.gpu.example.com/gpu=" + name + "-gpu-0"},
                           "share-" + name});
  claim.cdi_spec =
      "{\"kind\":\"k8s.gpu.example.com/gpu\",\"x\":\"" + name + "\"}\n";
  return claim;
}

ClaimChange Put(const std::string& uid) { return {uid, Claim("c-" + uid)}; }
ClaimChange Erase(const std::string& uid) { return {uid, std::nullopt}; }

std::string ReadText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteText(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

class PreparedClaimsStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<PreparedClaimsStore> Open(size_t compact_min_records = 1024,
                                            SyncMode sync = SyncMode::kAlways) {
    auto store =
        PreparedClaimsStore::Open({.dir = dir_.path(),
                                   .sync = sync,
                                   .compact_min_records = compact_min_records});
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  fs::path Snapshot() const {
    return dir_.path() / PreparedClaimsStore::kSnapshotFile;
  }
  fs::path Journal() const {
    return dir_.path() / PreparedClaimsStore::kJournalFile;
  }

  ScopedTempDir dir_;
};

TEST_F(PreparedClaimsStoreTest, ChangesSurviveReopen) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->Claims().empty());
  ASSERT_TRUE(store->Apply({Put("a"), Put("b"), Put("c")}).ok());
  ASSERT_TRUE(store->Apply({Erase("b"), Erase("never-there")}).ok());
  EXPECT_EQ(store->Find("a"), Claim("c-a"));
  EXPECT_FALSE(store->Find("b").has_value());
  EXPECT_EQ(store->stats().journal_records, 5u);
  // Appends only: the snapshot is not written per change.
  EXPECT_FALSE(fs::exists(Snapshot()));
  store.reset();

  auto reopened = Open();
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(reopened->Claims(),
            (PreparedClaims{{"a", Claim("c-a")}, {"c", Claim("c-c")}}));
  // Open compacted: snapshot written, journal empty.
  EXPECT_TRUE(fs::exists(Snapshot()));
  EXPECT_EQ(fs::file_size(Journal()), 0u);
}

TEST_F(PreparedClaimsStoreTest, EarlierDriversCheckpointLoads) {
  // The pretty-printed file the driver wrote before the journal existed.
  WriteText(Snapshot(), R"({
  "claims": {
    "uid-1": {
      "devices": [
        {
          "cdiDeviceIds": [
            "k8s.gpu.example.com/gpu=common",
            "k8s.gpu.example.com/gpu=uid-1-gpu-5"
          ],
          "deviceName": "gpu-5",
          "poolName": "node-a",
          "requestNames": [
            "gpu"
          ],
          "shareId": "s-5"
        }
      ],
      "name": "c",
      "namespace": "default"
    }
  },
  "version": 1
}
)");
  auto store = Open();
  ASSERT_NE(store, nullptr);
  const std::optional<PreparedClaim> claim = store->Find("uid-1");
  ASSERT_TRUE(claim.has_value());
  EXPECT_EQ(claim->name, "c");
  ASSERT_EQ(claim->devices.size(), 1u);
  EXPECT_EQ(claim->devices[0].device_name, "gpu-5");
  EXPECT_EQ(claim->devices[0].share_id, "s-5");
  EXPECT_EQ(claim->devices[0].cdi_device_ids[1],
            "k8s.gpu.example.com/gpu=uid-1-gpu-5");
  EXPECT_EQ(claim->cdi_spec, "");
  ASSERT_TRUE(store->Apply({Erase("uid-1")}).ok());
  store.reset();
  EXPECT_TRUE(Open()->Claims().empty());
}

TEST_F(PreparedClaimsStoreTest, TornTailIsDropped) {
  const std::string a = EncodeJournalRecord(Put("a"));
  const std::string b = EncodeJournalRecord(Put("b"));
  // A crash in the middle of an append: half of b's line.
  for (const std::string& tail :
       {b.substr(0, b.size() / 2), b.substr(0, b.size() - 3) + "zz\n",
        std::string(40, '\0')}) {
    SCOPED_TRACE(tail);
    std::error_code ec;
    fs::remove(Snapshot(), ec);
    WriteText(Journal(), a + tail);
    auto store = Open();
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->Claims(), (PreparedClaims{{"a", Claim("c-a")}}));
    // Appends after recovery do not follow the torn bytes.
    ASSERT_TRUE(store->Apply({Put("c")}).ok());
    store.reset();
    EXPECT_EQ(Open()->Claims(),
              (PreparedClaims{{"a", Claim("c-a")}, {"c", Claim("c-c")}}));
  }
}

TEST_F(PreparedClaimsStoreTest, CorruptRecordBeforeOthersIsDataLoss) {
  std::string a = EncodeJournalRecord(Put("a"));
  a[a.size() / 2] ^= 0x20;  // a flipped bit inside a's JSON
  WriteText(Journal(), a + EncodeJournalRecord(Put("b")));
  auto store = PreparedClaimsStore::Open({.dir = dir_.path()});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(store.status().message(),
            "prepared claims journal " + Journal().string() +
                ": record 0 (byte 0): checksum mismatch");
}

TEST_F(PreparedClaimsStoreTest, CorruptSnapshotIsDataLoss) {
  const std::string valid =
      R"({"version":1,"claims":{"u":{"namespace":"d","name":"n","devices":[]}}})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{oops", "not a JSON object"},
      {R"({"version":2,"claims":{}})", "version: Unsupported value: 2"},
      {R"({"version":1,"claims":{"u":{"name":"n","devices":[]}}})",
       "claims[u].namespace: Required value"},
      {R"({"version":1,"claims":{"u":{"namespace":"d","name":"n",)"
       R"("devices":[{"poolName":7}]}}})",
       "claims[u].devices[0].requestNames: Required value"},
      {R"({"version":1,"claims":{"u":{"namespace":"d","name":1,)"
       R"("devices":[]}}})",
       "claims[u].name: Invalid value: 1"},
      {R"({"version":1})", "claims: Required value"},
      {R"({"claims":{}})", "version: Unsupported value: none"},
  };
  WriteText(Snapshot(), valid);
  ASSERT_NE(Open(), nullptr);
  for (const auto& [text, error] : cases) {
    SCOPED_TRACE(text);
    WriteText(Snapshot(), text);
    auto store = PreparedClaimsStore::Open({.dir = dir_.path()});
    ASSERT_FALSE(store.ok());
    EXPECT_EQ(store.status().code(), StatusCode::kDataLoss);
    const std::string prefix =
        "prepared claims checkpoint " + Snapshot().string() + ": ";
    EXPECT_TRUE(store.status().message().starts_with(prefix)) << store.status();
    EXPECT_NE(store.status().message().find(error), std::string::npos)
        << store.status();
  }
}

TEST_F(PreparedClaimsStoreTest, CompactionKeepsTheJournalShort) {
  auto store = Open(/*compact_min_records=*/4);
  ASSERT_NE(store, nullptr);
  PreparedClaims expected;
  for (int i = 0; i < 20; ++i) {
    const std::string uid = "u" + std::to_string(i);
    ASSERT_TRUE(store->Apply({Put(uid)}).ok());
    expected[uid] = Claim("c-" + uid);
    if (i % 3 == 0) {
      ASSERT_TRUE(store->Apply({Erase(uid)}).ok());
      expected.erase(uid);
    }
    // Bounded by max(4, claims) + the last batch.
    EXPECT_LE(store->stats().journal_records,
              std::max<size_t>(4, expected.size()) + 1);
  }
  EXPECT_GE(store->stats().compactions, 2u);
  EXPECT_EQ(store->Claims(), expected);
  store.reset();
  EXPECT_EQ(Open()->Claims(), expected);
}

TEST_F(PreparedClaimsStoreTest, CrashBetweenSnapshotAndTruncation) {
  // The snapshot already holds what the journal says: replaying is a no-op.
  {
    auto store = Open();
    ASSERT_TRUE(store->Apply({Put("a"), Put("b"), Erase("a")}).ok());
  }
  const std::string journal = ReadText(Journal());
  auto store = Open();  // compacts
  ASSERT_NE(store, nullptr);
  store.reset();
  WriteText(Journal(), journal);
  EXPECT_EQ(Open()->Claims(), (PreparedClaims{{"b", Claim("c-b")}}));
}

TEST_F(PreparedClaimsStoreTest, ConcurrentAppendsShareSyncs) {
  auto store = Open(/*compact_min_records=*/64);
  ASSERT_NE(store, nullptr);
  constexpr int kThreads = 8;
  constexpr int kRounds = 40;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        const std::string uid =
            "t" + std::to_string(t) + "-" + std::to_string(i);
        if (!store->Apply({Put(uid)}).ok()) ++failures;
        if (i % 2 == 1 && !store->Apply({Erase(uid)}).ok()) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  const PreparedClaims claims = store->Claims();
  EXPECT_EQ(claims.size(), static_cast<size_t>(kThreads * kRounds / 2));
  EXPECT_LE(store->stats().syncs,
            static_cast<uint64_t>(kThreads * kRounds * 3 / 2));
  std::printf("%llu syncs for %d appends\n",
              static_cast<unsigned long long>(store->stats().syncs),
              kThreads * kRounds * 3 / 2);
  store.reset();
  EXPECT_EQ(Open()->Claims(), claims);
}

TEST_F(PreparedClaimsStoreTest, SyncNeverStillWritesBeforeAnswering) {
  auto store = Open(1024, SyncMode::kNever);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Apply({Put("a")}).ok());
  // Written (the page cache survives the process), readable by another.
  EXPECT_EQ(ReadText(Journal()), EncodeJournalRecord(Put("a")));
}

// A child process appends one claim after another and reports each
// acknowledged one on a pipe; it is killed with SIGKILL mid-way. Every
// acknowledged claim is there after reopening.
TEST_F(PreparedClaimsStoreTest, KillDuringAppendsKeepsAcknowledged) {
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(report[0]);
    auto store = PreparedClaimsStore::Open({.dir = dir_.path()});
    if (!store.ok()) ::_exit(2);
    for (int i = 0;; ++i) {
      if (!(*store)->Apply({Put("k" + std::to_string(i))}).ok()) ::_exit(3);
      if (::write(report[1], &i, sizeof i) != sizeof i) ::_exit(4);
    }
  }
  ::close(report[1]);
  int acknowledged = -1;
  int last = -1;
  while (acknowledged < 30 &&
         ::read(report[0], &last, sizeof last) == sizeof last) {
    acknowledged = last;
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(report[0]);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited " << WEXITSTATUS(status);
  ASSERT_GE(acknowledged, 30);
  auto store = Open();
  ASSERT_NE(store, nullptr);
  for (int i = 0; i <= acknowledged; ++i) {
    EXPECT_TRUE(store->Find("k" + std::to_string(i)).has_value()) << i;
  }
}

}  // namespace
}  // namespace dralloc::exampledriver
