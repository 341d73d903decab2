#include "cel/lib/lists_library.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "cel/common/eval_context.h"
#include "cel/common/types.h"
#include "fmt/format.h"

namespace dralloc::cel {

uint64_t TraversalCost(const Value& value) {
  switch (value.kind()) {
    case ValueKind::kString:
    case ValueKind::kBytes:
      // Kubernetes truncates here (no ceil) and counts bytes.
      return static_cast<uint64_t>(
          static_cast<double>(value.string_view().size()) * 0.1);
    case ValueKind::kList: {
      const ListValue& list = value.list();
      uint64_t cost = 0;
      for (size_t i = 0; i < list.Size(); ++i) {
        cost = SaturatingAdd(cost, TraversalCost(list.At(i)));
      }
      return cost;
    }
    case ValueKind::kMap: {
      const MapValue& map = value.map();
      uint64_t cost = 0;
      for (size_t i = 0; i < map.Size(); ++i) {
        cost = SaturatingAdd(cost, TraversalCost(map.KeyAt(i)));
        cost = SaturatingAdd(cost, TraversalCost(map.ValueAt(i)));
      }
      return cost;
    }
    default:
      return 1;
  }
}

namespace {

// cel-go's costs for list calls that allocate: the call (1) and the list
// (ListCreateBaseCost = 10).
constexpr uint64_t kCallCost = 1;
constexpr uint64_t kListCreateCost = 10;

Value NewList(std::vector<Value> items) {
  if (items.empty()) return Value::BorrowedList(&EmptyList());
  return Value::List(new VectorList(std::move(items)));
}

std::vector<Value> Elements(const ListValue& list) {
  std::vector<Value> items;
  items.reserve(list.Size());
  for (size_t i = 0; i < list.Size(); ++i) items.push_back(list.At(i));
  return items;
}

bool IsComparableKind(ValueKind kind) {
  switch (kind) {
    case ValueKind::kInt:
    case ValueKind::kUint:
    case ValueKind::kDouble:
    case ValueKind::kBool:
    case ValueKind::kDuration:
    case ValueKind::kTimestamp:
    case ValueKind::kString:
    case ValueKind::kBytes:
      return true;
    default:
      return false;
  }
}

// ---- Kubernetes library.Lists ----

Value IsSorted(const CallContext&, std::span<const Value> args) {
  const ListValue& list = args[0].list();
  for (size_t i = 1; i < list.Size(); ++i) {
    int c = Compare(list.At(i - 1), list.At(i));
    if (c == kIncomparable) return NoMatchingOverload("isSorted");
    if (c == 1) return Value::Bool(false);
  }
  return Value::Bool(true);
}

// Adds two summable values of the same kind; an error value otherwise.
Value AddSummable(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return NoMatchingOverload("sum");
  switch (a.kind()) {
    case ValueKind::kInt: {
      int64_t r;
      if (__builtin_add_overflow(a.int_value(), b.int_value(), &r)) {
        return IntOverflow();
      }
      return Value::Int(r);
    }
    case ValueKind::kUint: {
      uint64_t r;
      if (__builtin_add_overflow(a.uint_value(), b.uint_value(), &r)) {
        return Value::Error("unsigned integer overflow");
      }
      return Value::Uint(r);
    }
    case ValueKind::kDouble:
      return Value::Double(a.double_value() + b.double_value());
    case ValueKind::kDuration: {
      int64_t r;
      if (__builtin_add_overflow(a.duration_nanos(), b.duration_nanos(), &r)) {
        return IntOverflow();
      }
      return Value::Duration(r);
    }
    default:
      return NoMatchingOverload("sum");
  }
}

template <ValueKind kZeroKind>
Value Sum(const CallContext&, std::span<const Value> args) {
  const ListValue& list = args[0].list();
  if (list.Size() == 0) {
    switch (kZeroKind) {
      case ValueKind::kUint:
        return Value::Uint(0);
      case ValueKind::kDouble:
        return Value::Double(0);
      case ValueKind::kDuration:
        return Value::Duration(0);
      default:
        return Value::Int(0);
    }
  }
  // Start from the first element so that a dynamically typed list sums with
  // its own element type whichever overload was dispatched.
  Value acc = list.At(0);
  switch (acc.kind()) {
    case ValueKind::kInt:
    case ValueKind::kUint:
    case ValueKind::kDouble:
    case ValueKind::kDuration:
      break;
    default:
      return NoMatchingOverload("sum");
  }
  for (size_t i = 1; i < list.Size(); ++i) {
    acc = AddSummable(acc, list.At(i));
    if (acc.IsError()) return acc;
  }
  return acc;
}

// `prefer` is the comparison result (current vs next) that replaces current.
template <int kPrefer>
Value MinMax(const CallContext&, std::span<const Value> args) {
  const char* name = kPrefer == 1 ? "min" : "max";
  const ListValue& list = args[0].list();
  if (list.Size() == 0) {
    return Value::Error(fmt::format("{} called on empty list", name));
  }
  Value result = list.At(0);
  if (!IsComparableKind(result.kind())) return NoMatchingOverload(name);
  for (size_t i = 1; i < list.Size(); ++i) {
    Value next = list.At(i);
    int c = Compare(result, next);
    if (c == kIncomparable) return NoMatchingOverload(name);
    if (c == kPrefer) result = std::move(next);
  }
  return result;
}

Value ListIndexOf(const CallContext&, std::span<const Value> args) {
  const ListValue& list = args[0].list();
  for (size_t i = 0; i < list.Size(); ++i) {
    if (EqualBool(list.At(i), args[1]))
      return Value::Int(static_cast<int64_t>(i));
  }
  return Value::Int(-1);
}

Value ListLastIndexOf(const CallContext&, std::span<const Value> args) {
  const ListValue& list = args[0].list();
  for (size_t i = list.Size(); i > 0; --i) {
    if (EqualBool(list.At(i - 1), args[1])) {
      return Value::Int(static_cast<int64_t>(i - 1));
    }
  }
  return Value::Int(-1);
}

// DRA's includes: list membership (lists of at most 48 values) or equality.
Value Includes(const CallContext&, std::span<const Value> args) {
  const Value& target = args[0];
  if (target.kind() != ValueKind::kList) {
    return Value::Bool(EqualBool(target, args[1]));
  }
  const ListValue& list = target.list();
  for (size_t i = 0; i < list.Size(); ++i) {
    if (i >= kMaxIncludesListSize) {
      return Value::Error(fmt::format(
          "'includes' function cannot be applied to lists longer than {} "
          "values",
          kMaxIncludesListSize));
    }
    if (EqualBool(list.At(i), args[1])) return Value::Bool(true);
  }
  return Value::Bool(false);
}

uint64_t ReceiverTraversalCost(std::span<const Value> args, const Value&) {
  return TraversalCost(args[0]);
}

// Kubernetes' estimate is the list size times the per-element comparison
// cost: 1, plus 0.1 per character for string and bytes elements, and size
// * 0.1 for a dyn receiver. The estimate API passes sizes only (no element
// types or element sizes), and the estimator unions the estimates of every
// overload that may apply, so every element counts 1 here.
CostEstimate ListTraversalEstimate(std::span<const SizeEstimate> args) {
  return {args[0].min, args[0].max};
}

CostEstimate IncludesEstimate(std::span<const SizeEstimate>) {
  return {0, kMaxIncludesListSize};
}

// ---- cel-go ext.Lists ----

Value Slice(const CallContext&, std::span<const Value> args) {
  const ListValue& list = args[0].list();
  int64_t start = args[1].int_value();
  int64_t end = args[2].int_value();
  if (start < 0 || end < 0) {
    return Value::Error(fmt::format(
        "cannot slice({}, {}), negative indexes not supported", start, end));
  }
  if (start > end) {
    return Value::Error(fmt::format(
        "cannot slice({}, {}), start index must be less than or equal to end "
        "index",
        start, end));
  }
  if (static_cast<uint64_t>(end) > list.Size()) {
    return Value::Error(fmt::format("cannot slice({}, {}), list is length {}",
                                    start, end, list.Size()));
  }
  if (start == 0 && static_cast<uint64_t>(end) == list.Size()) return args[0];
  std::vector<Value> items;
  items.reserve(static_cast<size_t>(end - start));
  for (int64_t i = start; i < end; ++i) {
    items.push_back(list.At(static_cast<size_t>(i)));
  }
  return NewList(std::move(items));
}

void FlattenInto(const ListValue& list, int64_t depth,
                 std::vector<Value>* out) {
  for (size_t i = 0; i < list.Size(); ++i) {
    Value item = list.At(i);
    if (depth > 0 && item.kind() == ValueKind::kList) {
      FlattenInto(item.list(), depth - 1, out);
    } else {
      out->push_back(std::move(item));
    }
  }
}

Value Flatten(const CallContext&, std::span<const Value> args) {
  int64_t depth = args.size() > 1 ? args[1].int_value() : 1;
  if (depth < 0) return Value::Error("level must be non-negative");
  std::vector<Value> items;
  FlattenInto(args[0].list(), depth, &items);
  return NewList(std::move(items));
}

Value Range(const CallContext& ctx, std::span<const Value> args) {
  int64_t n = args[0].int_value();
  if (n <= 0) return NewList({});
  // The call costs n + 11; refuse to build a list the budget cannot pay for.
  uint64_t budget = ctx.eval->cost_limit() > ctx.eval->cost()
                        ? ctx.eval->cost_limit() - ctx.eval->cost()
                        : 0;
  if (static_cast<uint64_t>(n) > budget) return CostLimitExceededError();
  std::vector<Value> items;
  items.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) items.push_back(Value::Int(i));
  return NewList(std::move(items));
}

Value Reverse(const CallContext&, std::span<const Value> args) {
  const ListValue& list = args[0].list();
  if (list.Size() <= 1) return args[0];
  std::vector<Value> items;
  items.reserve(list.Size());
  for (size_t i = list.Size(); i > 0; --i) items.push_back(list.At(i - 1));
  return NewList(std::move(items));
}

Value Distinct(const CallContext&, std::span<const Value> args) {
  const ListValue& list = args[0].list();
  std::vector<Value> unique;
  unique.reserve(list.Size());
  for (size_t i = 0; i < list.Size(); ++i) {
    Value item = list.At(i);
    bool seen = false;
    for (const Value& u : unique) {
      if (EqualBool(item, u)) {
        seen = true;
        break;
      }
    }
    if (!seen) unique.push_back(std::move(item));
  }
  if (unique.size() == list.Size()) return args[0];
  return NewList(std::move(unique));
}

// Strict weak order for sorting keys of one kind (NaN after every number).
bool SortLess(const Value& a, const Value& b) {
  if (a.kind() == ValueKind::kDouble) {
    bool a_nan = std::isnan(a.double_value());
    bool b_nan = std::isnan(b.double_value());
    if (a_nan || b_nan) return !a_nan && b_nan;
  }
  return Compare(a, b) == -1;
}

// Sorts `list` stably by the associated `keys` (same length, one comparable
// kind).
Value SortByKeys(const Value& list_value, const ListValue& keys) {
  const ListValue& list = list_value.list();
  if (list.Size() != keys.Size()) {
    return Value::Error(fmt::format(
        "@sortByAssociatedKeys() expected a list of the same size as the "
        "associated keys list, but got {} and {} elements respectively",
        list.Size(), keys.Size()));
  }
  if (list.Size() == 0) return list_value;
  std::vector<Value> key_values = Elements(keys);
  ValueKind kind = key_values[0].kind();
  if (!IsComparableKind(kind)) {
    return Value::Error("list elements must be comparable");
  }
  for (const Value& k : key_values) {
    if (k.kind() != kind) {
      return Value::Error("list elements must have the same type");
    }
  }
  std::vector<size_t> order(list.Size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return SortLess(key_values[a], key_values[b]);
  });
  bool unchanged = true;
  for (size_t i = 0; i < order.size(); ++i) unchanged &= order[i] == i;
  if (unchanged) return list_value;
  std::vector<Value> items;
  items.reserve(order.size());
  for (size_t i : order) items.push_back(list.At(i));
  return NewList(std::move(items));
}

