#include "cel/lib/kubernetes_library_util.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dralloc::cel::k8s_internal {

uint64_t ArgTraversalCost(std::span<const Value> args, size_t index,
                          double factor) {
  if (index >= args.size()) return 1;
  return CeilCost(ActualSize(args[index]), factor);
}

CostEstimate ScaleEstimate(SizeEstimate size, double factor) {
  return CostEstimate{CeilCost(size.min, factor), CeilCost(size.max, factor)};
}

Overload MakeOverload(std::string id, std::string function, bool member,
                      std::vector<Type> params, Type result, FunctionImpl impl,
                      RuntimeCostFn runtime_cost,
                      EstimateCostFn estimate_cost) {
  Overload o;
  o.id = std::move(id);
  o.function = std::move(function);
  o.member = member;
  o.params = std::move(params);
  o.result = std::move(result);
  o.impl = impl;
  o.runtime_cost = runtime_cost;
  o.estimate_cost = estimate_cost;
  return o;
}

SizeEstimate UnitSize(std::span<const SizeEstimate>) {
  return SizeEstimate{1, 1};
}

const OpaqueValue* OpaqueOf(const Value& v, std::string_view type_name) {
  if (v.kind() != ValueKind::kOpaque) return nullptr;
  const OpaqueValue& o = v.opaque();
  std::string_view name = o.TypeName();
  // Type names are static constants: pointer equality is the common case.
  if (name.data() != type_name.data() && name != type_name) return nullptr;
  return &o;
}

}  // namespace dralloc::cel::k8s_internal
