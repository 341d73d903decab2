#include "cel/lib/standard_library.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/common/types.h"
#include "cel/lib/standard_library_internal.h"
#include "cel/lib/time_library.h"
#include "fmt/format.h"
#include "re2/re2.h"

namespace dralloc::cel {

namespace {

using standard_internal::A;
using standard_internal::AddSimple;
using standard_internal::Args;
using standard_internal::ConversionError;
using standard_internal::FirstArgTraversalEstimate;
using standard_internal::FirstArgTraversalRuntimeCost;
using standard_internal::RegisterConversions;
using standard_internal::UintOverflow;

constexpr double kStringTraversalCostFactor = 0.1;
constexpr double kRegexStringLengthCostFactor = 0.25;
// Memory budget of one compiled pattern (RE2's default is 8 MiB as well; it is
// set explicitly so that the bound does not drift with the library version).
constexpr int64_t kRegexMaxMemory = 8 << 20;

// ---- cost helpers ----

CostEstimate ScaleEstimate(const SizeEstimate& size, double factor) {
  return {CeilCost(size.min, factor), CeilCost(size.max, factor)};
}

uint64_t TraversalCost(const Value& v) {
  return CeilCost(ActualSize(v), kStringTraversalCostFactor);
}

// `==`, `!=` and ordering of strings/bytes: the shorter operand is traversed.
uint64_t MinSizeRuntimeCost(Args args, const Value&) {
  return CeilCost(std::min(ActualSize(args[0]), ActualSize(args[1])),
                  kStringTraversalCostFactor);
}

CostEstimate MinSizeEstimateCost(std::span<const SizeEstimate> args) {
  uint64_t smallest_max = std::min(args[0].max, args[1].max);
  uint64_t min = smallest_max > 0 ? 1 : 0;
  return {CeilCost(min, kStringTraversalCostFactor),
          CeilCost(smallest_max, kStringTraversalCostFactor)};
}

// cel-go's estimator prices startsWith/endsWith by the argument, not the
// receiver (its `args` exclude the target); mirrored for estimate parity.
CostEstimate SecondArgTraversalEstimate(std::span<const SizeEstimate> args) {
  return ScaleEstimate(args[1], kStringTraversalCostFactor);
}

SizeEstimate SumSizes(std::span<const SizeEstimate> args) {
  return {SaturatingAdd(args[0].min, args[1].min),
          SaturatingAdd(args[0].max, args[1].max)};
}

uint64_t ConcatRuntimeCost(Args args, const Value&) {
  return CeilCost(SaturatingAdd(ActualSize(args[0]), ActualSize(args[1])),
                  kStringTraversalCostFactor);
}

CostEstimate ConcatEstimateCost(std::span<const SizeEstimate> args) {
  return ScaleEstimate(SumSizes(args), kStringTraversalCostFactor);
}

uint64_t ContainsRuntimeCost(Args args, const Value&) {
  return SaturatingMul(TraversalCost(args[0]), TraversalCost(args[1]));
}

CostEstimate ContainsEstimateCost(std::span<const SizeEstimate> args) {
  CostEstimate s = ScaleEstimate(args[0], kStringTraversalCostFactor);
  CostEstimate sub = ScaleEstimate(args[1], kStringTraversalCostFactor);
  return {SaturatingMul(s.min, sub.min), SaturatingMul(s.max, sub.max)};
}

uint64_t MatchesRuntimeCost(Args args, const Value&) {
  uint64_t str_cost = CeilCost(SaturatingAdd(1, ActualSize(args[0])),
                               kStringTraversalCostFactor);
  uint64_t regex_cost =
      CeilCost(ActualSize(args[1]), kRegexStringLengthCostFactor);
  return SaturatingMul(str_cost, regex_cost);
}

CostEstimate MatchesEstimateCost(std::span<const SizeEstimate> args) {
  SizeEstimate str{SaturatingAdd(args[0].min, 1),
                   SaturatingAdd(args[0].max, 1)};
  CostEstimate str_cost = ScaleEstimate(str, kStringTraversalCostFactor);
  CostEstimate regex_cost =
      ScaleEstimate(args[1], kRegexStringLengthCostFactor);
  return {SaturatingMul(str_cost.min, regex_cost.min),
          SaturatingMul(str_cost.max, regex_cost.max)};
}

uint64_t InListRuntimeCost(Args args, const Value&) {
  return ActualSize(args[1]);
}

CostEstimate InListEstimateCost(std::span<const SizeEstimate> args) {
  return ScaleEstimate(args[1], 1.0);
}

// ---- arithmetic ----

Value AddInt(const CallContext&, Args a) {
  int64_t r;
  if (__builtin_add_overflow(a[0].int_value(), a[1].int_value(), &r)) {
    return IntOverflow();
  }
  return Value::Int(r);
}

Value SubtractInt(const CallContext&, Args a) {
  int64_t r;
  if (__builtin_sub_overflow(a[0].int_value(), a[1].int_value(), &r)) {
    return IntOverflow();
  }
  return Value::Int(r);
}

Value MultiplyInt(const CallContext&, Args a) {
  int64_t r;
  if (__builtin_mul_overflow(a[0].int_value(), a[1].int_value(), &r)) {
    return IntOverflow();
  }
  return Value::Int(r);
}

Value DivideInt(const CallContext&, Args a) {
  int64_t x = a[0].int_value(), y = a[1].int_value();
  if (y == 0) return DivisionByZero();
  if (x == std::numeric_limits<int64_t>::min() && y == -1) {
    return IntOverflow();
  }
  return Value::Int(x / y);
}

Value ModuloInt(const CallContext&, Args a) {
  int64_t x = a[0].int_value(), y = a[1].int_value();
  if (y == 0) return ModulusByZero();
  if (x == std::numeric_limits<int64_t>::min() && y == -1) {
    return IntOverflow();
  }
  return Value::Int(x % y);
}

Value NegateInt(const CallContext&, Args a) {
  int64_t x = a[0].int_value();
  if (x == std::numeric_limits<int64_t>::min()) return IntOverflow();
  return Value::Int(-x);
}

Value AddUint(const CallContext&, Args a) {
  uint64_t r;
  if (__builtin_add_overflow(a[0].uint_value(), a[1].uint_value(), &r)) {
    return UintOverflow();
  }
  return Value::Uint(r);
}

Value SubtractUint(const CallContext&, Args a) {
  uint64_t r;
  if (__builtin_sub_overflow(a[0].uint_value(), a[1].uint_value(), &r)) {
    return UintOverflow();
  }
  return Value::Uint(r);
}

Value MultiplyUint(const CallContext&, Args a) {
  uint64_t r;
  if (__builtin_mul_overflow(a[0].uint_value(), a[1].uint_value(), &r)) {
    return UintOverflow();
  }
  return Value::Uint(r);
}

Value DivideUint(const CallContext&, Args a) {
  if (a[1].uint_value() == 0) return DivisionByZero();
  return Value::Uint(a[0].uint_value() / a[1].uint_value());
}

Value ModuloUint(const CallContext&, Args a) {
  if (a[1].uint_value() == 0) return ModulusByZero();
  return Value::Uint(a[0].uint_value() % a[1].uint_value());
}

Value AddDouble(const CallContext&, Args a) {
  return Value::Double(a[0].double_value() + a[1].double_value());
}
Value SubtractDouble(const CallContext&, Args a) {
  return Value::Double(a[0].double_value() - a[1].double_value());
}
Value MultiplyDouble(const CallContext&, Args a) {
  return Value::Double(a[0].double_value() * a[1].double_value());
}
Value DivideDouble(const CallContext&, Args a) {
  return Value::Double(a[0].double_value() / a[1].double_value());
}
Value NegateDouble(const CallContext&, Args a) {
  return Value::Double(-a[0].double_value());
}

// Concatenation of strings or bytes; an empty operand returns the other one
// unchanged (no allocation).
Value Concat(const Value& x, const Value& y, bool bytes) {
  std::string_view a = x.string_view(), b = y.string_view();
  if (b.empty()) return x;
  if (a.empty()) return y;
  std::string out;
  out.reserve(a.size() + b.size());
  out.append(a).append(b);
  return bytes ? Value::Bytes(std::move(out)) : Value::String(std::move(out));
}

Value AddString(const CallContext&, Args a) {
  return Concat(a[0], a[1], false);
}
Value AddBytes(const CallContext&, Args a) { return Concat(a[0], a[1], true); }

Value AddList(const CallContext&, Args a) {
  const ListValue& x = a[0].list();
  const ListValue& y = a[1].list();
  if (y.Size() == 0) return a[0];
  if (x.Size() == 0) return a[1];
  std::vector<Value> items;
  items.reserve(x.Size() + y.Size());
  for (size_t i = 0; i < x.Size(); ++i) items.push_back(x.At(i));
  for (size_t i = 0; i < y.Size(); ++i) items.push_back(y.At(i));
  return Value::List(new VectorList(std::move(items)));
}

Value AddDurations(const CallContext&, Args a) {
  int64_t r;
  if (__builtin_add_overflow(a[0].duration_nanos(), a[1].duration_nanos(),
                             &r)) {
    return IntOverflow();
  }
  return Value::Duration(r);
}

Value SubtractDurations(const CallContext&, Args a) {
  int64_t r;
  if (__builtin_sub_overflow(a[0].duration_nanos(), a[1].duration_nanos(),
                             &r)) {
    return IntOverflow();
  }
  return Value::Duration(r);
}

Value AddTimestampAndDuration(const CallContext&, Args a) {
  return AddTimestampDuration(a[0], a[1].duration_nanos());
}

Value AddDurationAndTimestamp(const CallContext&, Args a) {
  return AddTimestampDuration(a[1], a[0].duration_nanos());
}

Value SubtractDurationFromTimestamp(const CallContext&, Args a) {
  int64_t d = a[1].duration_nanos();
  if (d == std::numeric_limits<int64_t>::min()) return IntOverflow();
  return AddTimestampDuration(a[0], -d);
}

Value SubtractTimestampFromTimestamp(const CallContext&, Args a) {
  return SubtractTimestamps(a[0], a[1]);
}

Value LogicalNot(const CallContext&, Args a) {
  return Value::Bool(!a[0].bool_value());
}

// ---- equality and ordering ----

Value EqualsImpl(const CallContext&, Args a) { return Equal(a[0], a[1]); }

Value NotEqualsImpl(const CallContext&, Args a) {
  Value eq = Equal(a[0], a[1]);
  if (eq.IsError()) return eq;
  return Value::Bool(!eq.bool_value());
}

enum class Relation { kLess, kLessEquals, kGreater, kGreaterEquals };

template <Relation kRelation>
Value RelationImpl(const CallContext&, Args a) {
  int c = Compare(a[0], a[1]);
  if (c == kIncomparable) {
    constexpr std::string_view kNames[] = {"_<_", "_<=_", "_>_", "_>=_"};
    return NoMatchingOverload(kNames[static_cast<int>(kRelation)]);
  }
  if (c == kUnordered) return Value::Bool(false);  // NaN
  switch (kRelation) {
    case Relation::kLess:
      return Value::Bool(c < 0);
    case Relation::kLessEquals:
      return Value::Bool(c <= 0);
    case Relation::kGreater:
      return Value::Bool(c > 0);
    case Relation::kGreaterEquals:
      return Value::Bool(c >= 0);
  }
  return Value::Bool(false);
}

// ---- containers ----

Value IndexList(const CallContext&, Args a) {
  const ListValue& list = a[0].list();
  const Value& index = a[1];
  int64_t i;
  switch (index.kind()) {
    case ValueKind::kInt:
      i = index.int_value();
      break;
    case ValueKind::kUint:
      if (index.uint_value() >
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return Value::Error(fmt::format("unsupported index value {} in list",
                                        index.uint_value()));
      }
      i = static_cast<int64_t>(index.uint_value());
      break;
    case ValueKind::kDouble: {
      double d = index.double_value();
      if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0) ||
          std::trunc(d) != d) {
        return Value::Error(fmt::format("unsupported index value {} in list",
                                        FormatCelDouble(d)));
      }
      i = static_cast<int64_t>(d);
      break;
    }
    default:
      return Value::Error(
          fmt::format("unsupported index type '{}' in list", index.TypeName()));
  }
  if (i < 0 || static_cast<uint64_t>(i) >= list.Size()) {
    return Value::Error(fmt::format("index '{}' out of range in list size '{}'",
                                    i, list.Size()));
  }
  return list.At(static_cast<size_t>(i));
}

