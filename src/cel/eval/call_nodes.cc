#include "cel/eval/call_nodes.h"

#include <new>
#include <span>
#include <utility>

#include "cel/eval/leaf_nodes.h"

namespace dralloc::cel {
namespace {

inline bool Passes(const ParamCheck& c, const Value& v) {
  if (c.opaque_name.empty()) return ParamAccepts(*c.param, v);
  if (v.kind() != ValueKind::kOpaque) return false;
  std::string_view name = v.opaque().TypeName();
  return name.size() == c.opaque_name.size() &&
         (name.data() == c.opaque_name.data() || name == c.opaque_name);
}

// Argument slots on the stack, constructed in place from each argument's
// result (no default construction and move per argument).
template <size_t N>
class ArgBuffer {
 public:
  ArgBuffer() = default;
  ArgBuffer(const ArgBuffer&) = delete;
  ArgBuffer& operator=(const ArgBuffer&) = delete;
  ~ArgBuffer() {
    // Unrolled: every slot is normally constructed.
    for (size_t i = 0; i < N; ++i) {
      if (i < size_) data()[i].~Value();
    }
  }
  // Constructs the next slot from a prvalue (guaranteed copy elision).
  template <typename Fn>
  Value& Emplace(Fn&& make) {
    Value* v = new (raw_ + size_ * sizeof(Value)) Value(make());
    ++size_;
    return *v;
  }
  std::span<Value> span() { return std::span<Value>(data(), size_); }

 private:
  Value* data() { return std::launder(reinterpret_cast<Value*>(raw_)); }
  alignas(Value) unsigned char raw_[N * sizeof(Value)];
  size_t size_ = 0;
};

// The comparison operators, which CallNode evaluates on ints without
// dispatch.
inline bool IsRelation(std::string_view function) {
  return function == "_<_" || function == "_<=_" || function == "_>_" ||
         function == "_>=_" || function == "_==_" || function == "_!=_";
}

class CallNode final : public PlanNode {
 public:
  // `exact`: the checker proved the single candidate matches the argument
  // types, so no runtime matching is needed.
  CallNode(std::string function, std::vector<PlanNodePtr> args,
           std::vector<Candidate> candidates, bool exact)
      : function_(std::move(function)),
        args_(std::move(args)),
        candidates_(std::move(candidates)),
        exact_(exact && candidates_.size() == 1 &&
               candidates_[0].overload->strict),
        int_relation_(RelationOf(function_, args_.size())) {
    if (exact_) {
      const Overload& o = *candidates_[0].overload;
      exact_impl_ = o.prechecked_impl ? o.prechecked_impl : o.impl;
    }
    // `x <op> 5`: the constant needs no evaluation (ConstNode has no cost).
    if (int_relation_ != Relation::kNone) {
      const Value* c = ConstNodeValue(*args_[1]);
      if (c != nullptr && c->kind() == ValueKind::kInt) {
        const_int_rhs_ = true;
        int_rhs_ = c->int_value();
      }
    }
  }

  // A thin switch: each variant is its own function (tail call), so the
  // common arities do not pay for the others' stack frames.
  Value Eval(Frame& f) const override {
    if (const_int_rhs_) return EvalIntRelationConst(f);
    switch (args_.size()) {
      case 1:
        return EvalFixed<1>(f);
      case 2:
        return EvalFixed<2>(f);
      case 3:
        return EvalFixed<3>(f);
      default:
        return EvalVector(f);
    }
  }

 private:
  [[gnu::noinline]] Value EvalVector(Frame& f) const {
    std::vector<Value> buffer;
    buffer.reserve(args_.size());
    bool any_error = false;
    for (const PlanNodePtr& a : args_) {
      buffer.push_back(a->Eval(f));
      any_error |= buffer.back().IsError();
    }
    return Dispatch(f, buffer, any_error);
  }

  // Exactly N argument slots on the stack: nothing to construct or destroy
  // beyond what the call uses.
  template <size_t N>
  [[gnu::noinline]] Value EvalFixed(Frame& f) const {
    ArgBuffer<N> buffer;
    bool any_error = false;
    for (size_t i = 0; i < N; ++i) {
      const PlanNode& arg = *args_[i];
      any_error |= buffer.Emplace([&] { return arg.Eval(f); }).IsError();
    }
    return Dispatch(f, buffer.span(), any_error);
  }

  enum class Relation : uint8_t { kNone, kLt, kLe, kGt, kGe, kEq, kNe };

