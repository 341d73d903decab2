// Derived attributes (KEP-6080): a request's CEL expressions, evaluated on
// each device its selectors accept. Constraints then read a derived value in
// place of the device's attribute of the same name.
#ifndef DRALLOC_ALLOCATOR_DERIVED_ATTRIBUTE_EVALUATOR_H_
#define DRALLOC_ALLOCATOR_DERIVED_ATTRIBUTE_EVALUATOR_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allocator/claim_constraint.h"
#include "allocator/device_inventory.h"
#include "api/types/resource_claim.h"
#include "cel/common/value.h"
#include "cel/program.h"
#include "common/status.h"

namespace dralloc::allocator {

// A derived attribute's CEL result as constraints compare it: a string, int,
// bool or semver, or a list of one of them (an empty list is nullopt, no
// value). Any other result is an InvalidArgument error naming its type.
StatusOr<std::optional<AttributeSet>> DerivedValueOf(const cel::Value& result);

class DerivedAttributeEvaluator {
 public:
  // Compiles `attributes` (which must outlive the evaluator); an error names
  // the attribute by index and name.
  static StatusOr<DerivedAttributeEvaluator> Compile(
      const std::vector<api::DerivedAttribute>& attributes);
  DerivedAttributeEvaluator() = default;

  bool empty() const { return programs_.empty(); }
  // The values of every derived attribute on `device`. A runtime error, or a
  // result of the wrong type, is an error naming the attribute and device.
  StatusOr<DerivedValues> Evaluate(const InventoryDevice& device) const;

 private:
  struct Compiled {
    const api::DerivedAttribute* attribute = nullptr;
    std::shared_ptr<const cel::Program> program;
  };
  std::vector<Compiled> programs_;
};

}  // namespace dralloc::allocator

#endif  // DRALLOC_ALLOCATOR_DERIVED_ATTRIBUTE_EVALUATOR_H_