Value IndexMap(const CallContext&, Args a) {
  Value out;
  if (!a[0].map().Find(a[1], &out)) return NoSuchKey(a[1]);
  return out;
}

Value InList(const CallContext&, Args a) {
  const ListValue& list = a[1].list();
  for (size_t i = 0; i < list.Size(); ++i) {
    if (EqualBool(list.At(i), a[0])) return Value::Bool(true);
  }
  return Value::Bool(false);
}

Value InMap(const CallContext&, Args a) {
  return Value::Bool(a[1].map().Contains(a[0]));
}

Value SizeImpl(const CallContext&, Args a) {
  return Value::Int(static_cast<int64_t>(ActualSize(a[0])));
}

// ---- strings ----

Value ContainsString(const CallContext&, Args a) {
  return Value::Bool(a[0].string_view().find(a[1].string_view()) !=
                     std::string_view::npos);
}

Value StartsWithString(const CallContext&, Args a) {
  return Value::Bool(a[0].string_view().starts_with(a[1].string_view()));
}

Value EndsWithString(const CallContext&, Args a) {
  return Value::Bool(a[0].string_view().ends_with(a[1].string_view()));
}

RE2::Options RegexOptions() {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingUTF8);
  options.set_log_errors(false);
  options.set_max_mem(kRegexMaxMemory);
  return options;
}