  static Relation RelationOf(std::string_view function, size_t arity) {
    if (arity != 2) return Relation::kNone;
    if (function == "_<_") return Relation::kLt;
    if (function == "_<=_") return Relation::kLe;
    if (function == "_>_") return Relation::kGt;
    if (function == "_>=_") return Relation::kGe;
    if (function == "_==_") return Relation::kEq;
    if (function == "_!=_") return Relation::kNe;
    return Relation::kNone;
  }

  bool Relate(int64_t x, int64_t y) const {
    switch (int_relation_) {
      case Relation::kLt:
        return x < y;
      case Relation::kLe:
        return x <= y;
      case Relation::kGt:
        return x > y;
      case Relation::kGe:
        return x >= y;
      case Relation::kEq:
        return x == y;
      case Relation::kNe:
        return x != y;
      case Relation::kNone:
        break;
    }
    return false;
  }

  // `lhs <op> int-constant`, e.g. `q.compareTo(quantity("1Gi")) >= 0`: an int
  // left operand is compared without materialising the arguments. Same result
  // and cost as the generic path.
  [[gnu::noinline]] Value EvalIntRelationConst(Frame& f) const {
    Value lhs = args_[0]->Eval(f);
    if (lhs.kind() == ValueKind::kInt) {
      if (f.ctx.CostExceeded()) return CostLimitExceededError();
      bool r = Relate(lhs.int_value(), int_rhs_);
      if (!Charge(f, 1)) return CostLimitExceededError();
      return Value::Bool(r);
    }
    Value buffer[2] = {std::move(lhs), args_[1]->Eval(f)};
    return Dispatch(f, buffer, buffer[0].IsError() || buffer[1].IsError());
  }

  // int <op> int, the most common comparison in selectors: no dispatch.
  // Same result and cost (1) as the standard overloads.
  bool IntRelation(const Value& a, const Value& b, Value* out) const {
    if (a.kind() != ValueKind::kInt || b.kind() != ValueKind::kInt) {
      return false;
    }
    *out = Value::Bool(Relate(a.int_value(), b.int_value()));
    return true;
  }

  // Calls the overload that accepts the evaluated arguments.
  Value Dispatch(Frame& f, std::span<Value> values, bool any_error) const {
    if (f.ctx.CostExceeded()) return CostLimitExceededError();
    if (int_relation_ != Relation::kNone) {
      Value result;
      if (IntRelation(values[0], values[1], &result)) {
        if (!Charge(f, 1)) return CostLimitExceededError();
        return result;
      }
    }
    if (exact_ && !any_error) {
      const Candidate& c = candidates_[0];
      CallContext call{&f.ctx, c.prepared};
      Value result = exact_impl_(call, values);
      uint64_t cost = c.overload->runtime_cost
                          ? c.overload->runtime_cost(values, result)
                          : 1;
      if (!Charge(f, cost)) return CostLimitExceededError();
      return result;
    }
    for (const Candidate& c : candidates_) {
      const Overload& o = *c.overload;
      if (any_error && o.strict) continue;
      bool match = true;
      for (const ParamCheck& check : c.checks) {
        const Value& v = values[check.arg];
        if (!Passes(check, v) && (o.strict || !v.IsError())) {
          match = false;
          break;
        }
      }
      if (!match) continue;
      CallContext call{&f.ctx, c.prepared};
      // Strict overloads only get here without error arguments.
      FunctionImpl impl =
          o.strict && o.prechecked_impl ? o.prechecked_impl : o.impl;
      Value result = impl(call, values);
      uint64_t cost = o.runtime_cost ? o.runtime_cost(values, result) : 1;
      if (!Charge(f, cost)) return CostLimitExceededError();
      return result;
    }
    if (any_error) {
      for (Value& v : values) {
        if (v.IsError()) return std::move(v);
      }
    }
    return NoMatchingOverload(function_);
  }

  std::string function_;
  std::vector<PlanNodePtr> args_;
  std::vector<Candidate> candidates_;
  bool exact_;
  Relation int_relation_;
  bool const_int_rhs_ = false;
  int64_t int_rhs_ = 0;
  FunctionImpl exact_impl_ = nullptr;
};

// A call with one strict candidate of unit cost (most library calls in
// selectors, e.g. q.compareTo(quantity("1Gi"))): CallNode's dispatch reduced
// to its single case, with the same results, errors and cost.
template <size_t N>
class SingleOverloadCallNode final : public PlanNode {
 public:
  SingleOverloadCallNode(std::string function, std::vector<PlanNodePtr> args,
                         Candidate candidate)
      : function_(std::move(function)),
        args_(std::move(args)),
        candidate_(std::move(candidate)),
        impl_(candidate_.overload->prechecked_impl
                  ? candidate_.overload->prechecked_impl
                  : candidate_.overload->impl) {}

