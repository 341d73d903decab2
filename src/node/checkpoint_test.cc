#include "node/checkpoint.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "node/claim_info_cache.h"
#include "node/node_test_util.h"

namespace dralloc::node {
namespace {

using testing::TempDir;

ClaimInfo SampleClaim() {
  ClaimInfo claim;
  claim.uid = "u1";
  claim.namespace_ = "default";
  claim.name = "gpu";
  claim.pod_uids = {"p1", "p2"};
  claim.drivers["gpu.example.com"] = {true,
                                      {{{"gpu"},
                                        "node-a",
                                        "gpu-0",
                                        {"k8s.gpu.example.com/gpu=u1-gpu-0"},
                                        "share-1"}}};
  claim.drivers["net.example.com"] = {false, {}};
  return claim;
}

TEST(Checkpoint, MissingFileIsEmptyAndSaveRoundTrips) {
  TempDir dir;
  Checkpoint checkpoint(dir.Sub("state"));
  auto empty = checkpoint.Load();
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->empty());

  ASSERT_TRUE(checkpoint.Save({SampleClaim()}).ok());
  EXPECT_EQ(checkpoint.path(), dir.Sub("state/dra_manager_state"));
  EXPECT_FALSE(std::filesystem::exists(checkpoint.path() + ".tmp"));
  auto loaded = Checkpoint(dir.Sub("state")).Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(*loaded, std::vector<ClaimInfo>{SampleClaim()});
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// tests/node/checkpoint/: valid.json loads; every file named in expect.txt
// is refused with kDataLoss and the message given there.
TEST(Checkpoint, DataFiles) {
  const std::string root = "tests/node/checkpoint/";
  auto valid = Checkpoint::Decode(ReadFile(root + "valid.json"), "valid.json");
  ASSERT_TRUE(valid.ok()) << valid.status();
  ASSERT_EQ(valid->size(), 1u);
  EXPECT_EQ((*valid)[0].drivers.at("gpu.example.com").devices[0].cdi_device_ids,
            std::vector<std::string>{"k8s.gpu.example.com/gpu=u1-gpu-0"});

  std::istringstream expect(ReadFile(root + "expect.txt"));
  int cases = 0;
  for (std::string line; std::getline(expect, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(": ");
    const std::string file = line.substr(0, colon);
    const std::string want = line.substr(colon + 2);
    SCOPED_TRACE(file);
    TempDir dir;
    std::filesystem::copy_file(root + file, dir.Sub("dra_manager_state"));
    auto loaded = Checkpoint(dir.path()).Load();
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(loaded.status().message().find(want), std::string::npos)
        << loaded.status().message();
    EXPECT_NE(loaded.status().message().find(dir.Sub("dra_manager_state")),
              std::string::npos);
    ++cases;
  }
  EXPECT_EQ(cases, 5);
}

TEST(ClaimInfoCache, RefusesCorruptCheckpointAndPersistsChanges) {
  TempDir dir;
  std::filesystem::copy_file("tests/node/checkpoint/bad-checksum.json",
                             dir.Sub("dra_manager_state"));
  EXPECT_EQ(ClaimInfoCache::Open(dir.path()).status().code(),
            StatusCode::kDataLoss);

  TempDir fresh;
  auto cache = ClaimInfoCache::Open(fresh.path());
  ASSERT_TRUE(cache.ok());
  ASSERT_TRUE((*cache)
                  ->Mutate([](ClaimInfoCache::Transaction& tx) {
                    tx.Edit("u1") = SampleClaim();
                  })
                  .ok());
  auto reopened = ClaimInfoCache::Open(fresh.path());
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ((*reopened)->Get("u1"), SampleClaim());
}

}  // namespace
}  // namespace dralloc::node