// Compiles a pattern; `error` receives cel-go style text when invalid.
std::unique_ptr<RE2> CompileRegex(std::string_view pattern,
                                  std::string* error) {
  auto re = std::make_unique<RE2>(
      re2::StringPiece(pattern.data(), pattern.size()), RegexOptions());
  if (!re->ok()) {
    *error = fmt::format("error parsing regexp: {}", re->error());
    return nullptr;
  }
  return re;
}

bool PartialMatch(const RE2& re, std::string_view text) {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), re);
}

Value MatchesImpl(const CallContext& ctx, Args a) {
  if (ctx.prepared != nullptr) {
    return Value::Bool(PartialMatch(*static_cast<const RE2*>(ctx.prepared),
                                    a[0].string_view()));
  }
  std::string error;
  std::unique_ptr<RE2> re = CompileRegex(a[1].string_view(), &error);
  if (re == nullptr) return Value::Error(std::move(error));
  return Value::Bool(PartialMatch(*re, a[0].string_view()));
}

// A constant pattern is compiled once; an invalid one fails compilation like
// Kubernetes' ValidateRegexLiterals.
StatusOr<std::shared_ptr<const void>> PrepareMatches(
    std::span<const Value* const> constants) {
  if (constants.size() != 2 || constants[1] == nullptr ||
      constants[1]->kind() != ValueKind::kString) {
    return std::shared_ptr<const void>();
  }
  std::string error;
  std::unique_ptr<RE2> re = CompileRegex(constants[1]->string_view(), &error);
  if (re == nullptr) {
    return InvalidArgumentError("invalid matches argument: " + error);
  }
  return std::shared_ptr<const void>(std::shared_ptr<const RE2>(std::move(re)));
}