Value Sort(const CallContext&, std::span<const Value> args) {
  return SortByKeys(args[0], args[0].list());
}

Value SortByAssociatedKeys(const CallContext&, std::span<const Value> args) {
  return SortByKeys(args[0], args[1].list());
}

// ---- optional library list helpers ----

Value First(const CallContext&, std::span<const Value> args) {
  const ListValue& list = args[0].list();
  if (list.Size() == 0) return Value::OptionalNone();
  return Value::OptionalOf(list.At(0));
}

Value Last(const CallContext&, std::span<const Value> args) {
  const ListValue& list = args[0].list();
  if (list.Size() == 0) return Value::OptionalNone();
  return Value::OptionalOf(list.At(list.Size() - 1));
}

Value Unwrap(const CallContext&, std::span<const Value> args) {
  const ListValue& list = args[0].list();
  std::vector<Value> items;
  items.reserve(list.Size());
  for (size_t i = 0; i < list.Size(); ++i) {
    Value item = list.At(i);
    if (item.kind() != ValueKind::kOptional) {
      return Value::Error(
          fmt::format("value {} is not optional", item.DebugString()));
    }
    if (item.optional_has_value()) items.push_back(item.optional_value());
  }
  return NewList(std::move(items));
}

// ---- ext.Lists costs (cel-go version 3 trackers and estimators) ----

