// ResourceRegistry: the REST resources dralloc serves, one entry per kind.
//
// The API server's routing, discovery documents and OpenAPI documents are all
// generated from this table, which is derived from api/kind_traits.h.
#ifndef DRALLOC_API_RESOURCE_REGISTRY_H_
#define DRALLOC_API_RESOURCE_REGISTRY_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/kind_traits.h"

namespace dralloc::api {

struct ResourceInfo {
  std::string_view group;     // "" for the core group
  std::string_view kind;      // "ResourceClaim"
  std::string_view plural;    // "resourceclaims"
  std::string_view singular;  // "resourceclaim"
  bool namespaced = false;
  bool has_status = false;  // serves the `status` subresource
  std::vector<std::string_view> short_names;
  // Served versions ("v1", "v1beta2", ...), preferred first; the first one
  // is also the storage (hub) version.
  std::vector<std::string_view> versions;
  // Field selector labels beyond metadata.name and metadata.namespace.
  std::vector<std::string_view> field_labels;
  // The first segments of the resource's store keys: `plural`, or
  // "v1alpha2/<plural>" for the classic family (KindTraits::store_prefix).
  std::string_view store_prefix;
  // The other family's entry of a resource both families serve
  // (resourceclaims, resourceclaimtemplates, resourceslices), or nullptr.
  // The two share one name space: a name is taken once across both.
  const ResourceInfo* sibling = nullptr;
  // Position in AllResources() (KindTraits::listing).
  int listing = 0;

  // True for the resource.k8s.io/v1alpha2 (classic DRA) family.
  bool IsClassic() const;

  // "resourceclaims.resource.k8s.io", or "pods" for the core group (the
  // form Kubernetes error messages use).
  std::string QualifiedResource() const;
  // "resource.k8s.io/v1" or "v1".
  std::string GroupVersion(std::string_view version) const;
};

// Every served resource, in a stable order (core group first).
std::span<const ResourceInfo> AllResources();

// The resource served at group/version/plural, or nullptr.
const ResourceInfo* FindResource(std::string_view group,
                                 std::string_view version,
                                 std::string_view plural);

// The resource of `kind`, or nullptr. A name two families share gives the
// structured family's resource; code holding an object or a type uses
// ResourceInfoOf / ResourceInfoFor, code holding an apiVersion the
// two-argument form.
const ResourceInfo* FindResourceByKind(std::string_view kind);
const ResourceInfo* FindResourceByKind(std::string_view api_version,
                                       std::string_view kind);

// The resource of the alternative `object` holds.
const ResourceInfo& ResourceInfoOf(const Object& object);
// The resource of kind T, an alternative of api::Object.
template <typename T>
const ResourceInfo& ResourceInfoFor() {
  return AllResources()[static_cast<size_t>(Kind<T>::traits.listing)];
}

// Groups in discovery order ("" first, then "resource.k8s.io"), and the
// versions each serves, preferred first.
std::vector<std::string_view> ServedGroups();
std::vector<std::string_view> GroupVersions(std::string_view group);

}  // namespace dralloc::api

#endif  // DRALLOC_API_RESOURCE_REGISTRY_H_