// ---- registration ----

Type B() { return Type::Param("B"); }

void RegisterArithmetic(FunctionRegistry& r) {
  const Type i = Type::Int(), u = Type::Uint(), d = Type::Double();
  const Type s = Type::String(), b = Type::Bytes();
  const Type ts = Type::Timestamp(), du = Type::Duration();
  const Type list_a = Type::List(A());

  AddSimple(r, "add_int64", "_+_", {i, i}, i, AddInt);
  AddSimple(r, "add_uint64", "_+_", {u, u}, u, AddUint);
  AddSimple(r, "add_double", "_+_", {d, d}, d, AddDouble);
  r.Add({.id = "add_string",
         .function = "_+_",
         .params = {s, s},
         .result = s,
         .impl = AddString,
         .runtime_cost = ConcatRuntimeCost,
         .estimate_cost = ConcatEstimateCost,
         .estimate_size = SumSizes});
  r.Add({.id = "add_bytes",
         .function = "_+_",
         .params = {b, b},
         .result = b,
         .impl = AddBytes,
         .runtime_cost = ConcatRuntimeCost,
         .estimate_cost = ConcatEstimateCost,
         .estimate_size = SumSizes});
  r.Add({.id = "add_list",
         .function = "_+_",
         .params = {list_a, list_a},
         .result = list_a,
         .impl = AddList,
         .estimate_size = SumSizes});
  AddSimple(r, "add_timestamp_duration", "_+_", {ts, du}, ts,
            AddTimestampAndDuration);
  AddSimple(r, "add_duration_timestamp", "_+_", {du, ts}, ts,
            AddDurationAndTimestamp);
  AddSimple(r, "add_duration_duration", "_+_", {du, du}, du, AddDurations);

  AddSimple(r, "subtract_int64", "_-_", {i, i}, i, SubtractInt);
  AddSimple(r, "subtract_uint64", "_-_", {u, u}, u, SubtractUint);
  AddSimple(r, "subtract_double", "_-_", {d, d}, d, SubtractDouble);
  AddSimple(r, "subtract_timestamp_timestamp", "_-_", {ts, ts}, du,
            SubtractTimestampFromTimestamp);
  AddSimple(r, "subtract_timestamp_duration", "_-_", {ts, du}, ts,
            SubtractDurationFromTimestamp);
  AddSimple(r, "subtract_duration_duration", "_-_", {du, du}, du,
            SubtractDurations);

  AddSimple(r, "multiply_int64", "_*_", {i, i}, i, MultiplyInt);
  AddSimple(r, "multiply_uint64", "_*_", {u, u}, u, MultiplyUint);
  AddSimple(r, "multiply_double", "_*_", {d, d}, d, MultiplyDouble);

  AddSimple(r, "divide_int64", "_/_", {i, i}, i, DivideInt);
  AddSimple(r, "divide_uint64", "_/_", {u, u}, u, DivideUint);
  AddSimple(r, "divide_double", "_/_", {d, d}, d, DivideDouble);

  AddSimple(r, "modulo_int64", "_%_", {i, i}, i, ModuloInt);
  AddSimple(r, "modulo_uint64", "_%_", {u, u}, u, ModuloUint);

  AddSimple(r, "negate_int64", "-_", {i}, i, NegateInt);
  AddSimple(r, "negate_double", "-_", {d}, d, NegateDouble);

  AddSimple(r, "logical_not", "!_", {Type::Bool()}, Type::Bool(), LogicalNot);
}