uint64_t AllocatingListCost(double factor, uint64_t size) {
  double scaled = static_cast<double>(size) * factor;
  uint64_t base = scaled >= 18446744073709551615.0
                      ? kUnboundedSize
                      : static_cast<uint64_t>(scaled);  // truncated
  return SaturatingAdd(SaturatingAdd(base, kCallCost), kListCreateCost);
}

uint64_t OutputSizeCost(std::span<const Value>, const Value& result) {
  return AllocatingListCost(1, ActualSize(result));
}

uint64_t FlattenCost(std::span<const Value> args, const Value&) {
  double depth = 1;
  if (args.size() > 1) depth = std::max<int64_t>(args[1].int_value(), 0);
  return AllocatingListCost(depth, ActualSize(args[0]));
}

uint64_t SelfCompareCost(const Value& list_value) {
  if (list_value.kind() != ValueKind::kList) return kCallCost;
  const ListValue& list = list_value.list();
  uint64_t size = list.Size();
  if (size == 0) return AllocatingListCost(2, 0);
  double factor = 2;
  ValueKind first = list.At(0).kind();
  if (first == ValueKind::kString || first == ValueKind::kBytes) factor += 0.1;
  return AllocatingListCost(factor, SaturatingMul(size, size));
}

uint64_t ReceiverSelfCompareCost(std::span<const Value> args, const Value&) {
  return SelfCompareCost(args[0]);
}

