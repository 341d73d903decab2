// Compiling CEL text into a Program that evaluates many times.
//
//   auto env = Environment::NewStandard();
//   int x = env->DeclareVariable("x", Type::Int());
//   ASSIGN_OR_RETURN(auto program, Compile(env, "x + 1 > 2"));
//   Activation activation(*env);
//   activation.Set(x, Value::Int(5));
//   EvalContext ctx;
//   Value result = program->Evaluate(activation, ctx);
//
// Programs are immutable and may be evaluated concurrently from many threads,
// each with its own Activation and EvalContext.
#ifndef DRALLOC_CEL_PROGRAM_H_
#define DRALLOC_CEL_PROGRAM_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cel/check/environment.h"
#include "cel/common/eval_context.h"
#include "cel/common/function_registry.h"
#include "cel/common/value.h"
#include "cel/eval/activation.h"
#include "cel/eval/plan.h"
#include "common/status.h"

namespace dralloc::cel {

struct CompileOptions {
  // Type-check before planning. Without checking, unknown identifiers and
  // overload mismatches surface at runtime (cel-spec's disableCheck tests).
  bool check = true;
  // Estimate the cost statically (Program::estimated_cost()).
  bool estimate_cost = true;
};

class Program {
 public:
  ~Program();
  // Evaluates; runtime errors (including "actual cost limit exceeded") come
  // back as error values. The result may borrow from this program (constant
  // strings, lists and library values) and from the activation's values: keep
  // both alive while using it.
  Value Evaluate(const Activation& activation, EvalContext& ctx) const;
  const Type& result_type() const { return result_type_; }
  CostEstimate estimated_cost() const { return estimated_cost_; }
  const std::string& source() const { return source_; }
  const Environment& environment() const { return *env_; }

 private:
  friend StatusOr<std::shared_ptr<const Program>> Compile(
      std::shared_ptr<const Environment>, std::string_view,
      const CompileOptions&);
  Program() = default;
  Value EvaluateWithLocals(const Activation& activation,
                           EvalContext& ctx) const;

  std::shared_ptr<const Environment> env_;
  std::string source_;
  Type result_type_;
  CostEstimate estimated_cost_;
  Plan plan_;
};

// Parses, checks (unless disabled), estimates and plans `text`. Errors are
// kInvalidArgument with cel-go style messages:
//   "ERROR: <input>:1:5: undeclared reference to 'foo' (in container '')"
StatusOr<std::shared_ptr<const Program>> Compile(
    std::shared_ptr<const Environment> env, std::string_view text,
    const CompileOptions& options = {});

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_PROGRAM_H_
