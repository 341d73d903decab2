#include "cel/program.h"

#include <optional>
#include <utility>

#include "cel/check/checker.h"
#include "cel/check/cost_estimator.h"
#include "cel/eval/plan_node.h"
#include "cel/eval/planner.h"
#include "cel/syntax/parser.h"

namespace dralloc::cel {

Program::~Program() = default;

namespace {
constexpr int kInlineLocals = 8;
}

Value Program::Evaluate(const Activation& activation, EvalContext& ctx) const {
  if (plan_.max_locals == 0) {
    Frame frame{activation, ctx, nullptr};
    Value result = plan_.root->Eval(frame);
    if (ctx.CostExceeded()) result = CostLimitExceededError();
    return result;
  }
  return EvaluateWithLocals(activation, ctx);
}

Value Program::EvaluateWithLocals(const Activation& activation,
                                  EvalContext& ctx) const {
  Value result;
  if (plan_.max_locals <= kInlineLocals) {
    Value locals[kInlineLocals];
    Frame frame{activation, ctx, locals};
    result = plan_.root->Eval(frame);
  } else {
    std::vector<Value> locals(plan_.max_locals);
    Frame frame{activation, ctx, locals.data()};
    result = plan_.root->Eval(frame);
  }
  if (ctx.CostExceeded()) return CostLimitExceededError();
  return result;
}

StatusOr<std::shared_ptr<const Program>> Compile(
    std::shared_ptr<const Environment> env, std::string_view text,
    const CompileOptions& options) {
  ASSIGN_OR_RETURN(ParsedExpr parsed, Parse(text));
  std::optional<CheckResult> checked;
  if (options.check) {
    ASSIGN_OR_RETURN(CheckResult c, Check(*parsed.root, *parsed.source, *env));
    checked = std::move(c);
  }
  std::shared_ptr<Program> program(new Program());
  program->env_ = env;
  program->source_ = std::string(text);
  if (checked) {
    auto it = checked->types.find(parsed.root->id);
    if (it != checked->types.end()) program->result_type_ = it->second;
    if (options.estimate_cost) {
      program->estimated_cost_ = EstimateCost(*parsed.root, *checked, *env);
    }
  }
  RETURN_IF_ERROR(BuildPlan(*parsed.root, *parsed.source, *env,
                            checked ? &*checked : nullptr, program->plan_));
  return std::shared_ptr<const Program>(std::move(program));
}

}  // namespace dralloc::cel