uint64_t KeysSelfCompareCost(std::span<const Value> args, const Value&) {
  return SelfCompareCost(args[1]);
}

// cel-go uses the value of a literal int argument (range size, slice bounds,
// flatten depth) in its estimates. Our estimator passes sizes only, so every
// int argument is treated like a non-literal one: the conservative fallback.
uint64_t ConstantArg(const SizeEstimate&, uint64_t fallback) {
  return fallback;
}

CostEstimate AllocatingListEstimate(double factor, SizeEstimate size) {
  return {
      SaturatingAdd(CeilCost(size.min, factor), kCallCost + kListCreateCost),
      SaturatingAdd(CeilCost(size.max, factor), kCallCost + kListCreateCost)};
}

SizeEstimate SliceSize(std::span<const SizeEstimate> args) {
  uint64_t start = ConstantArg(args[1], 0);
  uint64_t end = ConstantArg(args[2], args[0].max);
  uint64_t n = end >= start ? end - start : 0;
  return {n, n};
}

CostEstimate SliceEstimate(std::span<const SizeEstimate> args) {
  return AllocatingListEstimate(1, SliceSize(args));
}

SizeEstimate RangeSize(std::span<const SizeEstimate> args) {
  uint64_t n = ConstantArg(args[0], kUnboundedSize);
  return {n, n};
}

CostEstimate RangeEstimate(std::span<const SizeEstimate> args) {
  return AllocatingListEstimate(1, RangeSize(args));
}

SizeEstimate ReceiverSize(std::span<const SizeEstimate> args) {
  return args[0];
}

CostEstimate ReverseEstimate(std::span<const SizeEstimate> args) {
  return AllocatingListEstimate(1, args[0]);
}

CostEstimate FlattenEstimate(std::span<const SizeEstimate> args) {
  uint64_t depth = args.size() > 1 ? ConstantArg(args[1], kUnboundedSize) : 1;
  return AllocatingListEstimate(static_cast<double>(depth), args[0]);
}

SizeEstimate SquaredSize(const SizeEstimate& s) {
  return {SaturatingMul(s.min, s.min), SaturatingMul(s.max, s.max)};
}

SizeEstimate ReceiverSquaredSize(std::span<const SizeEstimate> args) {
  return SquaredSize(args[0]);
}

SizeEstimate KeysSquaredSize(std::span<const SizeEstimate> args) {
  return SquaredSize(args[1]);
}

template <bool kSizedElements>
CostEstimate SortEstimate(std::span<const SizeEstimate> args) {
  return AllocatingListEstimate(kSizedElements ? 2.1 : 2, SquaredSize(args[0]));
}

