// The CEL environment of Kubernetes 1.30's namedResources selectors
// (resource.k8s.io/v1alpha2 ResourceClaimParameters and
// ResourceClassParameters, k8s.io/dynamic-resource-allocation
// structured/namedresources/cel at v0.30): one variable, `attributes`, whose
// seven fields map an instance's attribute names to values of one type each:
//
//   attributes.quantity     map(string, Quantity)
//   attributes.bool         map(string, bool)
//   attributes.int          map(string, int)
//   attributes.intslice     map(string, list(int))
//   attributes.string       map(string, string)
//   attributes.stringslice  map(string, list(string))
//   attributes.version      map(string, Semver)
//
// The names are lowercase (`intslice`, not the JSON's `intSlice`). A
// selector must evaluate to bool. 1.30 set no cost limit on these
// expressions, so none is checked.
#ifndef DRALLOC_CEL_DRA_NAMED_RESOURCES_ENVIRONMENT_H_
#define DRALLOC_CEL_DRA_NAMED_RESOURCES_ENVIRONMENT_H_

#include <memory>
#include <string_view>

#include "cel/check/environment.h"
#include "common/status.h"

namespace dralloc::cel {

// The environment, compiled once per process.
std::shared_ptr<const Environment> NamedResourcesEnvironment();
// Slot of `attributes` in NamedResourcesEnvironment().
int NamedResourcesAttributesSlot();

// Compiles a selector as 1.30's API validation did; the error is CEL's
// message, without upstream's "compilation failed: " prefix.
Status CheckNamedResourcesSelector(std::string_view text);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_DRA_NAMED_RESOURCES_ENVIRONMENT_H_
