// Resource slices (upstream pkg/registry/resource/resourceslice/
// strategy.go): the driver, pool name and node name are immutable; device
// taints without timeAdded get the time of the write.
#include "registry/kind_strategies.h"

namespace dralloc::registry {
namespace {

void DefaultSliceTaintTimes(api::Object& object) {
  for (api::Device& device :
       std::get<api::ResourceSlice>(object).spec.devices) {
    for (api::DeviceTaint& taint : device.taints) {
      DefaultDeviceTaintTimeAdded(taint);
    }
  }
}

class ResourceSliceRules final : public ResourceStrategy {
 public:
  void PrepareForCreate(api::Object& object) const override {
    DefaultSliceTaintTimes(object);
  }
  void PrepareForUpdate(const api::ResourceInfo& info, api::Object& next,
                        const api::Object& old, WritePart part) const override {
    ResourceStrategy::PrepareForUpdate(info, next, old, part);
    DefaultSliceTaintTimes(next);
  }
  api::ErrorList ValidateUpdate(const api::Object& next,
                                const api::Object& old) const override {
    const auto& after = std::get<api::ResourceSlice>(next).spec;
    const auto& before = std::get<api::ResourceSlice>(old).spec;
    api::ErrorList errors;
    const auto immutable = [&](bool same, std::string_view field) {
      if (!same) {
        errors.push_back(
            api::Invalid(api::FieldPath(field), "", "field is immutable"));
      }
    };
    immutable(after.driver == before.driver, "spec.driver");
    immutable(after.pool.name == before.pool.name, "spec.pool.name");
    immutable(after.node_name == before.node_name, "spec.nodeName");
    return errors;
  }
};

}  // namespace

const ResourceStrategy& ResourceSliceStrategy() {
  static const ResourceSliceRules kRules;
  return kRules;
}

}  // namespace dralloc::registry
