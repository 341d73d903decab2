// Function declarations and implementations, shared by the checker (types),
// the cost estimator, the planner and the evaluator.
//
// A library is a function `void RegisterXxx(FunctionRegistry&)` that adds
// overloads. An overload is one signature of one function name; receiver-style
// overloads (`s.startsWith(p)`) have member = true and take the receiver as
// params[0] / args[0].
#ifndef DRALLOC_CEL_COMMON_FUNCTION_REGISTRY_H_
#define DRALLOC_CEL_COMMON_FUNCTION_REGISTRY_H_

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cel/common/types.h"
#include "cel/common/value.h"
#include "common/status.h"

namespace dralloc::cel {

class EvalContext;

// What an implementation receives besides its arguments.
struct CallContext {
  EvalContext* eval = nullptr;     // cost and cancellation; never null
  const void* prepared = nullptr;  // Overload::prepare's state, if any
};

// Arguments are never errors for strict overloads. Returns the result or an
// error value (Value::Error / NoMatchingOverload ...); never throws.
using FunctionImpl = Value (*)(const CallContext& ctx,
                               std::span<const Value> args);

struct CostEstimate {
  uint64_t min = 0;
  uint64_t max = 0;
};
inline constexpr uint64_t kUnboundedSize = std::numeric_limits<uint64_t>::max();
struct SizeEstimate {
  uint64_t min = 0;
  uint64_t max = kUnboundedSize;
};

// Runtime cost of one call, given its evaluated arguments and the result.
// nullptr means 1.
using RuntimeCostFn = uint64_t (*)(std::span<const Value> args,
                                   const Value& result);
// Estimated cost of one call from the size estimates of its arguments
// (receiver first). nullptr means {1, 1}.
using EstimateCostFn = CostEstimate (*)(std::span<const SizeEstimate> args);
// Estimated size of the result (string length, list size...). nullptr means
// unknown (unbounded).
using EstimateSizeFn = SizeEstimate (*)(std::span<const SizeEstimate> args);
// Called once at plan time when at least one argument is a constant:
// `constant_args[i]` is null for non-constant arguments. Returns state passed
// to every call as CallContext::prepared (e.g. a compiled regex), nullptr for
// nothing to prepare, or an error that makes compilation fail (an invalid
// regex or duration literal).
using PrepareFn = StatusOr<std::shared_ptr<const void>> (*)(
    std::span<const Value* const> constant_args);

struct Overload {
  std::string id;        // unique, e.g. "add_int64", "string_starts_with"
  std::string function;  // "_+_", "startsWith", "optional.of", "sets.contains"
  bool member = false;
  std::vector<Type> params;
  Type result;
  FunctionImpl impl = nullptr;
  // Non-strict overloads also receive error arguments (e.g.
  // @not_strictly_false).
  bool strict = true;
  RuntimeCostFn runtime_cost = nullptr;
  EstimateCostFn estimate_cost = nullptr;
  EstimateSizeFn estimate_size = nullptr;
  PrepareFn prepare = nullptr;
  // Optional faster `impl` for strict overloads, called only when the
  // dispatcher has established that every argument satisfies its parameter
  // (ParamAccepts holds, no argument is an error), so it may skip the
  // library's own type checks. Must return exactly what `impl` returns.
  FunctionImpl prechecked_impl = nullptr;
};

class FunctionRegistry {
 public:
  // Adds an overload. Duplicate ids are a programming error (asserted).
  void Add(Overload overload);
  // All overloads of `function` with the given call style, in the order added.
  std::span<const Overload* const> Find(std::string_view function,
                                        bool member) const;
  bool HasFunction(std::string_view function) const;
  // The runtime dispatch rule: the first overload of `function` whose
  // parameters accept `args` (see ParamAccepts), or null.
  const Overload* Resolve(std::string_view function, bool member,
                          std::span<const Value> args) const;

 private:
  std::vector<std::unique_ptr<Overload>> overloads_;
  std::map<std::pair<std::string, bool>, std::vector<const Overload*>,
           std::less<>>
      by_name_;
};

// Whether a runtime value fits a declared parameter: dyn and type parameters
// take anything, opaque types must match by name, maps also serve object
// types. Errors fit nothing.
bool ParamAccepts(const Type& param, const Value& value);

// ---- cost helpers (cel-go's unit costs) ----

// ceil(n * factor) as cel-go computes it (float math, then ceil).
uint64_t CeilCost(uint64_t n, double factor);
// Number of Unicode code points in UTF-8 text (counts non-continuation
// bytes, eight at a time).
uint64_t CodePointCount(std::string_view text);
// cel-go's "actual size" of a value for runtime costs: code points for
// strings, octets for bytes, elements for lists and maps, 1 otherwise.
uint64_t ActualSize(const Value& v);
// Multiplication and addition saturating at kUnboundedSize.
uint64_t SaturatingMul(uint64_t a, uint64_t b);
uint64_t SaturatingAdd(uint64_t a, uint64_t b);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_COMMON_FUNCTION_REGISTRY_H_
