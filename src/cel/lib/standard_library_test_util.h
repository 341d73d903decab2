// Helpers of the standard and time library tests: calls resolved like the
// evaluator over a registry of both libraries, value builders, matchers,
// and whole expressions through Compile().
#ifndef DRALLOC_CEL_LIB_STANDARD_LIBRARY_TEST_UTIL_H_
#define DRALLOC_CEL_LIB_STANDARD_LIBRARY_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cel/check/environment.h"
#include "cel/common/eval_context.h"
#include "cel/common/types.h"
#include "cel/lib/standard_library.h"
#include "cel/lib/time_library.h"
#include "cel/lib/value_builders_test_util.h"
#include "cel/program.h"

namespace dralloc::cel::std_lib_test {

inline const FunctionRegistry& Registry() {
  static const FunctionRegistry* registry = [] {
    auto* r = new FunctionRegistry();
    RegisterStandardLibrary(*r);
    RegisterTimeLibrary(*r);
    return r;
  }();
  return *registry;
}

inline const Overload* Resolve(std::string_view function, bool member,
                               const std::vector<Value>& args) {
  return Registry().Resolve(function, member, args);
}

// Calls a function like the evaluator: the first overload whose parameter
// kinds fit the arguments; no match is a "no matching overload" error.
inline Value Call(std::string_view function, std::vector<Value> args,
                  bool member = false) {
  const Overload* o = Resolve(function, member, args);
  if (o == nullptr) return NoMatchingOverload(function);
  EvalContext eval;
  CallContext ctx{&eval, nullptr};
  return o->impl(ctx, args);
}

inline uint64_t RuntimeCost(std::string_view function, std::vector<Value> args,
                            bool member = false) {
  const Overload* o = Resolve(function, member, args);
  EXPECT_NE(o, nullptr) << function;
  if (o == nullptr) return 0;
  EvalContext eval;
  CallContext ctx{&eval, nullptr};
  Value result = o->impl(ctx, args);
  return o->runtime_cost ? o->runtime_cost(args, result) : 1;
}

inline const Overload* ById(std::string_view function, bool member,
                            std::string_view id) {
  for (const Overload* o : Registry().Find(function, member)) {
    if (o->id == id) return o;
  }
  return nullptr;
}

using test_values::B;
using test_values::D;
using test_values::I;
using test_values::List;
using test_values::Map;
using test_values::S;
using test_values::U;
inline Value Bool(bool v) { return Value::Bool(v); }

// Same kind and CEL-equal (so 1 and 1u differ here).
inline ::testing::AssertionResult SameValue(const Value& got,
                                            const Value& want) {
  if (got.kind() != want.kind() || !EqualBool(got, want)) {
    return ::testing::AssertionFailure()
           << "got " << got.DebugString() << ", want " << want.DebugString();
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult IsErrorWith(const Value& got,
                                              std::string_view substring) {
  if (!got.IsError()) {
    return ::testing::AssertionFailure()
           << "got " << got.DebugString() << ", want an error containing '"
           << substring << "'";
  }
  if (got.error_message().find(substring) == std::string::npos) {
    return ::testing::AssertionFailure() << "error '" << got.error_message()
                                         << "' lacks '" << substring << "'";
  }
  return ::testing::AssertionSuccess();
}

constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();
constexpr int64_t kMinInt = std::numeric_limits<int64_t>::min();
constexpr uint64_t kMaxUint = std::numeric_limits<uint64_t>::max();

// ---- whole expressions ----

inline Value Eval(std::string_view expr) {
  static const std::shared_ptr<Environment> env = Environment::NewStandard();
  auto program = Compile(env, expr);
  if (!program.ok()) {
    return Value::Error("compile: " + program.status().message());
  }
  // Results may borrow program constants: keep every program alive.
  static std::vector<std::shared_ptr<const Program>>* programs =
      new std::vector<std::shared_ptr<const Program>>();
  programs->push_back(*program);
  Activation activation(*env);
  EvalContext ctx;
  return programs->back()->Evaluate(activation, ctx);
}

struct ExprCase {
  const char* expr;
  Value want;
  const char* error = nullptr;
};

inline void RunExprCases(const std::vector<ExprCase>& cases) {
  for (const ExprCase& c : cases) {
    Value got = Eval(c.expr);
    if (c.error != nullptr) {
      EXPECT_TRUE(IsErrorWith(got, c.error)) << c.expr;
    } else {
      EXPECT_TRUE(SameValue(got, c.want)) << c.expr;
    }
  }
}

}  // namespace dralloc::cel::std_lib_test

#endif  // DRALLOC_CEL_LIB_STANDARD_LIBRARY_TEST_UTIL_H_
