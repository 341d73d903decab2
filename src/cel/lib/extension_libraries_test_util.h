// Helpers of the extension library tests: value builders, direct calls of
// registered overloads by id, and whole expressions through Compile().
#ifndef DRALLOC_CEL_LIB_EXTENSION_LIBRARIES_TEST_UTIL_H_
#define DRALLOC_CEL_LIB_EXTENSION_LIBRARIES_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cel/check/environment.h"
#include "cel/common/eval_context.h"
#include "cel/common/function_registry.h"
#include "cel/common/value.h"
#include "cel/lib/encoders_library.h"
#include "cel/lib/lists_library.h"
#include "cel/lib/optional_library.h"
#include "cel/lib/regex_library.h"
#include "cel/lib/sets_library.h"
#include "cel/lib/strings_library.h"
#include "cel/lib/value_builders_test_util.h"
#include "cel/program.h"

namespace dralloc::cel::ext_lib_test {

// ---- value builders ----

using test_values::B;
using test_values::D;
using test_values::I;
using test_values::S;
using test_values::U;
inline Value L(std::vector<Value> items) {
  return test_values::List(std::move(items));
}
inline Value M(std::vector<std::pair<Value, Value>> entries) {
  return test_values::Map(std::move(entries));
}
inline Value Seconds(int64_t s) { return Value::Duration(s * 1000000000); }

// Same kinds all the way down and CEL-equal.
inline bool Same(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kList:
      if (a.list().Size() != b.list().Size()) return false;
      for (size_t i = 0; i < a.list().Size(); ++i) {
        if (!Same(a.list().At(i), b.list().At(i))) return false;
      }
      return true;
    case ValueKind::kOptional:
      if (a.optional_has_value() != b.optional_has_value()) return false;
      return !a.optional_has_value() ||
             Same(a.optional_value(), b.optional_value());
    case ValueKind::kDouble:
      if (std::isnan(a.double_value())) return std::isnan(b.double_value());
      return a.double_value() == b.double_value();
    case ValueKind::kError:
      return a.error_message() == b.error_message();
    default:
      return EqualBool(a, b);
  }
}

inline const FunctionRegistry& Registry() {
  static const FunctionRegistry* registry = [] {
    auto* r = new FunctionRegistry();
    RegisterStringsLibrary(*r);
    RegisterListsLibrary(*r);
    RegisterSetsLibrary(*r);
    RegisterOptionalLibrary(*r);
    RegisterRegexLibrary(*r);
    RegisterEncodersLibrary(*r);
    return r;
  }();
  return *registry;
}

inline const Overload& ById(std::string_view id) {
  static const auto* by_id = [] {
    auto* m = new std::map<std::string, const Overload*, std::less<>>();
    const char* names[] = {"charAt",
                           "indexOf",
                           "lastIndexOf",
                           "lowerAscii",
                           "upperAscii",
                           "replace",
                           "split",
                           "substring",
                           "trim",
                           "join",
                           "strings.quote",
                           "format",
                           "isSorted",
                           "sum",
                           "min",
                           "max",
                           "includes",
                           "slice",
                           "flatten",
                           "lists.range",
                           "reverse",
                           "distinct",
                           "sort",
                           "@sortByAssociatedKeys",
                           "first",
                           "last",
                           "optional.unwrap",
                           "unwrapOpt",
                           "sets.contains",
                           "sets.equivalent",
                           "sets.intersects",
                           "optional.of",
                           "optional.ofNonZeroValue",
                           "optional.none",
                           "value",
                           "hasValue",
                           "or",
                           "orValue",
                           "_?._",
                           "_[?_]",
                           "_[_]",
                           "find",
                           "findAll",
                           "base64.encode",
                           "base64.decode"};
    for (const char* name : names) {
      for (bool member : {false, true}) {
        for (const Overload* o : Registry().Find(name, member)) {
          EXPECT_TRUE(m->emplace(o->id, o).second) << "duplicate " << o->id;
        }
      }
    }
    return m;
  }();
  auto it = by_id->find(id);
  if (it == by_id->end()) {
    ADD_FAILURE() << "no overload " << id;
    static const Overload none;
    return none;
  }
  return *it->second;
}

