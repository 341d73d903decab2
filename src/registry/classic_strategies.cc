// The resource.k8s.io/v1alpha2 (classic DRA) kinds, with the update rules
// of Kubernetes 1.30's strategies (pkg/registry/resource/*/strategy.go at
// 1.30): a new claim or scheduling context starts without status, a
// claim's and a template's spec are immutable, a slice keeps its node and
// driver, and status writes follow 1.30's status update validation. The
// create checks run in api::Validate; only what needs the old object is
// here.
#include <string>

#include "api/v1alpha2/validation.h"
#include "registry/kind_strategies.h"

namespace dralloc::registry {
namespace {

namespace v1alpha2 = api::v1alpha2;

constexpr std::string_view kImmutable = "field is immutable";

class ClassicResourceClaimRules final : public ResourceStrategy {
 public:
  void PrepareForCreate(api::Object& object) const override {
    std::get<v1alpha2::ResourceClaim>(object).status = {};
  }

  api::ErrorList ValidateUpdate(const api::Object& next,
                                const api::Object& old) const override {
    const auto& after = std::get<v1alpha2::ResourceClaim>(next);
    const auto& before = std::get<v1alpha2::ResourceClaim>(old);
    api::ErrorList errors;
    if (after.spec != before.spec) {
      errors.push_back(
          api::Invalid(api::FieldPath("spec"), "", std::string(kImmutable)));
    }
    if (after.status != before.status) {
      for (api::FieldError& error :
           v1alpha2::ValidateResourceClaimStatusUpdate(after, before)) {
        errors.push_back(std::move(error));
      }
    }
    return errors;
  }
};

class ClassicResourceClaimTemplateRules final : public ResourceStrategy {
 public:
  api::ErrorList ValidateUpdate(const api::Object& next,
                                const api::Object& old) const override {
    if (std::get<v1alpha2::ResourceClaimTemplate>(next).spec ==
        std::get<v1alpha2::ResourceClaimTemplate>(old).spec) {
      return {};
    }
    return {api::Invalid(api::FieldPath("spec"), "", std::string(kImmutable))};
  }
};

class PodSchedulingContextRules final : public ResourceStrategy {
 public:
  void PrepareForCreate(api::Object& object) const override {
    std::get<v1alpha2::PodSchedulingContext>(object).status = {};
  }

  api::ErrorList ValidateUpdate(const api::Object& next,
                                const api::Object& old) const override {
    const auto& after = std::get<v1alpha2::PodSchedulingContext>(next);
    const auto& before = std::get<v1alpha2::PodSchedulingContext>(old);
    if (after.status == before.status) return {};
    return v1alpha2::ValidatePodSchedulingContextStatusUpdate(after, before);
  }
};

class ClassicResourceSliceRules final : public ResourceStrategy {
 public:
  api::ErrorList ValidateUpdate(const api::Object& next,
                                const api::Object& old) const override {
    const auto& after = std::get<v1alpha2::ResourceSlice>(next);
    const auto& before = std::get<v1alpha2::ResourceSlice>(old);
    api::ErrorList errors;
    if (after.node_name != before.node_name) {
      errors.push_back(api::InvalidString(api::FieldPath("nodeName"),
                                          after.node_name,
                                          std::string(kImmutable)));
    }
    if (after.driver_name != before.driver_name) {
      errors.push_back(api::InvalidString(api::FieldPath("driverName"),
                                          after.driver_name,
                                          std::string(kImmutable)));
    }
    return errors;
  }
};

}  // namespace

const ResourceStrategy& ClassicResourceClaimStrategy() {
  static const ClassicResourceClaimRules kRules;
  return kRules;
}

const ResourceStrategy& ClassicResourceClaimTemplateStrategy() {
  static const ClassicResourceClaimTemplateRules kRules;
  return kRules;
}

const ResourceStrategy& PodSchedulingContextStrategy() {
  static const PodSchedulingContextRules kRules;
  return kRules;
}

const ResourceStrategy& ClassicResourceSliceStrategy() {
  static const ClassicResourceSliceRules kRules;
  return kRules;
}

}  // namespace dralloc::registry
