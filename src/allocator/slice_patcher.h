// SlicePatcher: the devices the allocator sees, with admin overrides applied —
// ResourceSlicePatches (KEP-5027, resource.k8s.io/v1alpha3) and taints from
// DeviceTaintRules.
#ifndef DRALLOC_ALLOCATOR_SLICE_PATCHER_H_
#define DRALLOC_ALLOCATOR_SLICE_PATCHER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types/device_class.h"
#include "api/types/device_taint_rule.h"
#include "api/types/resource_slice.h"
#include "api/types/resource_slice_patch.h"
#include "cel/program.h"
#include "common/status.h"

namespace dralloc::allocator {

// Why a patch or rule did not apply to a device.
struct PatchProblem {
  std::string
      object;  // "ResourceSlicePatch <name>" or "DeviceTaintRule <name>"
  std::string device;   // "<driver>/<pool>/<device>"
  std::string message;  // "selector #0: CEL runtime error: no such key: x",
                        // "device class \"gpu\" not found"
  friend bool operator==(const PatchProblem&, const PatchProblem&) = default;
};

// Looks up a DeviceClass by name; nullptr if absent.
using ClassLookup = std::function<const api::DeviceClass*(std::string_view)>;

// Immutable set of patches and taint rules, pre-sorted by precedence, with
// selectors compiled once. Thread-safe for concurrent Apply calls.
//
// Matching (patch spec.devices.filter, rule spec.deviceSelector): every set
// field must match — driver, pool (pool name), device (device name),
// deviceClassName (all of the class's CEL selectors match) and selectors (all
// match); no filter matches every device. CEL sees the ORIGINAL device of the
// slice (before any patch). A CEL runtime error, a non-bool result, a compile
// error or an unknown class means "does not apply to this device" and is
// reported as a PatchProblem; other patches and rules are unaffected.
//
// DeviceClasses are resolved once, in the constructor (`classes` is not kept):
// build a new SlicePatcher when DeviceClasses change.
//
// Patch effect: `attributes` sets (or, with `null`, removes) attributes and
// `capacity` sets capacities, by fully-qualified name. A name in the slice
// driver's domain ("gpu.example.com/model" for driver gpu.example.com) also
// addresses the device's unprefixed entry ("model"): a set overwrites the
// entry under whichever key form(s) the device already uses, and a new entry
// is stored in the unprefixed form; a removal erases both forms. Names
// without a domain (rejected by validation) count as the driver's domain.
//
// Precedence when patches set the same name on one device: higher
// spec.devices.priority wins (unset = 0); then the older
// metadata.creationTimestamp (missing or unparseable = newest); then the
// smaller metadata.name. Patches are applied in ascending precedence, so the
// winner's value — or removal — is what remains.
//
// Taint rules: a matching device gets spec.taint appended to its taints,
// after the slice's own taints, rules in name order.
class SlicePatcher {
 public:
  SlicePatcher(std::vector<api::ResourceSlicePatch> patches,
               std::vector<api::DeviceTaintRule> rules, ClassLookup classes);

  // No patches and no rules: Apply is the identity.
  bool empty() const { return patches_.empty() && rules_.empty(); }

  // Returns `slice` with every matching patch and rule applied to its
  // devices; problems are appended to `problems`.
  api::ResourceSlice Apply(const api::ResourceSlice& slice,
                           std::vector<PatchProblem>& problems) const;

 private:
  struct Selector {
    std::string label;  // "selector #0", "device class \"gpu\" selector #0"
    std::shared_ptr<const cel::Program> program;  // null iff compile error
    Status compile_error;
  };
  struct Filter {
    std::optional<std::string> driver;
    std::optional<std::string> pool;
    std::optional<std::string> device;
    std::optional<std::string> missing_class;  // set: class was not found
    std::vector<Selector> selectors;           // class's first, then own
  };
  struct Patch {
    std::string object;  // "ResourceSlicePatch <name>"
    Filter filter;
    api::DevicePatch spec;
  };
  struct Rule {
    std::string object;  // "DeviceTaintRule <name>"
    Filter filter;
    api::DeviceTaint taint;
  };
  class DeviceView;

  static Filter CompileFilter(const std::optional<std::string>& class_name,
                              const std::optional<std::string>& driver,
                              const std::optional<std::string>& pool,
                              const std::optional<std::string>& device,
                              const std::vector<api::DeviceSelector>& selectors,
                              const ClassLookup& classes);
  // True if `filter` can match some device of a slice of `driver` and `pool`.
  static bool SliceMayMatch(const Filter& filter, std::string_view driver,
                            std::string_view pool);
  // True if `filter` matches; on a problem returns false and sets `problem`.
  static bool Matches(const Filter& filter, DeviceView& view,
                      std::string* problem);

  std::vector<Patch> patches_;  // ascending precedence: winner applied last
  std::vector<Rule> rules_;     // name order
};

}  // namespace dralloc::allocator

#endif  // DRALLOC_ALLOCATOR_SLICE_PATCHER_H_
