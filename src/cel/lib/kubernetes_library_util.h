// Small helpers shared by the Kubernetes value-type libraries (quantity,
// semver, ip/cidr, url, format). Internal to src/cel.
#ifndef DRALLOC_CEL_LIB_KUBERNETES_LIBRARY_UTIL_H_
#define DRALLOC_CEL_LIB_KUBERNETES_LIBRARY_UTIL_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cel/common/function_registry.h"
#include "cel/common/types.h"
#include "cel/common/value.h"
#include "common/text_escape.h"

namespace dralloc::cel::k8s_internal {

// cel-go's common.StringTraversalCostFactor and RegexStringLengthCostFactor.
inline constexpr double kStringTraversalCostFactor = 0.1;
inline constexpr double kRegexStringLengthCostFactor = 0.25;

// Upstream error messages quote user input as Go's strconv.Quote does.
using ::dralloc::GoQuote;

// Runtime cost ceil(ActualSize(args[index]) * factor).
uint64_t ArgTraversalCost(std::span<const Value> args, size_t index,
                          double factor = kStringTraversalCostFactor);

// cel-go's SizeEstimate.MultiplyByCostFactor: {ceil(min*f), ceil(max*f)}.
CostEstimate ScaleEstimate(SizeEstimate size, double factor);

// An overload with the given signature and costs (null costs mean 1).
Overload MakeOverload(std::string id, std::string function, bool member,
                      std::vector<Type> params, Type result, FunctionImpl impl,
                      RuntimeCostFn runtime_cost = nullptr,
                      EstimateCostFn estimate_cost = nullptr);

// Result size {1, 1} for functions returning quantity, semver, ip or cidr
// values. The generic `==` estimate is ceil(min(size) * 0.1), so this gives
// the unit equality cost upstream's estimator assigns to these types.
SizeEstimate UnitSize(std::span<const SizeEstimate> args);

// The opaque object of `v` when it is of library type `type_name`, else null.
const OpaqueValue* OpaqueOf(const Value& v, std::string_view type_name);

// compareTo / isGreaterThan / isLessThan of an opaque type for overloads the
// dispatcher has already type-checked (Overload::prechecked_impl). `Get`
// returns the comparable value (with a three-way Compare) of an argument.
template <auto Get>
Value CheckedCompareTo(const CallContext&, std::span<const Value> args) {
  return Value::Int(Get(args[0]).Compare(Get(args[1])));
}
template <auto Get>
Value CheckedIsGreaterThan(const CallContext&, std::span<const Value> args) {
  return Value::Bool(Get(args[0]).Compare(Get(args[1])) == 1);
}
template <auto Get>
Value CheckedIsLessThan(const CallContext&, std::span<const Value> args) {
  return Value::Bool(Get(args[0]).Compare(Get(args[1])) == -1);
}

// isGreaterThan, isLessThan and compareTo of an opaque type whose values have
// a three-way Compare (quantity, semver). `As` returns the comparable value
// of an argument, or null when the argument holds another type (no matching
// overload).
template <auto As>
Value UncheckedIsGreaterThan(const CallContext&, std::span<const Value> args) {
  const auto* a = As(args[0]);
  const auto* b = As(args[1]);
  if (a == nullptr || b == nullptr) return NoMatchingOverload("isGreaterThan");
  return Value::Bool(a->Compare(*b) == 1);
}
template <auto As>
Value UncheckedIsLessThan(const CallContext&, std::span<const Value> args) {
  const auto* a = As(args[0]);
  const auto* b = As(args[1]);
  if (a == nullptr || b == nullptr) return NoMatchingOverload("isLessThan");
  return Value::Bool(a->Compare(*b) == -1);
}
template <auto As>
Value UncheckedCompareTo(const CallContext&, std::span<const Value> args) {
  const auto* a = As(args[0]);
  const auto* b = As(args[1]);
  if (a == nullptr || b == nullptr) return NoMatchingOverload("compareTo");
  return Value::Int(a->Compare(*b));
}

// Registers the receiver-style overloads `<prefix>_is_greater_than`,
// `<prefix>_is_less_than` and `<prefix>_compare_to` on two values of `type`,
// in that order, each with its prechecked variant (`Checked` as above).
template <auto As, auto Checked>
void RegisterComparable(FunctionRegistry& registry, const std::string& prefix,
                        const Type& type) {
  auto add = [&](std::string_view suffix, std::string function, Type result,
                 FunctionImpl impl, FunctionImpl prechecked) {
    Overload o = MakeOverload(prefix + std::string(suffix), std::move(function),
                              true, {type, type}, std::move(result), impl);
    o.prechecked_impl = prechecked;
    registry.Add(std::move(o));
  };
  add("_is_greater_than", "isGreaterThan", Type::Bool(),
      &UncheckedIsGreaterThan<As>, &CheckedIsGreaterThan<Checked>);
  add("_is_less_than", "isLessThan", Type::Bool(), &UncheckedIsLessThan<As>,
      &CheckedIsLessThan<Checked>);
  add("_compare_to", "compareTo", Type::Int(), &UncheckedCompareTo<As>,
      &CheckedCompareTo<Checked>);
}

}  // namespace dralloc::cel::k8s_internal

#endif  // DRALLOC_CEL_LIB_KUBERNETES_LIBRARY_UTIL_H_
