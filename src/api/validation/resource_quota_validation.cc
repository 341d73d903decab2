// ValidateResourceQuota: upstream pkg/apis/core/validation semantics
// (ValidateResourceQuota): resource names, non-negative (and for integer
// resources whole) quantities, scopes and the scope selector.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace dralloc::api {
namespace {

constexpr std::string_view kRequestsPrefix = "requests.";

// Upstream's standardResources (helper.IsStandardResourceName).
constexpr std::array<std::string_view, 20> kStandardResources = {
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "services",
    "replicationcontrollers",
    "resourcequotas",
    "secrets",
    "persistentvolumeclaims",
    "configmaps",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers"};

// Upstream's standardQuotaResources (helper.IsStandardQuotaResourceName).
constexpr std::array<std::string_view, 19> kStandardQuotaResources = {
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.storage",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "services",
    "replicationcontrollers",
    "resourcequotas",
    "secrets",
    "persistentvolumeclaims",
    "configmaps",
    "services.nodeports",
    "services.loadbalancers"};

// Upstream's integerResources: counts, never fractions.
constexpr std::array<std::string_view, 9> kIntegerResources = {
    "pods",
    "services",
    "replicationcontrollers",
    "resourcequotas",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers"};

// Upstream's standard ResourceQuotaScope values.
constexpr std::array<std::string_view, 7> kStandardScopes = {
    "Terminating",          "NotTerminating", "BestEffort",
    "NotBestEffort",        "PriorityClass",  "CrossNamespacePodAffinity",
    "VolumeAttributesClass"};

template <size_t N>
bool Contains(const std::array<std::string_view, N>& set,
              std::string_view value) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

bool IsHugePagesName(std::string_view name) {
  return name.starts_with("hugepages-") ||
         name.starts_with("requests.hugepages-");
}

// helper.IsNativeResource: unqualified or in the kubernetes.io domain.
bool IsNativeResource(std::string_view name) {
  return name.find('/') == std::string_view::npos ||
         name.find("kubernetes.io/") != std::string_view::npos;
}

// helper.IsExtendedResourceName: a qualified name outside kubernetes.io
// that stays a qualified name with the "requests." prefix.
bool IsExtendedResourceName(std::string_view name) {
  if (IsNativeResource(name) || name.starts_with(kRequestsPrefix)) {
    return false;
  }
  ErrorList errors;
  ValidateQualifiedName(std::string(kRequestsPrefix) + std::string(name),
                        FieldPath("x"), errors);
  return errors.empty();
}

bool IsIntegerResourceName(std::string_view name) {
  return Contains(kIntegerResources, name) || IsExtendedResourceName(name);
}

// ValidateResourceQuotaResourceName: qualified, and an unqualified name
// must be a standard resource and a standard quota resource.
void ValidateQuotaResourceName(const std::string& name, const FieldPath& path,
                               ErrorList& errors) {
  const size_t before = errors.size();
  ValidateQualifiedName(name, path, errors);
  if (errors.size() != before) return;
  if (name.find('/') != std::string::npos) return;
  if (!Contains(kStandardResources, name) && !IsHugePagesName(name)) {
    errors.push_back(InvalidString(
        path, name, "must be a standard resource type or fully qualified"));
    return;
  }
  if (!Contains(kStandardQuotaResources, name) && !IsHugePagesName(name)) {
    errors.push_back(
        InvalidString(path, name, "must be a standard resource for quota"));
  }
}

void ValidateQuantityValue(const std::string& name, const Quantity& value,
                           const FieldPath& path, ErrorList& errors) {
  if (value.Sign() < 0) {
    errors.push_back(Invalid(path, QuoteValue(value.ToString()),
                             "must be greater than or equal to 0"));
  }
  if (IsIntegerResourceName(name) && value.MilliValue() % 1000 != 0) {
    errors.push_back(
        Invalid(path, QuoteValue(value.ToString()), "must be an integer"));
  }
}

void ValidateResourceList(const ResourceList& list, const FieldPath& path,
                          ErrorList& errors) {
  for (const auto& [name, value] : list) {
    const FieldPath entry = path.Key(name);
    ValidateQuotaResourceName(name, entry, errors);
    ValidateQuantityValue(name, value, entry, errors);
  }
}

// Go's %v of a []ResourceQuotaScope, which upstream reports as the value.
std::string ScopesValue(const std::vector<std::string>& scopes) {
  return fmt::format("[{}]", fmt::join(scopes, " "));
}

bool HasBoth(const std::vector<std::string>& scopes, std::string_view a,
             std::string_view b) {
  return std::find(scopes.begin(), scopes.end(), a) != scopes.end() &&
         std::find(scopes.begin(), scopes.end(), b) != scopes.end();
}

void ValidateScopes(const std::vector<std::string>& scopes,
                    const FieldPath& path, ErrorList& errors) {
  for (const std::string& scope : scopes) {
    if (!Contains(kStandardScopes, scope)) {
      errors.push_back(Invalid(path, ScopesValue(scopes), "unsupported scope"));
    }
  }
  if (HasBoth(scopes, "BestEffort", "NotBestEffort") ||
      HasBoth(scopes, "Terminating", "NotTerminating")) {
    errors.push_back(Invalid(path, ScopesValue(scopes), "conflicting scopes"));
  }
}

// Scopes a selector may only test for presence.
bool IsPresenceOnlyScope(std::string_view scope) {
  return scope == "Terminating" || scope == "NotTerminating" ||
         scope == "BestEffort" || scope == "NotBestEffort" ||
         scope == "CrossNamespacePodAffinity";
}

void ValidateRequirement(const ScopedResourceSelectorRequirement& requirement,
                         const FieldPath& path, ErrorList& errors) {
  if (!Contains(kStandardScopes, requirement.scope_name)) {
    errors.push_back(InvalidString(
        path.Child("scopeName"), requirement.scope_name, "unsupported scope"));
  }
  const std::string& op = requirement.operator_;
  if (op == "In" || op == "NotIn") {
    if (requirement.values.empty()) {
      errors.push_back(Required(path.Child("values"),
                                "must be at least one value when `operator` "
                                "is 'In' or 'NotIn' for scope selector"));
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!requirement.values.empty()) {
      errors.push_back(Invalid(path.Child("values"),
                               ScopesValue(requirement.values),
                               "must be no value when `operator` is 'Exist' "
                               "or 'DoesNotExist' for scope selector"));
    }
  } else {
    errors.push_back(InvalidString(path.Child("operator"), op,
                                   "not a valid selector operator"));
    return;
  }
  if (IsPresenceOnlyScope(requirement.scope_name) && op != "Exists" &&
      op != "DoesNotExist") {
    errors.push_back(InvalidString(
        path.Child("operator"), op,
        "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, "
        "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
        "ResourceQuotaScopeNotBestEffort or "
        "ResourceQuotaScopeCrossNamespacePodAffinity"));
  }
}

void ValidateScopeSelector(const ScopeSelector& selector, const FieldPath& path,
                           ErrorList& errors) {
  const FieldPath expressions = path.Child("matchExpressions");
  for (size_t i = 0; i < selector.match_expressions.size(); ++i) {
    ValidateRequirement(selector.match_expressions[i],
                        expressions.Index(static_cast<int64_t>(i)), errors);
  }
}

}  // namespace

ErrorList ValidateResourceQuota(const ResourceQuota& quota) {
  ErrorList errors;
  ValidateObjectMeta(quota.metadata, /*namespaced=*/true,
                     NameRule::kDns1123Subdomain, FieldPath("metadata"),
                     errors);
  const FieldPath spec("spec");
  ValidateResourceList(quota.spec.hard, spec.Child("hard"), errors);
  ValidateScopes(quota.spec.scopes, spec.Child("scopes"), errors);
  if (quota.spec.scope_selector.has_value()) {
    ValidateScopeSelector(*quota.spec.scope_selector,
                          spec.Child("scopeSelector"), errors);
  }
  const FieldPath status("status");
  ValidateResourceList(quota.status.hard, status.Child("hard"), errors);
  ValidateResourceList(quota.status.used, status.Child("used"), errors);
  return errors;
}

}  // namespace dralloc::api