template <bool kSizedElements>
CostEstimate SortByEstimate(std::span<const SizeEstimate> args) {
  return AllocatingListEstimate(kSizedElements ? 2.1 : 2, SquaredSize(args[1]));
}

CostEstimate DistinctEstimate(std::span<const SizeEstimate> args) {
  return AllocatingListEstimate(2, SquaredSize(args[0]));
}

struct ComparableType {
  const char* k8s_name;  // Kubernetes library.Lists overload ids
  const char* cel_name;  // cel-go TypeName(), used in ext.Lists overload ids
  Type type;
  bool sized;  // string or bytes
};

std::vector<ComparableType> ComparableTypes() {
  return {
      {"int", "int", Type::Int(), false},
      {"uint", "uint", Type::Uint(), false},
      {"double", "double", Type::Double(), false},
      {"bool", "bool", Type::Bool(), false},
      {"duration", "google.protobuf.Duration", Type::Duration(), false},
      {"timestamp", "google.protobuf.Timestamp", Type::Timestamp(), false},
      {"string", "string", Type::String(), true},
      {"bytes", "bytes", Type::Bytes(), true},
  };
}

// Kubernetes library.Lists: isSorted, min, max, sum, indexOf, lastIndexOf, and
// DRA's includes.
void RegisterKubernetesLists(FunctionRegistry& registry) {
  const Type a = Type::Param("A");
  const Type list_a = Type::List(a);
  for (const ComparableType& c : ComparableTypes()) {
    const Type list_c = Type::List(c.type);
    EstimateCostFn traversal_estimate = ListTraversalEstimate;
    registry.Add({.id = fmt::format("list_{}_is_sorted_bool", c.k8s_name),
                  .function = "isSorted",
                  .member = true,
                  .params = {list_c},
                  .result = Type::Bool(),
                  .impl = IsSorted,
                  .runtime_cost = ReceiverTraversalCost,
                  .estimate_cost = traversal_estimate});
    registry.Add({.id = fmt::format("list_{}_max_{}", c.k8s_name, c.k8s_name),
                  .function = "max",
                  .member = true,
                  .params = {list_c},
                  .result = c.type,
                  .impl = MinMax<-1>,
                  .runtime_cost = ReceiverTraversalCost,
                  .estimate_cost = traversal_estimate});
    registry.Add({.id = fmt::format("list_{}_min_{}", c.k8s_name, c.k8s_name),
                  .function = "min",
                  .member = true,
                  .params = {list_c},
                  .result = c.type,
                  .impl = MinMax<1>,
                  .runtime_cost = ReceiverTraversalCost,
                  .estimate_cost = traversal_estimate});
  }
  const std::pair<const char*, std::pair<Type, FunctionImpl>> summable[] = {
      {"int", {Type::Int(), Sum<ValueKind::kInt>}},
      {"uint", {Type::Uint(), Sum<ValueKind::kUint>}},
      {"double", {Type::Double(), Sum<ValueKind::kDouble>}},
      {"duration", {Type::Duration(), Sum<ValueKind::kDuration>}},
  };
  for (const auto& [name, type_impl] : summable) {
    registry.Add({.id = fmt::format("list_{}_sum_{}", name, name),
                  .function = "sum",
                  .member = true,
                  .params = {Type::List(type_impl.first)},
                  .result = type_impl.first,
                  .impl = type_impl.second,
                  .runtime_cost = ReceiverTraversalCost,
                  .estimate_cost = ListTraversalEstimate});
  }
  registry.Add({.id = "list_a_index_of_int",
                .function = "indexOf",
                .member = true,
                .params = {list_a, a},
                .result = Type::Int(),
                .impl = ListIndexOf,
                .runtime_cost = ReceiverTraversalCost,
                .estimate_cost = ListTraversalEstimate});
  registry.Add({.id = "list_a_last_index_of_int",
                .function = "lastIndexOf",
                .member = true,
                .params = {list_a, a},
                .result = Type::Int(),
                .impl = ListLastIndexOf,
                .runtime_cost = ReceiverTraversalCost,
                .estimate_cost = ListTraversalEstimate});
  registry.Add({.id = "dra_includes_dyn_dyn",
                .function = "includes",
                .member = true,
                .params = {Type::Dyn(), Type::Dyn()},
                .result = Type::Bool(),
                .impl = Includes,
                .runtime_cost = ReceiverTraversalCost,
                .estimate_cost = IncludesEstimate});
}

