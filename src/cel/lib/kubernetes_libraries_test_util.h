// Helpers of the Kubernetes library tests: whole expressions through
// Compile() with their costs, expression case tables and value builders.
#ifndef DRALLOC_CEL_LIB_KUBERNETES_LIBRARIES_TEST_UTIL_H_
#define DRALLOC_CEL_LIB_KUBERNETES_LIBRARIES_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cel/check/environment.h"
#include "cel/common/eval_context.h"
#include "cel/lib/all_libraries.h"
#include "cel/lib/format_library.h"
#include "cel/lib/kubernetes_library_util.h"
#include "cel/lib/network_library.h"
#include "cel/lib/quantity_library.h"
#include "cel/lib/semver_library.h"
#include "cel/lib/url_library.h"
#include "cel/program.h"

namespace dralloc::cel::k8s_lib_test {

struct EvalRun {
  std::shared_ptr<const Program> program;  // `value` may borrow from it
  Value value;
  uint64_t cost = 0;
  CostEstimate estimate;
  std::string compile_error;  // non-empty when compilation failed
};

inline EvalRun Evaluate(std::string_view expr) {
  static const std::shared_ptr<Environment> env = Environment::NewStandard();
  EvalRun run;
  auto program = Compile(env, expr);
  if (!program.ok()) {
    run.compile_error = program.status().message();
    if (run.compile_error.empty()) run.compile_error = "compile error";
    return run;
  }
  Activation activation(*env);
  EvalContext ctx;
  run.program = *program;
  run.value = (*program)->Evaluate(activation, ctx);
  run.cost = ctx.cost();
  run.estimate = (*program)->estimated_cost();
  return run;
}

inline std::string Describe(const Value& v) {
  return std::string(v.TypeName()) + " " + v.DebugString();
}

struct Case {
  std::string expr;
  Value want;                 // when `error` is empty
  std::string error = {};     // expected runtime error text (exact)
  bool error_prefix = false;  // `error` is only a prefix of the message
};

inline void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expr);
    const EvalRun run = Evaluate(c.expr);
    ASSERT_EQ(run.compile_error, "") << c.expr;
    if (!c.error.empty()) {
      ASSERT_TRUE(run.value.IsError()) << Describe(run.value);
      if (c.error_prefix) {
        EXPECT_EQ(run.value.error_message().substr(0, c.error.size()), c.error);
      } else {
        EXPECT_EQ(run.value.error_message(), c.error);
      }
      continue;
    }
    ASSERT_FALSE(run.value.IsError()) << run.value.error_message();
    EXPECT_TRUE(EqualBool(run.value, c.want))
        << "got " << Describe(run.value) << ", want " << Describe(c.want);
  }
}

inline Value B(bool b) { return Value::Bool(b); }
inline Value I(int64_t i) { return Value::Int(i); }
inline Value S(std::string s) { return Value::String(std::move(s)); }

inline Value Q(std::string_view text) {
  auto q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text;
  return MakeQuantityValue(q.ok() ? *q : Quantity());
}

inline Value V(std::string_view text) {
  auto v = SemVer::ParseStrict(text);
  EXPECT_TRUE(v.ok()) << text;
  return MakeSemverValue(v.ok() ? *v : SemVer());
}

inline Value Ip(std::string_view text) {
  auto a = ParseIpForCel(text);
  EXPECT_TRUE(a.ok()) << text;
  return Value::Opaque(new IpValue(a.ok() ? *a : IpAddress()));
}

inline Value Cidr(std::string_view text) {
  auto p = ParseCidrForCel(text);
  EXPECT_TRUE(p.ok()) << text;
  return Value::Opaque(new CidrValue(p.ok() ? *p : IpPrefix()));
}

inline Value NoneOpt() { return Value::OptionalNone(); }

inline Value ErrorsOpt(std::vector<std::string> errors) {
  std::vector<Value> items;
  for (std::string& e : errors) items.push_back(S(std::move(e)));
  return Value::OptionalOf(Value::List(new VectorList(std::move(items))));
}

}  // namespace dralloc::cel::k8s_lib_test

#endif  // DRALLOC_CEL_LIB_KUBERNETES_LIBRARIES_TEST_UTIL_H_
