// core/v1 ResourceQuota: aggregate limits on what a namespace may consume
// (spec.hard), and the usage the quota controller and the quota admission
// keep in status.used against status.hard.
//
// Quantities are keyed by resource name
// ("count/resourceclaims.resource.k8s.io",
// "gpu.deviceclass.resource.k8s.io/devices"); protobuf numbers follow
// upstream's core/v1 generated.proto.
#ifndef DRALLOC_API_TYPES_RESOURCE_QUOTA_H_
#define DRALLOC_API_TYPES_RESOURCE_QUOTA_H_

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/object_meta.h"
#include "common/quantity.h"

namespace dralloc::api {

// A resource name → quantity list (upstream's v1.ResourceList).
using ResourceList = std::map<std::string, Quantity>;

// One requirement of a scope selector: scopeName, operator (In, NotIn,
// Exists, DoesNotExist) and values.
struct ScopedResourceSelectorRequirement {
  std::string scope_name;
  std::string operator_;
  std::vector<std::string> values;
  friend bool operator==(const ScopedResourceSelectorRequirement&,
                         const ScopedResourceSelectorRequirement&) = default;
};
constexpr auto FieldsOf(const ScopedResourceSelectorRequirement*) {
  using T = ScopedResourceSelectorRequirement;
  return std::tuple{Field("scopeName", &T::scope_name, kAlways).Proto(1),
                    Field("operator", &T::operator_, kAlways).Proto(2),
                    Field("values", &T::values).Proto(3).ListAtomic()};
}

struct ScopeSelector {
  std::vector<ScopedResourceSelectorRequirement> match_expressions;
  friend bool operator==(const ScopeSelector&, const ScopeSelector&) = default;
};
constexpr auto FieldsOf(const ScopeSelector*) {
  return std::tuple{Field("matchExpressions", &ScopeSelector::match_expressions)
                        .Proto(1)
                        .ListAtomic()};
}

struct ResourceQuotaSpec {
  ResourceList hard;
  std::vector<std::string> scopes;
  std::optional<ScopeSelector> scope_selector;
  friend bool operator==(const ResourceQuotaSpec&,
                         const ResourceQuotaSpec&) = default;
};
constexpr auto FieldsOf(const ResourceQuotaSpec*) {
  using T = ResourceQuotaSpec;
  return std::tuple{Field("hard", &T::hard).Proto(1),
                    Field("scopes", &T::scopes).Proto(2).ListAtomic(),
                    Field("scopeSelector", &T::scope_selector).Proto(3)};
}

// status.used is absent until the quota controller first computed it; the
// admission refuses to charge a quota whose status does not cover a
// resource it constrains.
struct ResourceQuotaStatus {
  ResourceList hard;
  ResourceList used;
  friend bool operator==(const ResourceQuotaStatus&,
                         const ResourceQuotaStatus&) = default;
};
constexpr auto FieldsOf(const ResourceQuotaStatus*) {
  using T = ResourceQuotaStatus;
  return std::tuple{Field("hard", &T::hard).Proto(1),
                    Field("used", &T::used).Proto(2)};
}

// core/v1 ResourceQuota.
struct ResourceQuota {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  ResourceQuotaSpec spec;
  ResourceQuotaStatus status;
  friend bool operator==(const ResourceQuota&, const ResourceQuota&) = default;
};
constexpr auto FieldsOf(const ResourceQuota*) {
  using T = ResourceQuota;
  return std::tuple{
      Field("apiVersion", &T::api_version), Field("kind", &T::kind),
      Field("metadata", &T::metadata).Proto(1),
      Field("spec", &T::spec).Proto(2), Field("status", &T::status).Proto(3)};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_RESOURCE_QUOTA_H_
