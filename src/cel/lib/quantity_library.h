// Kubernetes' CEL Quantity library (k8s.io/apiserver pkg/cel/library
// quantity.go): the type kubernetes.Quantity and
//
//   quantity(string) -> Quantity          isQuantity(string) -> bool
//   sign(Quantity) -> int                 (global, as upstream declares it)
//   q.isGreaterThan(q) / q.isLessThan(q) -> bool
//   q.compareTo(q) -> int                 (-1, 0, 1)
//   q.add(q | int) / q.sub(q | int) -> Quantity
//   q.asInteger() -> int                  ("cannot convert value to integer")
//   q.isInteger() -> bool                 q.asApproximateFloat() -> double
//
// Equality (==) is by value through QuantityValue::Equals.
#ifndef DRALLOC_CEL_LIB_QUANTITY_LIBRARY_H_
#define DRALLOC_CEL_LIB_QUANTITY_LIBRARY_H_

#include <string>
#include <string_view>
#include <typeinfo>

#include "cel/common/function_registry.h"
#include "cel/common/types.h"
#include "cel/common/value.h"
#include "common/quantity.h"

namespace dralloc::cel {

class QuantityValue final : public OpaqueValue {
 public:
  explicit QuantityValue(Quantity q) : quantity_(q) {}

  const Quantity& quantity() const { return quantity_; }

  std::string_view TypeName() const override { return kQuantityTypeName; }
  // By value: quantity("200M") equals quantity("0.2G").
  bool Equals(const OpaqueValue& other) const override;
  // The canonical text, e.g. "12Mi".
  std::string DebugString() const override;

 private:
  Quantity quantity_;
};

// Type::Opaque("kubernetes.Quantity").
Type QuantityType();
// An owned Value holding a new QuantityValue.
Value MakeQuantityValue(Quantity q);
// The quantity held by `v`, or null when `v` is not a kubernetes.Quantity.
inline const Quantity* AsQuantity(const Value& v) {
  // typeid compares vtable type-info: cheaper than matching type names.
  if (v.kind() != ValueKind::kOpaque) return nullptr;
  const OpaqueValue& o = v.opaque();
  if (typeid(o) != typeid(QuantityValue)) return nullptr;
  return &static_cast<const QuantityValue&>(o).quantity();
}

void RegisterQuantityLibrary(FunctionRegistry& registry);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_LIB_QUANTITY_LIBRARY_H_
