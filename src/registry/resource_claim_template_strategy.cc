// Resource claim templates (upstream pkg/registry/resource/
// resourceclaimtemplate/strategy.go): the spec is immutable; admin access
// in the template's claim spec needs the namespace label, as for a claim.
#include "registry/kind_strategies.h"
#include "registry/resource_claim_strategy.h"

namespace dralloc::registry {
namespace {

class ResourceClaimTemplateRules final : public ResourceStrategy {
 public:
  api::ErrorList ValidateUpdate(const api::Object& next,
                                const api::Object& old) const override {
    if (std::get<api::ResourceClaimTemplate>(next).spec ==
        std::get<api::ResourceClaimTemplate>(old).spec) {
      return {};
    }
    return {api::Invalid(api::FieldPath("spec"), "", "field is immutable")};
  }

  api::ErrorList AdmitCreate(const api::Object& object,
                             const NamespaceLookup& namespaces) const override {
    const auto& tmpl = std::get<api::ResourceClaimTemplate>(object);
    return AdminAccessErrors(tmpl.spec.spec,
                             api::FieldPath("spec").Child("spec"),
                             tmpl.metadata.namespace_, namespaces);
  }
};

}  // namespace

const ResourceStrategy& ResourceClaimTemplateStrategy() {
  static const ResourceClaimTemplateRules kRules;
  return kRules;
}

}  // namespace dralloc::registry
