// ResourcePoolStatusRequests (upstream pkg/registry/resource/
// resourcepoolstatusrequest/strategy.go, KEP-5677): a new request has no
// status and gets spec.limit's default; the spec never changes; a status,
// once written, never changes either (the request is complete).
#include "registry/kind_strategies.h"

namespace dralloc::registry {
namespace {

class ResourcePoolStatusRequestRules final : public ResourceStrategy {
 public:
  void PrepareForCreate(api::Object& object) const override {
    auto& request = std::get<api::ResourcePoolStatusRequest>(object);
    request.status.reset();
    if (!request.spec.limit.has_value()) {
      request.spec.limit = api::kResourcePoolStatusRequestLimitDefault;
    }
  }

  api::ErrorList ValidateUpdate(const api::Object& next,
                                const api::Object& old) const override {
    const auto& after = std::get<api::ResourcePoolStatusRequest>(next);
    const auto& before = std::get<api::ResourcePoolStatusRequest>(old);
    api::ErrorList errors;
    if (!(after.spec == before.spec)) {
      errors.push_back(
          api::Invalid(api::FieldPath("spec"), "", "field is immutable"));
    }
    if (before.status.has_value() && !(after.status == before.status)) {
      errors.push_back(
          api::Invalid(api::FieldPath("status"), "", "field is immutable"));
    }
    return errors;
  }
};

}  // namespace

const ResourceStrategy& ResourcePoolStatusRequestStrategy() {
  static const ResourcePoolStatusRequestRules kRules;
  return kRules;
}

}  // namespace dralloc::registry