void RegisterComparisons(FunctionRegistry& r) {
  r.Add({.id = "equals",
         .function = "_==_",
         .params = {A(), A()},
         .result = Type::Bool(),
         .impl = EqualsImpl,
         .runtime_cost = MinSizeRuntimeCost,
         .estimate_cost = MinSizeEstimateCost});
  r.Add({.id = "not_equals",
         .function = "_!=_",
         .params = {A(), A()},
         .result = Type::Bool(),
         .impl = NotEqualsImpl,
         .runtime_cost = MinSizeRuntimeCost,
         .estimate_cost = MinSizeEstimateCost});

  struct Operator {
    std::string_view function;
    std::string_view id_prefix;
    FunctionImpl impl;
  };
  const Operator operators[] = {
      {"_<_", "less", RelationImpl<Relation::kLess>},
      {"_<=_", "less_equals", RelationImpl<Relation::kLessEquals>},
      {"_>_", "greater", RelationImpl<Relation::kGreater>},
      {"_>=_", "greater_equals", RelationImpl<Relation::kGreaterEquals>},
  };
  struct Operands {
    std::string_view id_suffix;
    Type lhs;
    Type rhs;
    bool sized;  // strings and bytes: cost depends on length
  };
  const Operands operands[] = {
      {"bool", Type::Bool(), Type::Bool(), false},
      {"int64", Type::Int(), Type::Int(), false},
      {"int64_double", Type::Int(), Type::Double(), false},
      {"int64_uint64", Type::Int(), Type::Uint(), false},
      {"uint64", Type::Uint(), Type::Uint(), false},
      {"uint64_double", Type::Uint(), Type::Double(), false},
      {"uint64_int64", Type::Uint(), Type::Int(), false},
      {"double", Type::Double(), Type::Double(), false},
      {"double_int64", Type::Double(), Type::Int(), false},
      {"double_uint64", Type::Double(), Type::Uint(), false},
      {"string", Type::String(), Type::String(), true},
      {"bytes", Type::Bytes(), Type::Bytes(), true},
      {"timestamp", Type::Timestamp(), Type::Timestamp(), false},
      {"duration", Type::Duration(), Type::Duration(), false},
  };
  for (const Operator& op : operators) {
    for (const Operands& o : operands) {
      Overload overload{
          .id = fmt::format("{}_{}", op.id_prefix, o.id_suffix),
          .function = std::string(op.function),
          .params = {o.lhs, o.rhs},
          .result = Type::Bool(),
          .impl = op.impl,
      };
      if (o.sized) {
        overload.runtime_cost = MinSizeRuntimeCost;
        overload.estimate_cost = MinSizeEstimateCost;
      }
      r.Add(std::move(overload));
    }
  }
}

