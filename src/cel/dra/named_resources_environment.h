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
// expressions, so none is checked. The api layer builds the attributes of
// an instance (api/v1alpha2/named_resources_cel.h).
#ifndef DRALLOC_CEL_DRA_NAMED_RESOURCES_ENVIRONMENT_H_
#define DRALLOC_CEL_DRA_NAMED_RESOURCES_ENVIRONMENT_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "cel/check/environment.h"
#include "cel/common/value.h"
#include "cel/program.h"
#include "common/quantity.h"
#include "common/status.h"

namespace dralloc::cel {

// The environment, compiled once per process.
std::shared_ptr<const Environment> NamedResourcesEnvironment();
// Slot of `attributes` in NamedResourcesEnvironment().
int NamedResourcesAttributesSlot();

// Compiles a selector as 1.30's API validation did; the error is CEL's
// message, without upstream's "compilation failed: " prefix.
Status CheckNamedResourcesSelector(std::string_view text);

// The `attributes` value of one namedResources instance. Names are unique
// per instance (validation), so each is added once.
class NamedResourcesAttributes {
 public:
  NamedResourcesAttributes();

  void AddQuantity(std::string_view name, const Quantity& value);
  void AddBool(std::string_view name, bool value);
  void AddInt(std::string_view name, int64_t value);
  void AddIntSlice(std::string_view name, const std::vector<int64_t>& values);
  void AddString(std::string_view name, std::string_view value);
  void AddStringSlice(std::string_view name,
                      const std::vector<std::string>& values);
  // A version that is no strict semver (validation refuses one) is kept as
  // an error: a selector reading it fails, as 1.30's parse failed.
  void AddVersion(std::string_view name, std::string_view value);

  // Valid while this object lives.
  Value AsValue() const { return root_; }

 private:
  enum Map {
    kQuantity,
    kBool,
    kInt,
    kIntSlice,
    kString,
    kStringSlice,
    kVersion,
    kMapCount
  };
  void Add(Map map, std::string_view name, Value value);

  Value root_;
  EntryMap* maps_[kMapCount];  // owned by root_
};

// Evaluates a compiled selector on one instance. A non-bool result and
// runtime errors (a missing key: "no such key") are errors.
StatusOr<bool> MatchNamedResourcesSelector(
    const Program& program, const NamedResourcesAttributes& attributes,
    EvalContext& ctx);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_DRA_NAMED_RESOURCES_ENVIRONMENT_H_
