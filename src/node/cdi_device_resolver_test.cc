// CdiDeviceResolver over a WatchedRegistry: a per-claim spec written just
// before Resolve (as a driver does before answering NodePrepareResources)
// resolves without listing the CDI directories again, from many workers.
#include "node/cdi_device_resolver.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "node/node_test_util.h"

namespace dralloc::node {
namespace {

namespace fs = std::filesystem;

cdi::Spec ClaimSpec(const std::string& claim) {
  cdi::Spec spec;
  spec.kind = "gpu.example.com/gpu";
  cdi::Device device;
  device.name = claim + "-gpu-0";
  device.container_edits.env = {"GPU_DEVICE_0=" + claim};
  spec.devices.push_back(std::move(device));
  return spec;
}

Status WriteClaimSpec(const fs::path& dir, const std::string& claim) {
  return cdi::WriteSpecFile(
      ClaimSpec(claim),
      dir / cdi::TransientSpecFileName("gpu.example.com/gpu", claim));
}

std::vector<std::string> ClaimIds(const std::string& claim) {
  return {"gpu.example.com/gpu=" + claim + "-gpu-0"};
}

TEST(CdiDeviceResolverTest, SpecWrittenJustBeforeResolvesWithoutAScan) {
  testing::TempDir dir;
  const fs::path etc = dir.Sub("etc"), run = dir.Sub("run");
  fs::create_directories(run);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(WriteClaimSpec(run, "old-" + std::to_string(i)).ok());
  }
  CdiDeviceResolver resolver({etc, run});
  const uint64_t scans = resolver.registry().stats().directory_scans;
  for (int i = 0; i < 5; ++i) {
    const std::string claim = "claim-" + std::to_string(i);
    ASSERT_TRUE(WriteClaimSpec(run, claim).ok());
    StatusOr<cdi::ContainerEdits> edits = resolver.Resolve(ClaimIds(claim));
    ASSERT_TRUE(edits.ok()) << edits.status();
    EXPECT_EQ(edits->env, std::vector<std::string>{"GPU_DEVICE_0=" + claim});
  }
  cdi::WatchedRegistry::Stats stats = resolver.registry().stats();
  EXPECT_EQ(stats.directory_scans, scans);
  EXPECT_EQ(stats.full_rescans, 0u);
  EXPECT_LE(stats.files_read, 5u);
}

TEST(CdiDeviceResolverTest, UnknownIdNamesTheSpecFilesThatFailed) {
  testing::TempDir dir;
  const fs::path run = dir.Sub("run");
  CdiDeviceResolver resolver({run});  // the directory comes later
  fs::create_directories(run);
  std::ofstream(run / "broken.json") << "{";
  StatusOr<cdi::ContainerEdits> edits = resolver.Resolve(ClaimIds("x"));
  ASSERT_EQ(edits.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(edits.status().message().starts_with(
      "unresolvable CDI devices: gpu.example.com/gpu=x-gpu-0; cdi spec " +
      (run / "broken.json").string() + ": "))
      << edits.status();
}

TEST(CdiDeviceResolverTest, ParallelWorkersPrepareAndResolve) {
  testing::TempDir dir;
  const fs::path run = dir.Sub("run");
  fs::create_directories(run);
  CdiDeviceResolver resolver({run});
  constexpr int kWorkers = 4, kClaims = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&, w] {
      for (int c = 0; c < kClaims; ++c) {
        const std::string claim =
            "w" + std::to_string(w) + "c" + std::to_string(c);
        if (!WriteClaimSpec(run, claim).ok() ||
            !resolver.Resolve(ClaimIds(claim)).ok()) {
          ++failures;
        }
        // Unprepare every other claim: its spec goes away.
        if (c % 2 == 0) {
          fs::remove(run /
                     cdi::TransientSpecFileName("gpu.example.com/gpu", claim));
        }
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(resolver.registry().stats().full_rescans, 0u);
  EXPECT_TRUE(testing::WaitFor([&] {
    return resolver.registry().Devices().size() == kWorkers * kClaims / 2;
  }));
}

}  // namespace
}  // namespace dralloc::node
