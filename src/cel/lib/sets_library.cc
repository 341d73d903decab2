#include "cel/lib/sets_library.h"

#include "cel/common/types.h"

namespace dralloc::cel {
namespace {

bool ListContains(const ListValue& list, const Value& item) {
  for (size_t i = 0; i < list.Size(); ++i) {
    if (EqualBool(list.At(i), item)) return true;
  }
  return false;
}

// Every element of `sub` is in `list`.
bool ContainsAll(const ListValue& list, const ListValue& sub) {
  for (size_t i = 0; i < sub.Size(); ++i) {
    if (!ListContains(list, sub.At(i))) return false;
  }
  return true;
}

Value SetsContains(const CallContext&, std::span<const Value> args) {
  return Value::Bool(ContainsAll(args[0].list(), args[1].list()));
}

Value SetsEquivalent(const CallContext&, std::span<const Value> args) {
  const ListValue& a = args[0].list();
  const ListValue& b = args[1].list();
  return Value::Bool(ContainsAll(a, b) && ContainsAll(b, a));
}

Value SetsIntersects(const CallContext&, std::span<const Value> args) {
  const ListValue& a = args[0].list();
  const ListValue& b = args[1].list();
  for (size_t i = 0; i < a.Size(); ++i) {
    if (ListContains(b, a.At(i))) return Value::Bool(true);
  }
  return Value::Bool(false);
}

// cel-go: 1 + trunc(size(a) * size(b) * factor) at runtime and
// ceil(size(a) * size(b) * factor) + 1 as the estimate.
template <int kFactor>
uint64_t SetsCost(std::span<const Value> args, const Value&) {
  return SaturatingAdd(
      1, SaturatingMul(SaturatingMul(ActualSize(args[0]), ActualSize(args[1])),
                       kFactor));
}

template <int kFactor>
CostEstimate SetsEstimate(std::span<const SizeEstimate> args) {
  return {
      SaturatingAdd(
          1, SaturatingMul(SaturatingMul(args[0].min, args[1].min), kFactor)),
      SaturatingAdd(
          1, SaturatingMul(SaturatingMul(args[0].max, args[1].max), kFactor))};
}

}  // namespace

void RegisterSetsLibrary(FunctionRegistry& registry) {
  const Type list_t = Type::List(Type::Param("T"));
  registry.Add({.id = "list_sets_contains_list",
                .function = "sets.contains",
                .member = false,
                .params = {list_t, list_t},
                .result = Type::Bool(),
                .impl = SetsContains,
                .runtime_cost = SetsCost<1>,
                .estimate_cost = SetsEstimate<1>});
  registry.Add({.id = "list_sets_equivalent_list",
                .function = "sets.equivalent",
                .member = false,
                .params = {list_t, list_t},
                .result = Type::Bool(),
                .impl = SetsEquivalent,
                .runtime_cost = SetsCost<2>,
                .estimate_cost = SetsEstimate<2>});
  registry.Add({.id = "list_sets_intersects_list",
                .function = "sets.intersects",
                .member = false,
                .params = {list_t, list_t},
                .result = Type::Bool(),
                .impl = SetsIntersects,
                .runtime_cost = SetsCost<1>,
                .estimate_cost = SetsEstimate<1>});
}

}  // namespace dralloc::cel
