#include "cel/lib/quantity_library.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "cel/lib/kubernetes_library_util.h"

namespace dralloc::cel {
namespace {

using k8s_internal::ArgTraversalCost;
using k8s_internal::MakeOverload;
using k8s_internal::RegisterComparable;
using k8s_internal::ScaleEstimate;
using k8s_internal::UnitSize;

// True when `q` is an integer that fits in int64 (upstream AsInt64 succeeds).
// Note: upstream also fails for some exact integers depending on how the
// quantity was written (e.g. "1.0" or "1000m"); this follows the value.
bool ExactInt64(const Quantity& q, int64_t* out) {
  const int64_t v = q.Value();  // rounded away from zero, saturating
  if (Quantity::FromInt64(v).Compare(q) != 0) return false;
  *out = v;
  return true;
}

Value FromStatusOr(StatusOr<Quantity> result) {
  if (!result.ok()) return Value::Error(result.status().message());
  return MakeQuantityValue(*result);
}

// ---- costs ----

uint64_t ParseCost(std::span<const Value> args, const Value&) {
  return ArgTraversalCost(args, 0);
}
CostEstimate ParseEstimate(std::span<const SizeEstimate> args) {
  return ScaleEstimate(args[0], k8s_internal::kStringTraversalCostFactor);
}

// ---- implementations ----

Value StringToQuantity(const CallContext&, std::span<const Value> args) {
  return FromStatusOr(Quantity::Parse(args[0].string_view()));
}

Value IsQuantity(const CallContext&, std::span<const Value> args) {
  return Value::Bool(Quantity::Parse(args[0].string_view()).ok());
}

Value Sign(const CallContext&, std::span<const Value> args) {
  const Quantity* q = AsQuantity(args[0]);
  if (q == nullptr) return NoMatchingOverload("sign");
  return Value::Int(q->Sign());
}

// Calls fn(a, b) for two quantity arguments.
template <typename Fn>
Value Binary(std::span<const Value> args, std::string_view function, Fn fn) {
  const Quantity* a = AsQuantity(args[0]);
  const Quantity* b = AsQuantity(args[1]);
  if (a == nullptr || b == nullptr) return NoMatchingOverload(function);
  return fn(*a, *b);
}

// Prechecked variants (Overload::prechecked_impl): the dispatcher has
// matched both arguments to kubernetes.Quantity, whose only implementation is
// QuantityValue.
const Quantity& Checked(const Value& v) {
  return static_cast<const QuantityValue&>(v.opaque()).quantity();
}

Value Add(const CallContext&, std::span<const Value> args) {
  return Binary(args, "add", [](const Quantity& a, const Quantity& b) {
    return FromStatusOr(a.Add(b));
  });
}

Value Sub(const CallContext&, std::span<const Value> args) {
  return Binary(args, "sub", [](const Quantity& a, const Quantity& b) {
    return FromStatusOr(a.Sub(b));
  });
}

// Upstream converts the int with resource.NewQuantity(i, DecimalExponent).
Value AddInt(const CallContext&, std::span<const Value> args) {
  const Quantity* q = AsQuantity(args[0]);
  if (q == nullptr) return NoMatchingOverload("add");
  return FromStatusOr(q->Add(Quantity::FromInt64(
      args[1].int_value(), QuantityFormat::kDecimalExponent)));
}

Value SubInt(const CallContext&, std::span<const Value> args) {
  const Quantity* q = AsQuantity(args[0]);
  if (q == nullptr) return NoMatchingOverload("sub");
  return FromStatusOr(q->Sub(Quantity::FromInt64(
      args[1].int_value(), QuantityFormat::kDecimalExponent)));
}

Value AsApproximateFloat(const CallContext&, std::span<const Value> args) {
  const Quantity* q = AsQuantity(args[0]);
  if (q == nullptr) return NoMatchingOverload("asApproximateFloat");
  return Value::Double(q->AsApproximateDouble());
}

Value AsInteger(const CallContext&, std::span<const Value> args) {
  const Quantity* q = AsQuantity(args[0]);
  if (q == nullptr) return NoMatchingOverload("asInteger");
  int64_t v = 0;
  if (!ExactInt64(*q, &v)) {
    return Value::Error("cannot convert value to integer");
  }
  return Value::Int(v);
}

Value IsInteger(const CallContext&, std::span<const Value> args) {
  const Quantity* q = AsQuantity(args[0]);
  if (q == nullptr) return NoMatchingOverload("isInteger");
  int64_t v = 0;
  return Value::Bool(ExactInt64(*q, &v));
}

}  // namespace

bool QuantityValue::Equals(const OpaqueValue& other) const {
  if (other.TypeName() != kQuantityTypeName) return false;
  return quantity_ == static_cast<const QuantityValue&>(other).quantity_;
}

std::string QuantityValue::DebugString() const { return quantity_.ToString(); }

Type QuantityType() { return Type::Opaque(kQuantityTypeName); }

Value MakeQuantityValue(Quantity q) {
  return Value::Opaque(new QuantityValue(q));
}

void RegisterQuantityLibrary(FunctionRegistry& registry) {
  // Every overload returning a quantity gets the unit result size.
  auto add = [&registry](Overload o) {
    if (o.result.kind() == TypeKind::kOpaque) o.estimate_size = &UnitSize;
    registry.Add(std::move(o));
  };
  const Type q = QuantityType();
  const Type s = Type::String();

  add(MakeOverload("string_to_quantity", "quantity", false, {s}, q,
                   &StringToQuantity, &ParseCost, &ParseEstimate));
  add(MakeOverload("is_quantity_string", "isQuantity", false, {s}, Type::Bool(),
                   &IsQuantity, &ParseCost, &ParseEstimate));

  // Upstream declares sign() as a global overload only, although its doc
  // comment shows the receiver style.
  add(MakeOverload("quantity_sign", "sign", false, {q}, Type::Int(), &Sign));
  RegisterComparable<&AsQuantity, &Checked>(registry, "quantity", q);
  add(MakeOverload("quantity_get_float", "asApproximateFloat", true, {q},
                   Type::Double(), &AsApproximateFloat));
  add(MakeOverload("quantity_get_int", "asInteger", true, {q}, Type::Int(),
                   &AsInteger));
  add(MakeOverload("quantity_is_integer", "isInteger", true, {q}, Type::Bool(),
                   &IsInteger));
  add(MakeOverload("quantity_add", "add", true, {q, q}, q, &Add));
  add(MakeOverload("quantity_add_int", "add", true, {q, Type::Int()}, q,
                   &AddInt));
  add(MakeOverload("quantity_sub", "sub", true, {q, q}, q, &Sub));
  add(MakeOverload("quantity_sub_int", "sub", true, {q, Type::Int()}, q,
                   &SubInt));
}

}  // namespace dralloc::cel
