// DeviceHealthCache: what a stream message changes, timeouts, a driver's
// stream ending, message truncation. Time is passed in explicitly.
#include "node/device_health_cache.h"

#include <gtest/gtest.h>

namespace dralloc::node {
namespace {

using namespace std::chrono_literals;
using Clock = DeviceHealthCache::Clock;
constexpr char kDriver[] = "gpu.example.com";

DeviceKey Key(std::string device) { return {kDriver, "pool", device}; }
DeviceHealthReport Report(std::string device, DeviceHealthStatus health,
                          std::string message = "", int64_t timeout = 0) {
  return {"pool", std::move(device), health, std::move(message), timeout};
}

TEST(DeviceHealthCache, UnreportedDeviceIsUnknown) {
  DeviceHealthCache cache;
  EXPECT_EQ(cache.Get(Key("gpu-0"), Clock::now()).health,
            DeviceHealthStatus::kUnknown);
}

TEST(DeviceHealthCache, UpdateReportsOnlyChanges) {
  DeviceHealthCache cache;
  const auto t0 = Clock::now();
  const auto healthy = DeviceHealthStatus::kHealthy;
  const auto unhealthy = DeviceHealthStatus::kUnhealthy;
  struct Step {
    std::vector<DeviceHealthReport> message;
    std::vector<DeviceKey> changed;
  };
  const std::vector<Step> steps = {
      {{Report("gpu-0", healthy), Report("gpu-1", healthy)},
       {Key("gpu-0"), Key("gpu-1")}},
      {{Report("gpu-0", healthy), Report("gpu-1", healthy)}, {}},
      {{Report("gpu-0", healthy), Report("gpu-1", unhealthy, "ECC")},
       {Key("gpu-1")}},
      {{Report("gpu-0", healthy), Report("gpu-1", unhealthy, "ECC x2")},
       {Key("gpu-1")}},
      // Reported Unknown from the start: nothing visible changes.
      {{Report("gpu-0", healthy), Report("gpu-1", unhealthy, "ECC x2"),
        Report("gpu-2", DeviceHealthStatus::kUnknown)},
       {}},
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(cache.Update(kDriver, steps[i].message, t0), steps[i].changed)
        << "step " << i;
  }
  DeviceHealthInfo gpu1 = cache.Get(Key("gpu-1"), t0);
  EXPECT_EQ(gpu1.health, unhealthy);
  EXPECT_EQ(gpu1.message, "ECC x2");
}

TEST(DeviceHealthCache, TimeoutMakesUnknown) {
  DeviceHealthCache cache;
  const auto t0 = Clock::now();
  cache.Update(kDriver,
               {Report("gpu-0", DeviceHealthStatus::kUnhealthy, "hot", 5),
                Report("gpu-1", DeviceHealthStatus::kHealthy)},
               t0);
  // gpu-0 times out after its own 5 s, gpu-1 after the default 30 s.
  EXPECT_EQ(cache.Get(Key("gpu-0"), t0 + 5s).health,
            DeviceHealthStatus::kUnhealthy);
  EXPECT_EQ(cache.Get(Key("gpu-0"), t0 + 6s).health,
            DeviceHealthStatus::kUnknown);
  EXPECT_EQ(cache.Get(Key("gpu-0"), t0 + 6s).message, "");
  EXPECT_TRUE(cache.ExpireStale(t0 + 5s).empty());
  EXPECT_EQ(cache.ExpireStale(t0 + 6s), std::vector<DeviceKey>{Key("gpu-0")});
  EXPECT_TRUE(cache.ExpireStale(t0 + 7s).empty());  // already Unknown
  EXPECT_EQ(cache.Get(Key("gpu-1"), t0 + 30s).health,
            DeviceHealthStatus::kHealthy);
  EXPECT_EQ(cache.ExpireStale(t0 + 31s), std::vector<DeviceKey>{Key("gpu-1")});
}

TEST(DeviceHealthCache, DeviceLeftOutOfAMessageTimesOut) {
  DeviceHealthCache cache;
  const auto t0 = Clock::now();
  cache.Update(kDriver,
               {Report("gpu-0", DeviceHealthStatus::kHealthy, "", 2),
                Report("gpu-1", DeviceHealthStatus::kHealthy, "", 2)},
               t0);
  const std::vector<DeviceHealthReport> only_gpu0 = {
      Report("gpu-0", DeviceHealthStatus::kHealthy, "", 2)};
  EXPECT_TRUE(cache.Update(kDriver, only_gpu0, t0 + 1s).empty());
  EXPECT_EQ(cache.Update(kDriver, only_gpu0, t0 + 3s),
            std::vector<DeviceKey>{Key("gpu-1")});
  EXPECT_EQ(cache.Get(Key("gpu-0"), t0 + 3s).health,
            DeviceHealthStatus::kHealthy);
  EXPECT_EQ(cache.Get(Key("gpu-1"), t0 + 3s).health,
            DeviceHealthStatus::kUnknown);
}

TEST(DeviceHealthCache, ClearDriverReportsKnownDevices) {
  DeviceHealthCache cache;
  const auto t0 = Clock::now();
  cache.Update(kDriver,
               {Report("gpu-0", DeviceHealthStatus::kHealthy),
                Report("gpu-1", DeviceHealthStatus::kUnknown)},
               t0);
  cache.Update("other.example.com",
               {{"p", "d", DeviceHealthStatus::kHealthy, "", 0}}, t0);
  EXPECT_EQ(cache.ClearDriver(kDriver), std::vector<DeviceKey>{Key("gpu-0")});
  EXPECT_EQ(cache.Get(Key("gpu-0"), t0).health, DeviceHealthStatus::kUnknown);
  EXPECT_EQ(cache.Get({"other.example.com", "p", "d"}, t0).health,
            DeviceHealthStatus::kHealthy);
  EXPECT_TRUE(cache.ClearDriver(kDriver).empty());
}

TEST(DeviceHealthCache, LongMessageIsTruncated) {
  EXPECT_EQ(TruncateHealthMessage("short"), "short");
  const std::string exact(kMaxHealthMessageLength, 'x');
  EXPECT_EQ(TruncateHealthMessage(exact), exact);
  const std::string cut = TruncateHealthMessage(std::string(2000, 'y'));
  EXPECT_EQ(cut.size(), kMaxHealthMessageLength);
  EXPECT_TRUE(cut.ends_with("yyy..."));
}

}  // namespace
}  // namespace dralloc::node