struct CallResult {
  Value value;
  uint64_t cost;
};

inline CallResult CallWithCost(std::string_view id, std::vector<Value> args) {
  const Overload& o = ById(id);
  if (o.impl == nullptr) return {Value::Error("missing overload"), 0};
  EXPECT_EQ(o.params.size(), args.size()) << id;
  std::shared_ptr<const void> prepared;
  if (o.prepare != nullptr) {
    std::vector<const Value*> constants;
    for (const Value& a : args) constants.push_back(&a);
    auto state = o.prepare(constants);
    if (!state.ok()) return {Value::Error(state.status().message()), 0};
    prepared = *state;
  }
  EvalContext ctx;
  CallContext call{&ctx, prepared.get()};
  Value result = o.impl(call, args);
  uint64_t cost = o.runtime_cost ? o.runtime_cost(args, result) : 1;
  return {result, cost};
}

inline Value Call(std::string_view id, std::vector<Value> args) {
  return CallWithCost(id, std::move(args)).value;
}

struct Case {
  std::string id;
  std::vector<Value> args;
  Value want;  // an error value: expect an error containing its message
};

inline void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    std::string label = c.id;
    for (const Value& a : c.args) label += " " + a.DebugString();
    Value got = Call(c.id, c.args);
    if (c.want.IsError()) {
      ASSERT_TRUE(got.IsError()) << label << " gave " << got.DebugString();
      EXPECT_NE(got.error_message().find(c.want.error_message()),
                std::string::npos)
          << label << " gave " << got.error_message();
    } else {
      EXPECT_TRUE(Same(got, c.want)) << label << " gave " << got.DebugString()
                                     << ", want " << c.want.DebugString();
    }
  }
}

inline Value Err(std::string message) {
  return Value::Error(std::move(message));
}
inline Value Strs(std::vector<std::string> items) {
  std::vector<Value> values;
  for (auto& s : items) values.push_back(S(s));
  return L(std::move(values));
}

// ---- whole expressions ----

struct Evaluated {
  Status compile;
  // Results may borrow the program's constants: keep it alive.
  std::shared_ptr<const Program> program;
  Value value;
  uint64_t cost = 0;
  CostEstimate estimate;
};

inline Evaluated Evaluate(std::string_view expr, bool check = true) {
  static const std::shared_ptr<const Environment> env =
      Environment::NewStandard();
  Evaluated out;
  CompileOptions options;
  options.check = check;
  auto program = Compile(env, expr, options);
  if (!program.ok()) {
    out.compile = program.status();
    return out;
  }
  out.program = *program;
  Activation activation(*env);
  EvalContext ctx;
  out.value = out.program->Evaluate(activation, ctx);
  out.cost = ctx.cost();
  out.estimate = (*program)->estimated_cost();
  return out;
}

struct ExprCase {
  std::string expr;
  // A CEL expression for the expected value (compared by kind and value),
  // or "error:<substring>" for an evaluation error.
  std::string want = "true";
  bool check = true;
};

inline void RunExprCases(const std::vector<ExprCase>& cases) {
  for (const ExprCase& c : cases) {
    Evaluated got = Evaluate(c.expr, c.check);
    ASSERT_TRUE(got.compile.ok()) << c.expr << ": " << got.compile;
    if (c.want.rfind("error:", 0) == 0) {
      std::string part = c.want.substr(6);
      ASSERT_TRUE(got.value.IsError())
          << c.expr << " gave " << got.value.DebugString();
      EXPECT_NE(got.value.error_message().find(part), std::string::npos)
          << c.expr << " gave " << got.value.error_message();
      continue;
    }
    Evaluated want = Evaluate(c.want);
    ASSERT_TRUE(want.compile.ok()) << c.want << ": " << want.compile;
    EXPECT_TRUE(Same(got.value, want.value))
        << c.expr << " gave " << got.value.DebugString() << ", want "
        << want.value.DebugString();
  }
}

}  // namespace dralloc::cel::ext_lib_test

#endif  // DRALLOC_CEL_LIB_EXTENSION_LIBRARIES_TEST_UTIL_H_