  Value Eval(Frame& f) const override {
    ArgBuffer<N> buffer;
    bool any_error = false;
    for (size_t i = 0; i < N; ++i) {
      const PlanNode& arg = *args_[i];
      any_error |= buffer.Emplace([&] { return arg.Eval(f); }).IsError();
    }
    if (f.ctx.CostExceeded()) return CostLimitExceededError();
    std::span<Value> values = buffer.span();
    if (any_error) return FirstError(values);
    for (const ParamCheck& check : candidate_.checks) {
      if (!Passes(check, values[check.arg])) {
        return NoMatchingOverload(function_);
      }
    }
    CallContext call{&f.ctx, candidate_.prepared};
    Value result = impl_(call, values);
    if (!Charge(f, 1)) return CostLimitExceededError();
    return result;
  }

 private:
  static Value FirstError(std::span<Value> values) {
    for (Value& v : values) {
      if (v.IsError()) return std::move(v);
    }
    return Value();  // unreachable: called with an error argument
  }

  std::string function_;
  std::vector<PlanNodePtr> args_;
  Candidate candidate_;
  FunctionImpl impl_;
};

// a == b for strings, inline for the short texts selectors compare (driver
// names, attribute values) instead of a memcmp call.
inline bool SameText(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  if (n < 8 || n > 16) return a == b;
  // Two overlapping 8-byte words cover 8..16 bytes.
  uint64_t a0, a1, b0, b1;
  std::memcpy(&a0, a.data(), 8);
  std::memcpy(&b0, b.data(), 8);
  std::memcpy(&a1, a.data() + n - 8, 8);
  std::memcpy(&b1, b.data() + n - 8, 8);
  return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

// `x == "const"` / `x != "const"`: the hot path of selectors.
class EqualsConstStringNode final : public PlanNode {
 public:
  EqualsConstStringNode(PlanNodePtr operand, std::string_view constant,
                        bool negate)
      : operand_(std::move(operand)), constant_(constant), negate_(negate) {
    constant_points_ = CodePointCount(constant_);
    equal_cost_ = CeilCost(constant_points_, 0.1);
  }
  Value Eval(Frame& f) const override {
    Value v = operand_->Eval(f);
    if (v.IsError()) return v;
    if (v.kind() != ValueKind::kString) {
      if (!Charge(f, 1)) return CostLimitExceededError();
      return Value::Bool(EqualBool(v, Value::BorrowedString(constant_)) !=
                         negate_);
    }
    std::string_view s = v.string_view();
    // Cost: ceil(min(code points) * 0.1). Equal texts need no counting.
    bool equal = SameText(s, constant_);
    uint64_t cost =
        equal ? equal_cost_
              : CeilCost(std::min(CodePointCount(s), constant_points_), 0.1);
    if (!Charge(f, cost)) return CostLimitExceededError();
    return Value::Bool(equal != negate_);
  }

 private:
  PlanNodePtr operand_;
  std::string_view constant_;  // aliases program storage
  uint64_t constant_points_ = 0;
  uint64_t equal_cost_ = 0;  // CeilCost(constant_points_, 0.1)
  bool negate_;
};

}  // namespace

// A CallNode, or a SingleOverloadCallNode where that applies.
PlanNodePtr MakeCallNode(std::string function, std::vector<PlanNodePtr> args,
                         std::vector<Candidate> candidates, bool exact) {
  bool single = candidates.size() == 1 && candidates[0].overload->strict &&
                candidates[0].overload->runtime_cost == nullptr &&
                !IsRelation(function);
  if (single) {
    switch (args.size()) {
      case 1:
        return std::make_unique<SingleOverloadCallNode<1>>(
            std::move(function), std::move(args), std::move(candidates[0]));
      case 2:
        return std::make_unique<SingleOverloadCallNode<2>>(
            std::move(function), std::move(args), std::move(candidates[0]));
      case 3:
        return std::make_unique<SingleOverloadCallNode<3>>(
            std::move(function), std::move(args), std::move(candidates[0]));
      default:
        break;
    }
  }
  return std::make_unique<CallNode>(std::move(function), std::move(args),
                                    std::move(candidates), exact);
}

PlanNodePtr MakeEqualsConstStringNode(PlanNodePtr operand,
                                      std::string_view constant, bool negate) {
  return std::make_unique<EqualsConstStringNode>(std::move(operand), constant,
                                                 negate);
}

}  // namespace dralloc::cel