void RegisterContainers(FunctionRegistry& r) {
  const Type list_a = Type::List(A());
  const Type map_ab = Type::Map(A(), B());
  AddSimple(r, "index_list", "_[_]", {list_a, Type::Int()}, A(), IndexList);
  // cel-go declares only the int index, but indexes lists with uint and
  // integral double values at runtime (`[7, 8][dyn(0u)]`); the runtime
  // dispatches on value kinds, so these forms need overloads of their own.
  AddSimple(r, "index_list_uint64", "_[_]", {list_a, Type::Uint()}, A(),
            IndexList);
  AddSimple(r, "index_list_double", "_[_]", {list_a, Type::Double()}, A(),
            IndexList);
  AddSimple(r, "index_map", "_[_]", {map_ab, A()}, B(), IndexMap);

  r.Add({.id = "in_list",
         .function = "@in",
         .params = {A(), list_a},
         .result = Type::Bool(),
         .impl = InList,
         .runtime_cost = InListRuntimeCost,
         .estimate_cost = InListEstimateCost});
  AddSimple(r, "in_map", "@in", {A(), map_ab}, Type::Bool(), InMap);

  struct Sized {
    std::string_view global_id;
    std::string_view member_id;
    Type type;
  };
  const Sized sized[] = {
      {"size_string", "string_size", Type::String()},
      {"size_bytes", "bytes_size", Type::Bytes()},
      {"size_list", "list_size", list_a},
      {"size_map", "map_size", map_ab},
  };
  for (const Sized& s : sized) {
    AddSimple(r, std::string(s.global_id), "size", {s.type}, Type::Int(),
              SizeImpl);
    r.Add({.id = std::string(s.member_id),
           .function = "size",
           .member = true,
           .params = {s.type},
           .result = Type::Int(),
           .impl = SizeImpl});
  }
}

