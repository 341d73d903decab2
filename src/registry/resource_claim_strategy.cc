// Resource claims (upstream pkg/registry/resource/resourceclaim/
// strategy.go): a new claim has no status, the spec is immutable, admin
// access needs the namespace label.
#include "registry/resource_claim_strategy.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/well_known.h"
#include "registry/kind_strategies.h"

namespace dralloc::registry {
namespace {

bool RequestsAdminAccess(const api::DeviceRequest& request) {
  return request.exactly && request.exactly->admin_access.value_or(false);
}

bool NamespaceAllowsAdminAccess(std::string_view namespace_,
                                const NamespaceLookup& namespaces) {
  const std::optional<api::StringMap> labels = namespaces.Labels(namespace_);
  if (!labels) return false;
  auto it = labels->find(std::string(api::kAdminAccessLabel));
  return it != labels->end() && it->second == "true";
}

class ResourceClaimRules final : public ResourceStrategy {
 public:
  void PrepareForCreate(api::Object& object) const override {
    std::get<api::ResourceClaim>(object).status = {};
  }

  api::ErrorList ValidateUpdate(const api::Object& next,
                                const api::Object& old) const override {
    if (std::get<api::ResourceClaim>(next).spec ==
        std::get<api::ResourceClaim>(old).spec) {
      return {};
    }
    return {api::Invalid(api::FieldPath("spec"), "", "field is immutable")};
  }

  api::ErrorList AdmitCreate(const api::Object& object,
                             const NamespaceLookup& namespaces) const override {
    const auto& claim = std::get<api::ResourceClaim>(object);
    return AdminAccessErrors(claim.spec, api::FieldPath("spec"),
                             claim.metadata.namespace_, namespaces);
  }
};

}  // namespace

api::ErrorList AdminAccessErrors(const api::ResourceClaimSpec& spec,
                                 const api::FieldPath& path,
                                 std::string_view namespace_,
                                 const NamespaceLookup& namespaces) {
  const auto& requests = spec.devices.requests;
  if (std::none_of(requests.begin(), requests.end(), RequestsAdminAccess) ||
      NamespaceAllowsAdminAccess(namespace_, namespaces)) {
    return {};
  }
  api::ErrorList errors;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!RequestsAdminAccess(requests[i])) continue;
    errors.push_back(api::Forbidden(
        path.Child("devices")
            .Child("requests")
            .Index(static_cast<int64_t>(i))
            .Child("exactly")
            .Child("adminAccess"),
        fmt::format("admin access to devices requires the `{}: true` label "
                    "on the containing namespace",
                    api::kAdminAccessLabel)));
  }
  return errors;
}

const ResourceStrategy& ResourceClaimStrategy() {
  static const ResourceClaimRules kRules;
  return kRules;
}

}  // namespace dralloc::registry
