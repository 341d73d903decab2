// timeAdded of device taints as the API server sets it (upstream's
// SetDefaults_DeviceTaint and the DeviceTaintRule strategy).
#include <gtest/gtest.h>

#include "api/object.h"
#include "api/resource_registry.h"
#include "registry/strategy.h"

namespace dralloc::registry {
namespace {

constexpr const char* kEarlier = "2020-01-01T00:00:00Z";

const api::ResourceInfo& Info(std::string_view kind) {
  return *api::FindResourceByKind(kind);
}

api::DeviceTaintRule Rule(std::string effect,
                          std::optional<std::string> added) {
  api::DeviceTaintRule rule;
  rule.metadata.name = "rule";
  rule.spec.taint = {.key = "example.com/broken",
                     .value = "",
                     .effect = std::move(effect),
                     .time_added = std::move(added)};
  rule.status.conditions.push_back({.type = "EvictionInProgress"});
  return rule;
}

TEST(DeviceTaintRuleStrategyTest, CreateStampsTimeAddedAndDropsStatus) {
  api::Object object = Rule("NoExecute", std::nullopt);
  StrategyFor(object).PrepareForCreate(object);
  const auto& rule = std::get<api::DeviceTaintRule>(object);
  ASSERT_TRUE(rule.spec.taint.time_added.has_value());
  EXPECT_NE(*rule.spec.taint.time_added, kEarlier);
  EXPECT_TRUE(rule.status.conditions.empty());

  api::Object given = Rule("NoExecute", kEarlier);
  StrategyFor(given).PrepareForCreate(given);
  EXPECT_EQ(std::get<api::DeviceTaintRule>(given).spec.taint.time_added,
            kEarlier);
}

TEST(DeviceTaintRuleStrategyTest, EffectChangeRestampsUnlessClientDid) {
  const api::Object old = Rule("None", kEarlier);
  api::Object changed = Rule("NoExecute", kEarlier);
  StrategyFor(changed).PrepareForUpdate(Info("DeviceTaintRule"), changed, old,
                                        WritePart::kObject);
  EXPECT_NE(std::get<api::DeviceTaintRule>(changed).spec.taint.time_added,
            kEarlier);

  api::Object own_time = Rule("NoExecute", "2021-01-01T00:00:00Z");
  StrategyFor(own_time).PrepareForUpdate(Info("DeviceTaintRule"), own_time, old,
                                         WritePart::kObject);
  EXPECT_EQ(std::get<api::DeviceTaintRule>(own_time).spec.taint.time_added,
            "2021-01-01T00:00:00Z");

  api::Object same_effect = Rule("None", kEarlier);
  StrategyFor(same_effect)
      .PrepareForUpdate(Info("DeviceTaintRule"), same_effect, old,
                        WritePart::kObject);
  EXPECT_EQ(std::get<api::DeviceTaintRule>(same_effect).spec.taint.time_added,
            kEarlier);
}

TEST(ResourceSliceStrategyTest, DeviceTaintsGetTimeAdded) {
  api::ResourceSlice slice;
  slice.metadata.name = "slice";
  slice.spec.driver = "gpu.example.com";
  slice.spec.pool.name = "pool";
  slice.spec.devices.resize(1);
  slice.spec.devices[0].name = "gpu-0";
  slice.spec.devices[0].taints = {
      {.key = "a", .value = "", .effect = "NoExecute", .time_added = {}},
      {.key = "b", .value = "", .effect = "NoExecute", .time_added = kEarlier}};
  api::Object created = slice;
  StrategyFor(created).PrepareForCreate(created);
  const auto& taints =
      std::get<api::ResourceSlice>(created).spec.devices[0].taints;
  ASSERT_TRUE(taints[0].time_added.has_value());
  EXPECT_EQ(taints[1].time_added, kEarlier);

  api::Object updated = slice;
  StrategyFor(updated).PrepareForUpdate(Info("ResourceSlice"), updated, created,
                                        WritePart::kObject);
  EXPECT_TRUE(std::get<api::ResourceSlice>(updated)
                  .spec.devices[0]
                  .taints[0]
                  .time_added.has_value());
}

}  // namespace
}  // namespace dralloc::registry
