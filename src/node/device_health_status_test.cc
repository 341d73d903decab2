// SetAllocatedResourcesStatus against the cases in tests/node/health/
// (format in its README), and PodsUsingDevices.
#include "node/device_health_status.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "api/codec.h"
#include "node/simulated_runtime.h"

namespace dralloc::node {
namespace {

using nlohmann::json;
constexpr char kCases[] = "tests/node/health";

std::vector<ClaimInfo> ClaimsOf(const json& claims) {
  std::vector<ClaimInfo> out;
  for (const json& c : claims) {
    ClaimInfo claim;
    claim.name = c.at("name");
    claim.namespace_ = c.at("namespace");
    claim.uid = c.at("uid");
    for (const json& uid : c.at("podUIDs")) claim.pod_uids.insert(uid);
    for (const auto& [driver, devices] : c.at("drivers").items()) {
      DriverClaimState& state = claim.drivers[driver];
      state.prepared = true;
      for (const json& d : devices) {
        state.devices.push_back(
            {d.at("requests").get<std::vector<std::string>>(), d.at("pool"),
             d.at("device"), d.at("cdi").get<std::vector<std::string>>(),
             std::nullopt});
      }
    }
    out.push_back(std::move(claim));
  }
  return out;
}

DeviceHealthStatus HealthOf(const std::string& name) {
  if (name == "Healthy") return DeviceHealthStatus::kHealthy;
  if (name == "Unhealthy") return DeviceHealthStatus::kUnhealthy;
  return DeviceHealthStatus::kUnknown;
}

void RunCase(const std::filesystem::path& file) {
  SCOPED_TRACE(file.string());
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const json spec = json::parse(text.str());
  auto decoded = api::DecodeDocument(spec.at("pod").dump());
  ASSERT_EQ(decoded.size(), 1u);
  ASSERT_TRUE(decoded[0].object.has_value());
  const api::Pod pod = std::get<api::Pod>(*decoded[0].object);

  DeviceHealthCache health;
  const auto now = DeviceHealthCache::Clock::now();
  std::map<std::string, std::vector<DeviceHealthReport>> by_driver;
  for (const json& h : spec.at("health")) {
    by_driver[h.at("driver")].push_back({h.at("pool"), h.at("device"),
                                         HealthOf(h.at("health")),
                                         h.at("message"), 0});
  }
  for (const auto& [driver, reports] : by_driver) {
    health.Update(driver, reports, now);
  }

  api::PodStatus status = pod.status;
  SetAllocatedResourcesStatus(pod, ClaimsOf(spec.at("claims")), health, status);
  const api::RawJson* got =
      FindUnknownField(status.unknown_fields, "containerStatuses");
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(json::parse(got->json), spec.at("want"))
      << "got: " << json::parse(got->json).dump(2);
}

TEST(AllocatedResourcesStatus, Cases) {
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCases)) {
    if (entry.path().extension() != ".json") continue;
    RunCase(entry.path());
    ++cases;
  }
  EXPECT_GE(cases, 3);
}

TEST(AllocatedResourcesStatus, NoContainerStatusesNoChange) {
  api::Pod pod;
  pod.metadata.uid = "u";
  api::PodStatus status;
  SetAllocatedResourcesStatus(pod, {}, DeviceHealthCache(), status);
  EXPECT_TRUE(status.unknown_fields.empty());
}

TEST(AllocatedResourcesStatus, PodsUsingDevices) {
  ClaimInfo a;
  a.uid = "a";
  a.pod_uids = {"pod-1", "pod-2"};
  a.drivers["d"].devices.push_back({{}, "pool", "gpu-0", {}, std::nullopt});
  ClaimInfo b;
  b.uid = "b";
  b.pod_uids = {"pod-3"};
  b.drivers["d"].devices.push_back({{}, "pool", "gpu-1", {}, std::nullopt});
  b.drivers["e"].devices.push_back({{}, "pool", "gpu-0", {}, std::nullopt});
  const std::vector<ClaimInfo> claims = {a, b};
  EXPECT_EQ(PodsUsingDevices(claims, {{"d", "pool", "gpu-0"}}),
            (std::set<std::string>{"pod-1", "pod-2"}));
  EXPECT_EQ(PodsUsingDevices(claims,
                             {{"e", "pool", "gpu-0"}, {"d", "pool", "gpu-1"}}),
            (std::set<std::string>{"pod-3"}));
  EXPECT_TRUE(PodsUsingDevices(claims, {{"d", "other", "gpu-0"}}).empty());
}

}  // namespace
}  // namespace dralloc::node
