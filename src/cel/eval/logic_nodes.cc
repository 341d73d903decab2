#include "cel/eval/logic_nodes.h"

#include <utility>
#include <vector>

namespace dralloc::cel {
namespace {

// `!b`.
class NotNode final : public PlanNode {
 public:
  explicit NotNode(PlanNodePtr arg) : arg_(std::move(arg)) {}
  Value Eval(Frame& f) const override {
    Value v = arg_->Eval(f);
    if (v.IsError()) return v;
    if (!v.IsBool()) return NoMatchingOverload("!_");
    if (!Charge(f, 1)) return CostLimitExceededError();
    return Value::Bool(!v.bool_value());
  }

 private:
  PlanNodePtr arg_;
};

// `a && b && c` as one node over the left spine of the (balanced) tree the
// parser builds: ((a && b) && c) is evaluated as a left fold with exactly the
// binary node's rules, so results, errors and costs match nested nodes.
class AndOrNode final : public PlanNode {
 public:
  AndOrNode(PlanNodePtr lhs, PlanNodePtr rhs, bool is_and) : is_and_(is_and) {
    auto* nested = dynamic_cast<AndOrNode*>(lhs.get());
    if (nested != nullptr && nested->is_and_ == is_and) {
      operands_ = std::move(nested->operands_);
    } else {
      operands_.push_back(std::move(lhs));
    }
    operands_.push_back(std::move(rhs));
  }
  Value Eval(Frame& f) const override {
    // `decisive` is false for &&, true for ||.
    const bool decisive = !is_and_;
    const PlanNodePtr* next = operands_.data();
    const PlanNodePtr* end = next + operands_.size();
    Value l = (*next)->Eval(f);
    if (l.IsBool() && l.bool_value() == decisive) return l;
    for (++next; next != end; ++next) {
      if (f.ctx.CostExceeded()) return CostLimitExceededError();
      Value r = (*next)->Eval(f);
      if (r.IsBool() && r.bool_value() == decisive) return r;
      if (f.ctx.CostExceeded()) return CostLimitExceededError();
      if (l.IsBool() && r.IsBool()) continue;  // both non-decisive: l stays
      Combine(l, r);
    }
    return l;
  }

 private:
  // The binary result for non-decisive operands that are not both bools.
  [[gnu::noinline]] void Combine(Value& l, Value& r) const {
    if (l.IsError()) return;
    if (r.IsError()) {
      l = std::move(r);
      return;
    }
    l = NoMatchingOverload(is_and_ ? "_&&_" : "_||_");
  }

  std::vector<PlanNodePtr> operands_;
  bool is_and_;
};

class NotStrictlyFalseNode final : public PlanNode {
 public:
  explicit NotStrictlyFalseNode(PlanNodePtr arg) : arg_(std::move(arg)) {}
  Value Eval(Frame& f) const override {
    Value v = arg_->Eval(f);
    if (f.ctx.CostExceeded()) return CostLimitExceededError();
    if (!Charge(f, 1)) return CostLimitExceededError();
    return Value::Bool(!v.IsFalse());
  }

 private:
  PlanNodePtr arg_;
};

class ConditionalNode final : public PlanNode {
 public:
  ConditionalNode(PlanNodePtr c, PlanNodePtr t, PlanNodePtr e)
      : cond_(std::move(c)), then_(std::move(t)), else_(std::move(e)) {}
  Value Eval(Frame& f) const override {
    Value c = cond_->Eval(f);
    if (c.IsError()) return c;
    if (!c.IsBool()) return NoMatchingOverload("_?_:_");
    return c.bool_value() ? then_->Eval(f) : else_->Eval(f);
  }

 private:
  PlanNodePtr cond_, then_, else_;
};

}  // namespace

PlanNodePtr MakeNotNode(PlanNodePtr arg) {
  return std::make_unique<NotNode>(std::move(arg));
}

PlanNodePtr MakeAndOrNode(PlanNodePtr lhs, PlanNodePtr rhs, bool is_and) {
  return std::make_unique<AndOrNode>(std::move(lhs), std::move(rhs), is_and);
}

PlanNodePtr MakeNotStrictlyFalseNode(PlanNodePtr arg) {
  return std::make_unique<NotStrictlyFalseNode>(std::move(arg));
}

PlanNodePtr MakeConditionalNode(PlanNodePtr cond, PlanNodePtr then_branch,
                                PlanNodePtr else_branch) {
  return std::make_unique<ConditionalNode>(
      std::move(cond), std::move(then_branch), std::move(else_branch));
}

}  // namespace dralloc::cel