// cel-go ext.Lists (version 3): slice, flatten, range, reverse, distinct, sort,
// sortBy.
void RegisterExtLists(FunctionRegistry& registry) {
  const Type t = Type::Param("T");
  const Type list_t = Type::List(t);
  registry.Add({.id = "list_slice",
                .function = "slice",
                .member = true,
                .params = {list_t, Type::Int(), Type::Int()},
                .result = list_t,
                .impl = Slice,
                .runtime_cost = OutputSizeCost,
                .estimate_cost = SliceEstimate,
                .estimate_size = SliceSize});
  registry.Add({.id = "list_flatten",
                .function = "flatten",
                .member = true,
                .params = {Type::List(list_t)},
                .result = list_t,
                .impl = Flatten,
                .runtime_cost = FlattenCost,
                .estimate_cost = FlattenEstimate,
                .estimate_size = ReceiverSize});
  registry.Add({.id = "list_flatten_int",
                .function = "flatten",
                .member = true,
                .params = {Type::List(Type::Dyn()), Type::Int()},
                .result = Type::List(Type::Dyn()),
                .impl = Flatten,
                .runtime_cost = FlattenCost,
                .estimate_cost = FlattenEstimate,
                .estimate_size = ReceiverSize});
  registry.Add({.id = "lists_range",
                .function = "lists.range",
                .member = false,
                .params = {Type::Int()},
                .result = Type::List(Type::Int()),
                .impl = Range,
                .runtime_cost = OutputSizeCost,
                .estimate_cost = RangeEstimate,
                .estimate_size = RangeSize});
  registry.Add({.id = "list_reverse",
                .function = "reverse",
                .member = true,
                .params = {list_t},
                .result = list_t,
                .impl = Reverse,
                .runtime_cost = OutputSizeCost,
                .estimate_cost = ReverseEstimate,
                .estimate_size = ReceiverSize});
  registry.Add({.id = "list_distinct",
                .function = "distinct",
                .member = true,
                .params = {list_t},
                .result = list_t,
                .impl = Distinct,
                .runtime_cost = ReceiverSelfCompareCost,
                .estimate_cost = DistinctEstimate,
                .estimate_size = ReceiverSquaredSize});
  for (const ComparableType& c : ComparableTypes()) {
    const Type list_c = Type::List(c.type);
    registry.Add(
        {.id = fmt::format("list_{}_sort", c.cel_name),
         .function = "sort",
         .member = true,
         .params = {list_c},
         .result = list_c,
         .impl = Sort,
         .runtime_cost = ReceiverSelfCompareCost,
         .estimate_cost = c.sized ? SortEstimate<true> : SortEstimate<false>,
         .estimate_size = ReceiverSquaredSize});
    registry.Add({.id = fmt::format("list_{}_sortByAssociatedKeys", c.cel_name),
                  .function = "@sortByAssociatedKeys",
                  .member = true,
                  .params = {list_t, list_c},
                  .result = list_t,
                  .impl = SortByAssociatedKeys,
                  .runtime_cost = KeysSelfCompareCost,
                  .estimate_cost =
                      c.sized ? SortByEstimate<true> : SortByEstimate<false>,
                  .estimate_size = KeysSquaredSize});
  }
}

// Optional library (version 2) list helpers: first, last, unwrapOpt.
void RegisterOptionalLists(FunctionRegistry& registry) {
  const Type v = Type::Param("V");
  const Type list_v = Type::List(v);
  const Type list_opt_v = Type::List(Type::Optional(v));
  registry.Add({.id = "list_first",
                .function = "first",
                .member = true,
                .params = {list_v},
                .result = Type::Optional(v),
                .impl = First});
  registry.Add({.id = "list_last",
                .function = "last",
                .member = true,
                .params = {list_v},
                .result = Type::Optional(v),
                .impl = Last});
  registry.Add({.id = "optional_unwrap",
                .function = "optional.unwrap",
                .member = false,
                .params = {list_opt_v},
                .result = list_v,
                .impl = Unwrap});
  registry.Add({.id = "optional_unwrapOpt",
                .function = "unwrapOpt",
                .member = true,
                .params = {list_opt_v},
                .result = list_v,
                .impl = Unwrap});
}

}  // namespace

void RegisterListsLibrary(FunctionRegistry& registry) {
  RegisterKubernetesLists(registry);
  RegisterExtLists(registry);
  RegisterOptionalLists(registry);
}

}  // namespace dralloc::cel
