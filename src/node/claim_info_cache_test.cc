#include "node/claim_info_cache.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "node/node_test_util.h"

namespace dralloc::node {
namespace {

using testing::TempDir;

ClaimInfo Claim(const std::string& uid, const std::string& pod) {
  ClaimInfo claim;
  claim.uid = uid;
  claim.namespace_ = "default";
  claim.name = "claim-" + uid;
  claim.pod_uids = {pod};
  claim.drivers["gpu.example.com"] = {
      true, {{{"gpu"}, "node-a", "gpu-0", {"k8s.gpu.example.com/gpu=" + uid}}}};
  return claim;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

Status Put(ClaimInfoCache& cache, const ClaimInfo& claim) {
  return cache.Mutate(
      [&](ClaimInfoCache::Transaction& tx) { tx.Edit(claim.uid) = claim; });
}

std::unique_ptr<ClaimInfoCache> OpenOrDie(const std::string& dir) {
  auto cache = ClaimInfoCache::Open(dir);
  EXPECT_TRUE(cache.ok()) << cache.status();
  return cache.ok() ? std::move(*cache) : nullptr;
}

TEST(ClaimInfoCache, ChangesAreJournaledAndFoldedAtOpen) {
  TempDir dir;
  auto cache = OpenOrDie(dir.path());
  const std::string snapshot = ReadFile(cache->checkpoint_path());
  const std::string journal = cache->checkpoint_path() + ".journal";
  ASSERT_TRUE(Put(*cache, Claim("u1", "p1")).ok());
  ASSERT_TRUE(Put(*cache, Claim("u2", "p2")).ok());
  ASSERT_TRUE(
      cache->Mutate([](ClaimInfoCache::Transaction& tx) { tx.Erase("u1"); })
          .ok());
  // Only the changes were written: three records, the snapshot untouched.
  EXPECT_EQ(ReadFile(cache->checkpoint_path()), snapshot);
  EXPECT_EQ(Lines(ReadFile(journal)), 3u);
  ASSERT_TRUE(cache->Sync().ok());

  auto reopened = OpenOrDie(dir.path());
  EXPECT_FALSE(reopened->Get("u1").has_value());
  EXPECT_EQ(reopened->Get("u2"), Claim("u2", "p2"));
  EXPECT_EQ(ReadFile(journal), "");  // folded into the snapshot
  auto loaded = Checkpoint(dir.path()).Load();
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(*loaded, std::vector<ClaimInfo>{Claim("u2", "p2")});
}

TEST(ClaimInfoCache, UnchangedClaimsWriteNothing) {
  TempDir dir;
  auto cache = OpenOrDie(dir.path());
  ASSERT_TRUE(Put(*cache, Claim("u1", "p1")).ok());
  const std::string journal = ReadFile(cache->checkpoint_path() + ".journal");
  ASSERT_TRUE(cache
                  ->Mutate([](ClaimInfoCache::Transaction& tx) {
                    tx.Edit("u1").pod_uids.insert("p1");  // already there
                    tx.Erase("absent");
                  })
                  .ok());
  EXPECT_EQ(ReadFile(cache->checkpoint_path() + ".journal"), journal);
}

std::vector<std::string> UidsOf(const std::vector<ClaimInfo>& claims) {
  std::vector<std::string> uids;
  for (const ClaimInfo& claim : claims) uids.push_back(claim.uid);
  return uids;
}

TEST(ClaimInfoCache, ClaimsOfPodFollowsEveryChange) {
  TempDir dir;
  auto cache = OpenOrDie(dir.path());
  ASSERT_TRUE(Put(*cache, Claim("u1", "p1")).ok());
  ASSERT_TRUE(Put(*cache, Claim("u2", "p1")).ok());
  ASSERT_TRUE(cache
                  ->Mutate([](ClaimInfoCache::Transaction& tx) {
                    tx.Edit("u2").pod_uids.insert("p2");
                    tx.Edit("u1").pod_uids.erase("p1");
                  })
                  .ok());
  EXPECT_EQ(UidsOf(cache->ClaimsOfPod("p1")), std::vector<std::string>{"u2"});
  EXPECT_EQ(UidsOf(cache->ClaimsOfPod("p2")), std::vector<std::string>{"u2"});
  ASSERT_TRUE(
      cache->Mutate([](ClaimInfoCache::Transaction& tx) { tx.Erase("u2"); })
          .ok());
  EXPECT_TRUE(cache->ClaimsOfPod("p1").empty());
  // The index is rebuilt from the checkpoint at Open.
  ASSERT_TRUE(Put(*cache, Claim("u3", "p3")).ok());
  auto reopened = OpenOrDie(dir.path());
  EXPECT_EQ(UidsOf(reopened->ClaimsOfPod("p3")),
            std::vector<std::string>{"u3"});
}

TEST(ClaimInfoCache, TornLastRecordIsDroppedAndCutOff) {
  TempDir dir;
  {
    auto cache = OpenOrDie(dir.path());
    ASSERT_TRUE(Put(*cache, Claim("u1", "p1")).ok());
  }
  const std::string journal = dir.Sub("dra_manager_state.journal");
  // A crash in the middle of appending the second record.
  const std::string second = Checkpoint::EncodePut(Claim("u2", "p2"));
  std::ofstream(journal, std::ios::app) << second.substr(0, 40);
  auto cache = OpenOrDie(dir.path());
  EXPECT_TRUE(cache->Get("u1").has_value());
  EXPECT_FALSE(cache->Get("u2").has_value());
  // The torn bytes are gone: new records follow good ones.
  ASSERT_TRUE(Put(*cache, Claim("u3", "p3")).ok());
  auto reopened = OpenOrDie(dir.path());
  EXPECT_TRUE(reopened->Get("u3").has_value());
}

TEST(ClaimInfoCache, CorruptRecordInTheMiddleIsDataLoss) {
  TempDir dir;
  const std::string journal = dir.Sub("dra_manager_state.journal");
  std::string good = Checkpoint::EncodePut(Claim("u1", "p1"));
  std::string bad = good;
  bad[20] = bad[20] == 'x' ? 'y' : 'x';
  std::ofstream(journal) << bad << good;
  auto cache = ClaimInfoCache::Open(dir.path());
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(cache.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(cache.status().message().find(journal + " is corrupt: line 1"),
            std::string::npos)
      << cache.status().message();
}

TEST(ClaimInfoCache, ReplayOverANewerSnapshotChangesNothing) {
  // A crash after the snapshot was written but before the journal was
  // emptied: the journal's records are already in the snapshot.
  TempDir dir;
  Checkpoint checkpoint(dir.path());
  ASSERT_TRUE(checkpoint.Save({Claim("u2", "p2")}).ok());
  std::ofstream(checkpoint.journal_path())
      << Checkpoint::EncodePut(Claim("u1", "p1"))
      << Checkpoint::EncodePut(Claim("u2", "p2"))
      << Checkpoint::EncodeDelete("u1");
  auto loaded = checkpoint.Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(*loaded, std::vector<ClaimInfo>{Claim("u2", "p2")});
}

TEST(ClaimInfoCache, JournalIsCompactedAsItGrows) {
  TempDir dir;
  auto cache = OpenOrDie(dir.path());
  const std::string journal = cache->checkpoint_path() + ".journal";
  uintmax_t largest = 0;
  for (int i = 0; i < 3000; ++i) {
    ASSERT_TRUE(Put(*cache, Claim("u" + std::to_string(i % 50),
                                  "p" + std::to_string(i)))
                    .ok());
    largest = std::max(largest, std::filesystem::file_size(journal));
  }
  // 3,000 records of ~300 bytes would be ~900 KB without compaction.
  EXPECT_LT(largest, 300u << 10);
  auto loaded = Checkpoint(dir.path()).Load();
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 50u);
  auto last = std::find_if(loaded->begin(), loaded->end(),
                           [](const ClaimInfo& c) { return c.uid == "u49"; });
  ASSERT_NE(last, loaded->end());
  EXPECT_EQ(*last, Claim("u49", "p2999"));
}

TEST(ClaimInfoCache, ConcurrentChangesAndSyncsAllLand) {
  TempDir dir;
  auto cache = OpenOrDie(dir.path());
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const std::string uid = std::to_string(t) + "-" + std::to_string(i);
        EXPECT_TRUE(Put(*cache, Claim(uid, "p")).ok());
        EXPECT_TRUE(cache->Sync().ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  auto reopened = OpenOrDie(dir.path());
  EXPECT_EQ(reopened->size(), 400u);
}

// A journal write that fails (here: the file size limit) undoes the change
// in memory and leaves no partial record behind.
TEST(ClaimInfoCache, FailedWriteUndoesTheChange) {
  TempDir dir;
  auto cache = OpenOrDie(dir.path());
  ASSERT_TRUE(Put(*cache, Claim("u1", "p1")).ok());
  const uintmax_t size =
      std::filesystem::file_size(cache->checkpoint_path() + ".journal");
  struct rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto* previous = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = size + 10;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  Status written = Put(*cache, Claim("u2", "p2"));
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, previous);
  EXPECT_FALSE(written.ok());
  EXPECT_NE(written.message().find("dra_manager_state.journal"),
            std::string::npos)
      << written.message();
  EXPECT_FALSE(cache->Get("u2").has_value());
  EXPECT_EQ(std::filesystem::file_size(cache->checkpoint_path() + ".journal"),
            size);
  auto reopened = OpenOrDie(dir.path());
  EXPECT_TRUE(reopened->Get("u1").has_value());
  EXPECT_FALSE(reopened->Get("u2").has_value());
}

}  // namespace
}  // namespace dralloc::node
