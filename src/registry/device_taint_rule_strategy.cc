// DeviceTaintRules (upstream pkg/registry/resource/devicetaintrule/
// strategy.go) and the timeAdded default of every DeviceTaint (upstream's
// SetDefaults_DeviceTaint): a taint without timeAdded gets the time of the
// write, in whole seconds.
#include "common/clock.h"
#include "registry/kind_strategies.h"

namespace dralloc::registry {
namespace {

class DeviceTaintRuleRules final : public ResourceStrategy {
 public:
  // A new rule has no status; its taint is stamped.
  void PrepareForCreate(api::Object& object) const override {
    auto& rule = std::get<api::DeviceTaintRule>(object);
    rule.status = {};
    DefaultDeviceTaintTimeAdded(rule.spec.taint);
  }

  // As upstream: a spec write that changes the effect but keeps timeAdded
  // gets a new timeAdded, so that it tells when the *effect* was added
  // (tolerationSeconds count from it).
  void PrepareForUpdate(const api::ResourceInfo& info, api::Object& next,
                        const api::Object& old, WritePart part) const override {
    ResourceStrategy::PrepareForUpdate(info, next, old, part);
    auto& rule = std::get<api::DeviceTaintRule>(next);
    const auto& before = std::get<api::DeviceTaintRule>(old);
    api::DeviceTaint& taint = rule.spec.taint;
    if (taint.effect != before.spec.taint.effect &&
        taint.time_added == before.spec.taint.time_added) {
      taint.time_added.reset();
    }
    DefaultDeviceTaintTimeAdded(taint);
  }
};

}  // namespace

void DefaultDeviceTaintTimeAdded(api::DeviceTaint& taint) {
  if (!taint.time_added.has_value()) taint.time_added = NowRfc3339();
}

const ResourceStrategy& DeviceTaintRuleStrategy() {
  static const DeviceTaintRuleRules kRules;
  return kRules;
}

}  // namespace dralloc::registry