void RegisterStrings(FunctionRegistry& r) {
  const Type s = Type::String();
  r.Add({.id = "contains_string",
         .function = "contains",
         .member = true,
         .params = {s, s},
         .result = Type::Bool(),
         .impl = ContainsString,
         .runtime_cost = ContainsRuntimeCost,
         .estimate_cost = ContainsEstimateCost});
  r.Add({.id = "starts_with_string",
         .function = "startsWith",
         .member = true,
         .params = {s, s},
         .result = Type::Bool(),
         .impl = StartsWithString,
         .runtime_cost = FirstArgTraversalRuntimeCost,
         .estimate_cost = SecondArgTraversalEstimate});
  r.Add({.id = "ends_with_string",
         .function = "endsWith",
         .member = true,
         .params = {s, s},
         .result = Type::Bool(),
         .impl = EndsWithString,
         .runtime_cost = FirstArgTraversalRuntimeCost,
         .estimate_cost = SecondArgTraversalEstimate});
  r.Add({.id = "matches_string",
         .function = "matches",
         .member = true,
         .params = {s, s},
         .result = Type::Bool(),
         .impl = MatchesImpl,
         .runtime_cost = MatchesRuntimeCost,
         .estimate_cost = MatchesEstimateCost,
         .prepare = PrepareMatches});
  r.Add({.id = "matches",
         .function = "matches",
         .params = {s, s},
         .result = Type::Bool(),
         .impl = MatchesImpl,
         .prepare = PrepareMatches});
}

}  // namespace

namespace standard_internal {

Value UintOverflow() { return Value::Error("unsigned integer overflow"); }

Value ConversionError(std::string_view from, std::string_view to) {
  return Value::Error(
      fmt::format("type conversion error from '{}' to '{}'", from, to));
}

uint64_t FirstArgTraversalRuntimeCost(Args args, const Value&) {
  return TraversalCost(args[0]);
}

CostEstimate FirstArgTraversalEstimate(std::span<const SizeEstimate> args) {
  return ScaleEstimate(args[0], kStringTraversalCostFactor);
}

Type A() { return Type::Param("A"); }

// An overload with the default cost (1) and no preparation.
void AddSimple(FunctionRegistry& r, std::string id, std::string function,
               std::vector<Type> params, Type result, FunctionImpl impl) {
  r.Add({.id = std::move(id),
         .function = std::move(function),
         .params = std::move(params),
         .result = std::move(result),
         .impl = impl});
}

}  // namespace standard_internal

std::string FormatCelDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  // The shortest round-trip digits in scientific form, e.g. "-4.5e-03".
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), d,
                                 std::chars_format::scientific);
  std::string_view scientific(buffer, static_cast<size_t>(end - buffer));
  size_t e = scientific.find('e');
  int exponent = 0;
  std::string_view exp_text = scientific.substr(e + 1);
  if (!exp_text.empty() && exp_text[0] == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  // Go's 'g' with the shortest precision switches to exponent form below
  // 1e-4 and from 1e+6 (it uses precision 6 for that decision).
  if (exponent < -4 || exponent >= 6) return std::string(scientific);
  auto [fixed_end, fixed_ec] = std::to_chars(buffer, buffer + sizeof(buffer), d,
                                             std::chars_format::fixed);
  return std::string(buffer, static_cast<size_t>(fixed_end - buffer));
}

bool IsWellFormedUtf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t length;
    unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) lo = 0xA0;  // no overlongs
      if (c == 0xED) hi = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) lo = 0x90;  // no overlongs
      if (c == 0xF4) hi = 0x8F;  // at most U+10FFFF
    } else {
      return false;
    }
    if (n - i < length) return false;
    unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
    if (c1 < lo || c1 > hi) return false;
    for (size_t k = 2; k < length; ++k) {
      unsigned char ck = static_cast<unsigned char>(s[i + k]);
      if (ck < 0x80 || ck > 0xBF) return false;
    }
    i += length;
  }
  return true;
}

void RegisterStandardLibrary(FunctionRegistry& registry) {
  RegisterArithmetic(registry);
  RegisterComparisons(registry);
  RegisterContainers(registry);
  RegisterStrings(registry);
  RegisterConversions(registry);
}

}  // namespace dralloc::cel
