// Turns a (checked) AST into PlanNodes and implements Compile().
#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <span>
#include <unordered_set>

#include "cel/check/checker.h"
#include "cel/check/cost_estimator.h"
#include "cel/eval/plan_node.h"
#include "cel/program.h"
#include "cel/syntax/parser.h"
#include "fmt/format.h"

namespace dralloc::cel {

Value CostLimitExceededError() {
  return Value::Error("operation cancelled: actual cost limit exceeded");
}
Value InterruptedError() { return Value::Error("operation interrupted"); }

namespace {

// cel-go's names of runtime types in iteration errors.
std::string_view GoTypeName(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kInt:
      return "types.Int";
    case ValueKind::kUint:
      return "types.Uint";
    case ValueKind::kDouble:
      return "types.Double";
    case ValueKind::kBool:
      return "types.Bool";
    case ValueKind::kString:
      return "types.String";
    case ValueKind::kBytes:
      return "types.Bytes";
    case ValueKind::kNull:
      return "types.Null";
    case ValueKind::kDuration:
      return "types.Duration";
    case ValueKind::kTimestamp:
      return "types.Timestamp";
    case ValueKind::kType:
      return "types.Type";
    case ValueKind::kOptional:
      return "types.Optional";
    default:
      return v.TypeName();
  }
}

inline bool Charge(Frame& f, uint64_t units) { return f.ctx.AddCost(units); }

// ---- leaves ----

class ConstNode final : public PlanNode {
 public:
  explicit ConstNode(Value v) : value_(std::move(v)) {}
  Value Eval(Frame&) const override { return value_; }
  const Value* constant() const override { return &value_; }

 private:
  Value value_;  // an alias of program-owned storage
};

// The value of a call or literal whose operands are all constants, computed
// once at plan time. Evaluation still charges the runtime cost the original
// expression would have, so cost tracking matches cel-go.
class FoldedNode final : public PlanNode {
 public:
  FoldedNode(Value v, uint64_t cost)
      : value_(std::move(v)), alias_(Value::Alias(value_)), cost_(cost) {}
  Value Eval(Frame& f) const override {
    if (cost_ != 0 && !Charge(f, cost_)) return CostLimitExceededError();
    return alias_;
  }
  const Value* constant() const override { return &value_; }

 private:
  Value value_;  // owned by the plan
  Value alias_;  // Value::Alias(value_): copies need no reference counting
  uint64_t cost_;
};

class VariableNode final : public PlanNode {
 public:
  explicit VariableNode(int slot) : slot_(slot) {}
  Value Eval(Frame& f) const override {
    if (!Charge(f, 1)) return CostLimitExceededError();
    return f.activation.Get(slot_);
  }

 private:
  int slot_;
};

class LocalNode final : public PlanNode {
 public:
  explicit LocalNode(int slot) : slot_(slot) {}
  Value Eval(Frame& f) const override {
    if (!Charge(f, 1)) return CostLimitExceededError();
    return f.locals[slot_];
  }
  int slot() const { return slot_; }

 private:
  int slot_;
};

class ErrorNode final : public PlanNode {
 public:
  explicit ErrorNode(std::string message) : message_(std::move(message)) {}
  Value Eval(Frame&) const override { return Value::Error(message_); }

 private:
  std::string message_;
};

// ---- selection ----

// Applies `.field` to `operand`; `optional` gives `.?field` semantics.
Value SelectField(const Value& operand, std::string_view field, bool test_only,
                  bool optional) {
  switch (operand.kind()) {
    case ValueKind::kMap: {
      if (test_only) {
        return Value::Bool(
            operand.map().Contains(Value::BorrowedString(field)));
      }
      Value out;
      bool found = operand.map().FindString(field, &out);
      if (optional)
        return found ? Value::OptionalOf(out) : Value::OptionalNone();
      if (!found) return NoSuchKey(Value::BorrowedString(field));
      return out;
    }
    case ValueKind::kOptional:
      if (!operand.optional_has_value()) {
        return test_only ? Value::Bool(false) : operand;
      }
      return SelectField(operand.optional_value(), field, test_only, true);
    case ValueKind::kError:
      return operand;
    default:
      if (test_only) return NoMatchingOverload("has");
      return Value::Error(fmt::format("no such field: {} (type {})", field,
                                      operand.TypeName()));
  }
}

// A chain of field selects and constant-key indexes on a variable or a
// comprehension variable, e.g. device.capacity["gpu.example.com"].memory:
// one node and one loop instead of a node per step. Same results and costs
// as the separate nodes (1 for the variable, 1 per step).
class PathNode final : public PlanNode {
 public:
  struct Step {
    std::string_view key;   // aliases program storage
    bool index;             // `["key"]` rather than `.key`
    const std::string* id;  // Intern(key), or null
  };
  PathNode(int slot, bool local, std::vector<Step> steps)
      : slot_(slot), local_(local), steps_(std::move(steps)) {
    for (const Step& step : steps_) {
      if (step.id == nullptr) break;
      ids_.push_back(step.id);
    }
  }

  Value Eval(Frame& f) const override {
    const Value* current = local_ ? &f.locals[slot_] : &f.activation.Get(slot_);
    // Fast path: maps that answer by reference (device views), as far as the
    // keys are interned.
    size_t i = 0;
    if (current->kind() == ValueKind::kMap && !ids_.empty()) {
      i = current->map().FindInternedPathRef(ids_.data(), ids_.size(),
                                             &current);
      if (current == MapValue::MissingKey()) return Missing(f, i);
    }
    if (i == steps_.size()) {
      if (!Charge(f, i + 1)) return CostLimitExceededError();
      // The result may borrow from the activation's values (Evaluate's
      // contract): no reference counting. Locals may die before the result.
      return local_ ? *current : Value::Alias(*current);
    }
    return EvalSlow(f, *current, i);
  }

 private:
  // Step `i` names an absent key.
  [[gnu::noinline]] Value Missing(Frame& f, size_t i) const {
    if (!Charge(f, i + 2)) return CostLimitExceededError();
    return NoSuchKey(Value::BorrowedString(steps_[i].key));
  }

  // The remaining steps from `start`, on values that need temporaries.
  [[gnu::noinline]] Value EvalSlow(Frame& f, Value current,
                                   size_t start) const {
    uint64_t charged = 1 + start;
    for (size_t i = start; i < steps_.size(); ++i) {
      const Step& step = steps_[i];
      ++charged;
      Value next;
      if (current.kind() == ValueKind::kMap) {
        bool found = step.id != nullptr
                         ? current.map().FindInterned(step.id, &next)
                         : current.map().FindString(step.key, &next);
        if (!found) {
          next = NoSuchKey(Value::BorrowedString(step.key));
        }
      } else if (step.index && current.kind() != ValueKind::kOptional) {
        next = current.IsError() ? current : NoMatchingOverload("_[_]");
      } else {
        next = SelectField(current, step.key, false, step.index);
      }
      if (next.IsError()) {
        if (!Charge(f, charged)) return CostLimitExceededError();
        return next;
      }
      current = std::move(next);
    }
    if (!Charge(f, charged)) return CostLimitExceededError();
    return current;
  }

  int slot_;
  bool local_;
  std::vector<Step> steps_;
  std::vector<const std::string*> ids_;  // the interned prefix of the keys
};

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

class SelectNode final : public PlanNode {
 public:
  SelectNode(PlanNodePtr operand, std::string field, bool test_only,
             uint64_t cost)
      : operand_(std::move(operand)),
        field_(std::move(field)),
        test_only_(test_only),
        cost_(cost) {}
  Value Eval(Frame& f) const override {
    Value operand = operand_->Eval(f);
    if (operand.IsError()) return operand;
    if (!Charge(f, cost_)) return CostLimitExceededError();
    return SelectField(operand, field_, test_only_, false);
  }

 private:
  PlanNodePtr operand_;
  std::string field_;
  bool test_only_;
  uint64_t cost_;
};

// `m["const"]` on maps: the common DRA form device.attributes["domain"].
class IndexConstStringNode final : public PlanNode {
 public:
  IndexConstStringNode(PlanNodePtr operand, std::string_view key)
      : operand_(std::move(operand)), key_(key) {}
  Value Eval(Frame& f) const override {
    Value operand = operand_->Eval(f);
    if (operand.IsError()) return operand;
    if (!Charge(f, 1)) return CostLimitExceededError();
    if (operand.kind() == ValueKind::kOptional) {
      return SelectField(operand, key_, false, true);
    }
    if (operand.kind() != ValueKind::kMap) return NoMatchingOverload("_[_]");
    Value out;
    if (!operand.map().FindString(key_, &out)) {
      return NoSuchKey(Value::BorrowedString(key_));
    }
    return out;
  }

 private:
  PlanNodePtr operand_;
  std::string_view key_;  // aliases program storage
};

// ---- logic ----

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

// ---- calls ----

// A parameter the checker could not prove for a candidate, tested on the
// argument at runtime with ParamAccepts' rule.
struct ParamCheck {
  size_t arg;
  const Type* param;
  // For opaque parameters: the type name, preferably the library's own
  // constant so that the usual match is one pointer comparison.
  std::string_view opaque_name;
};

inline bool Passes(const ParamCheck& c, const Value& v) {
  if (c.opaque_name.empty()) return ParamAccepts(*c.param, v);
  if (v.kind() != ValueKind::kOpaque) return false;
  std::string_view name = v.opaque().TypeName();
  return name.size() == c.opaque_name.size() &&
         (name.data() == c.opaque_name.data() || name == c.opaque_name);
}

struct Candidate {
  const Overload* overload;
  const void* prepared;
  std::vector<ParamCheck> checks;  // the parameters to test at runtime
};

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
      const auto* c = dynamic_cast<const ConstNode*>(args_[1].get());
      if (c != nullptr && c->constant()->kind() == ValueKind::kInt) {
        const_int_rhs_ = true;
        int_rhs_ = c->constant()->int_value();
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

// ---- literals ----

class ListNode final : public PlanNode {
 public:
  ListNode(std::vector<PlanNodePtr> elements, std::vector<bool> optional)
      : elements_(std::move(elements)), optional_(std::move(optional)) {}
  Value Eval(Frame& f) const override {
    std::vector<Value> items;
    items.reserve(elements_.size());
    for (size_t i = 0; i < elements_.size(); ++i) {
      Value v = elements_[i]->Eval(f);
      if (v.IsError()) return v;
      if (optional_[i]) {
        if (v.kind() != ValueKind::kOptional) {
          return NoMatchingOverload("optional list element");
        }
        if (!v.optional_has_value()) continue;
        items.push_back(v.optional_value());
        continue;
      }
      items.push_back(std::move(v));
    }
    if (!Charge(f, 10)) return CostLimitExceededError();
    return Value::List(new VectorList(std::move(items)));
  }

 private:
  std::vector<PlanNodePtr> elements_;
  std::vector<bool> optional_;
};

class MapNode final : public PlanNode {
 public:
  struct Entry {
    PlanNodePtr key;
    PlanNodePtr value;
    bool optional;
  };
  explicit MapNode(std::vector<Entry> entries) : entries_(std::move(entries)) {}
  Value Eval(Frame& f) const override {
    auto* map = new EntryMap();
    Value out = Value::Map(map);
    for (const Entry& e : entries_) {
      Value k = e.key->Eval(f);
      if (k.IsError()) return k;
      Value v = e.value->Eval(f);
      if (v.IsError()) return v;
      if (!IsValidMapKey(k)) {
        return Value::Error(
            fmt::format("unsupported key type: {}", k.TypeName()));
      }
      if (e.optional) {
        if (v.kind() != ValueKind::kOptional) {
          return NoMatchingOverload("optional map entry");
        }
        if (!v.optional_has_value()) continue;
        v = Value(v.optional_value());
      }
      if (!map->Insert(std::move(k), std::move(v))) {
        return Value::Error("Failed with repeated key");
      }
    }
    if (!Charge(f, 30)) return CostLimitExceededError();
    return out;
  }

 private:
  std::vector<Entry> entries_;
};

// ---- comprehensions ----

class ComprehensionNode final : public PlanNode {
 public:
  // The loop conditions of all() and exists(), recognised by the planner and
  // evaluated inline (same result and cost as the expanded expression).
  enum class Condition : uint8_t {
    kGeneric,
    kUntilFalse,  // @not_strictly_false(@result)
    kUntilTrue,   // @not_strictly_false(!@result)
  };

  ComprehensionNode(PlanNodePtr range, PlanNodePtr init, PlanNodePtr cond,
                    PlanNodePtr step, PlanNodePtr result, int iter_slot,
                    int iter2_slot, int accu_slot)
      : range_(std::move(range)),
        init_(std::move(init)),
        cond_(std::move(cond)),
        step_(std::move(step)),
        result_(std::move(result)),
        iter_slot_(iter_slot),
        iter2_slot_(iter2_slot),
        accu_slot_(accu_slot) {}

  Value Eval(Frame& f) const override {
    Value range = range_->Eval(f);
    if (range.IsError()) return range;
    if (range.kind() != ValueKind::kList && range.kind() != ValueKind::kMap) {
      return Value::Error(
          fmt::format("got '{}', expected iterable type", GoTypeName(range)));
    }
    Value accu = init_->Eval(f);
    if (accu.IsError() && f.ctx.CostExceeded()) return accu;
    f.locals[accu_slot_] = std::move(accu);
    bool is_list = range.kind() == ValueKind::kList;
    size_t n = is_list ? range.list().Size() : range.map().Size();
    for (size_t i = 0; i < n; ++i) {
      if (i % kInterruptCheckFrequency == kInterruptCheckFrequency - 1 &&
          f.ctx.Cancelled()) {
        return InterruptedError();
      }
      if (f.ctx.CostExceeded()) return CostLimitExceededError();
      BindIteration(f, range, is_list, i);
      if (!ContinueLoop(f)) break;
      Value next = step_->Eval(f);
      f.locals[accu_slot_] = std::move(next);
    }
    if (f.ctx.CostExceeded()) return CostLimitExceededError();
    Value out = result_->Eval(f);
    f.locals[accu_slot_] = Value();
    if (iter_slot_ >= 0) f.locals[iter_slot_] = Value();
    if (iter2_slot_ >= 0) f.locals[iter2_slot_] = Value();
    return out;
  }

 private:
  void BindIteration(Frame& f, const Value& range, bool is_list,
                     size_t i) const {
    if (is_list) {
      if (iter2_slot_ >= 0) {
        f.locals[iter_slot_] = Value::Int(static_cast<int64_t>(i));
        f.locals[iter2_slot_] = range.list().At(i);
      } else if (iter_slot_ >= 0) {
        f.locals[iter_slot_] = range.list().At(i);
      }
      return;
    }
    if (iter_slot_ >= 0) f.locals[iter_slot_] = range.map().KeyAt(i);
    if (iter2_slot_ >= 0) f.locals[iter2_slot_] = range.map().ValueAt(i);
  }

  bool ContinueLoop(Frame& f) const {
    const Value& accu = f.locals[accu_slot_];
    switch (condition_) {
      case Condition::kUntilFalse:
        f.ctx.AddCost(2);
        return !accu.IsFalse();
      case Condition::kUntilTrue:
        f.ctx.AddCost(accu.IsBool() ? 3 : 2);
        return !accu.IsTrue();
      case Condition::kGeneric:
        break;
    }
    return cond_->Eval(f).IsTrue();
  }

 public:
  Condition condition_ = Condition::kGeneric;

 private:
  PlanNodePtr range_, init_, cond_, step_, result_;
  int iter_slot_, iter2_slot_, accu_slot_;
};

// `@result + [elem]` inside a comprehension: appends in place when the
// accumulator is not shared, so map()/filter() are linear, not quadratic.
class AppendNode final : public PlanNode {
 public:
  AppendNode(int accu_slot, PlanNodePtr element, PlanNodePtr generic)
      : accu_slot_(accu_slot),
        element_(std::move(element)),
        generic_(std::move(generic)) {}
  Value Eval(Frame& f) const override {
    Value& slot = f.locals[accu_slot_];
    if (slot.kind() != ValueKind::kList) return generic_->Eval(f);
    Value elem = element_->Eval(f);
    if (elem.IsError()) return elem;
    // Same charges as `@result` (1) + list literal (10) + `_+_` (1).
    if (!Charge(f, 12)) return CostLimitExceededError();
    Value accu = std::move(slot);
    if (!accu.IsUniquelyOwned()) {
      std::vector<Value> items;
      const ListValue& l = accu.list();
      items.reserve(l.Size() + 1);
      for (size_t i = 0; i < l.Size(); ++i) items.push_back(l.At(i));
      accu = Value::List(new VectorList(std::move(items)));
    }
    auto* list =
        const_cast<VectorList*>(dynamic_cast<const VectorList*>(&accu.list()));
    if (list == nullptr) {
      slot = std::move(accu);
      return generic_->Eval(f);
    }
    list->mutable_items().push_back(std::move(elem));
    return accu;
  }

 private:
  int accu_slot_;
  PlanNodePtr element_;
  PlanNodePtr generic_;
};

// cel.@mapInsert(accu, key, value) and cel.@mapInsert(accu, map).
class MapInsertNode final : public PlanNode {
 public:
  MapInsertNode(std::vector<PlanNodePtr> args) : args_(std::move(args)) {}
  Value Eval(Frame& f) const override {
    std::vector<Value> v;
    for (const PlanNodePtr& a : args_) {
      v.push_back(a->Eval(f));
      if (v.back().IsError()) return v.back();
    }
    if (!Charge(f, 1)) return CostLimitExceededError();
    if (v[0].kind() != ValueKind::kMap)
      return NoMatchingOverload("cel.@mapInsert");
    Value accu = std::move(v[0]);
    auto* map =
        accu.IsUniquelyOwned()
            ? const_cast<EntryMap*>(dynamic_cast<const EntryMap*>(&accu.map()))
            : nullptr;
    if (map == nullptr) {
      map = new EntryMap();
      const MapValue& old = accu.map();
      for (size_t i = 0; i < old.Size(); ++i) {
        map->Insert(old.KeyAt(i), old.ValueAt(i));
      }
      accu = Value::Map(map);
    }
    auto insert = [&](Value k, Value val) -> Value {
      if (!IsValidMapKey(k)) {
        return Value::Error(
            fmt::format("unsupported key type: {}", k.TypeName()));
      }
      std::string shown = k.DebugString();
      if (!map->Insert(std::move(k), std::move(val))) {
        return Value::Error(
            fmt::format("insert failed: key {} already exists", shown));
      }
      return Value();
    };
    if (v.size() == 3) {
      Value err = insert(std::move(v[1]), std::move(v[2]));
      if (err.IsError()) return err;
      return accu;
    }
    if (v[1].kind() != ValueKind::kMap)
      return NoMatchingOverload("cel.@mapInsert");
    const MapValue& entries = v[1].map();
    for (size_t i = 0; i < entries.Size(); ++i) {
      Value err = insert(entries.KeyAt(i), entries.ValueAt(i));
      if (err.IsError()) return err;
    }
    return accu;
  }

 private:
  std::vector<PlanNodePtr> args_;
};

}  // namespace

// ---- planner ----

class Planner {
 public:
  Planner(const Environment& env, const CheckResult* checked, Program& program)
      : env_(env), checked_(checked), program_(program) {}

  StatusOr<PlanNodePtr> Plan(const Expr& e) {
    PlanNodePtr node = Visit(e);
    if (!error_.ok()) return error_;
    return node;
  }
  int max_locals() const { return max_locals_; }

 private:
  // Keeps `v` alive in the program and returns a non-owning alias.
  Value Keep(Value v) {
    if (v.kind() == ValueKind::kString || v.kind() == ValueKind::kBytes) {
      auto text = std::make_unique<std::string>(v.string_view());
      std::string_view view = *text;
      program_.strings_.push_back(std::move(text));
      return v.kind() == ValueKind::kString ? Value::BorrowedString(view)
                                            : Value::BorrowedBytes(view);
    }
    return v;
  }

  std::string_view KeepString(std::string_view s) {
    program_.strings_.push_back(std::make_unique<std::string>(s));
    return *program_.strings_.back();
  }

  const Type* TypeOf(const Expr& e) const {
    if (checked_ == nullptr) return nullptr;
    auto it = checked_->types.find(e.id);
    return it == checked_->types.end() ? nullptr : &it->second;
  }

  int FindLocal(std::string_view name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->first == name) return it->second;
    }
    return -1;
  }

  int PushLocal(const std::string& name) {
    int slot = static_cast<int>(scopes_.size());
    scopes_.emplace_back(name, slot);
    max_locals_ = std::max(max_locals_, slot + 1);
    return slot;
  }

  PlanNodePtr Visit(const Expr& e) {
    PlanNodePtr node =
        std::visit([&](const auto& k) { return VisitKind(e, k); }, e.kind);
    if (Foldable(e)) node = Fold(std::move(node));
    if (node->constant() != nullptr) folded_.insert(&e);
    return node;
  }

  // Calls and literals whose direct operands are all constants.
  bool Foldable(const Expr& e) const {
    auto all_constant = [this](const std::vector<const Expr*>& operands) {
      for (const Expr* x : operands) {
        if (!folded_.contains(x)) return false;
      }
      return true;
    };
    std::vector<const Expr*> operands;
    if (const auto* call = std::get_if<CallExpr>(&e.kind)) {
      const std::string& f = call->function;
      if (f == "cel.@mapInsert" || f == "@not_strictly_false") return false;
      if (call->target) operands.push_back(call->target.get());
      for (const ExprPtr& a : call->args) operands.push_back(a.get());
    } else if (const auto* list = std::get_if<ListExpr>(&e.kind)) {
      for (const ExprPtr& x : list->elements) operands.push_back(x.get());
    } else if (const auto* map = std::get_if<MapExpr>(&e.kind)) {
      for (const MapEntry& entry : map->entries) {
        operands.push_back(entry.key.get());
        operands.push_back(entry.value.get());
      }
    } else {
      return false;
    }
    return all_constant(operands);
  }

  PlanNodePtr Fold(PlanNodePtr node) {
    Activation empty(env_);
    EvalContext ctx(UINT64_MAX);
    Frame frame{empty, ctx, nullptr};
    Value v = node->Eval(frame);
    if (v.IsError()) return node;  // errors stay runtime errors
    // `v` may alias constants owned by the replaced subtree: keep it alive.
    program_.keep_alive_.push_back(
        std::shared_ptr<const PlanNode>(std::move(node)));
    return std::make_unique<FoldedNode>(std::move(v), ctx.cost());
  }

  PlanNodePtr VisitKind(const Expr&, const ConstantExpr& c) {
    Value v = std::visit(
        [](const auto& x) -> Value {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, NullConstant>) {
            return Value::Null();
          } else if constexpr (std::is_same_v<T, bool>) {
            return Value::Bool(x);
          } else if constexpr (std::is_same_v<T, int64_t>) {
            return Value::Int(x);
          } else if constexpr (std::is_same_v<T, uint64_t>) {
            return Value::Uint(x);
          } else if constexpr (std::is_same_v<T, double>) {
            return Value::Double(x);
          } else if constexpr (std::is_same_v<T, std::string>) {
            return Value::BorrowedString(x);
          } else {
            return Value::BorrowedBytes(x.value);
          }
        },
        c.value);
    return std::make_unique<ConstNode>(Keep(v));
  }

  // Resolves an ident/select chain that names a variable or a type.
  PlanNodePtr ResolveChain(const Expr& e) {
    std::optional<std::string> q = QualifiedName(e);
    if (!q) return nullptr;
    std::string_view root = std::string_view(*q).substr(0, q->find('.'));
    if (FindLocal(root) >= 0) return nullptr;
    std::optional<NameResolution> r = ResolveName(env_, *q);
    if (!r || r->remaining_selects != 0) return nullptr;
    if (r->reference.kind == Reference::Kind::kTypeName) {
      return std::make_unique<ConstNode>(
          Value::TypeValue(KeepString(r->reference.name)));
    }
    return std::make_unique<VariableNode>(r->reference.slot);
  }

  PlanNodePtr VisitKind(const Expr& e, const IdentExpr& ident) {
    int local = FindLocal(ident.name);
    if (local >= 0) return std::make_unique<LocalNode>(local);
    if (PlanNodePtr n = ResolveChain(e)) return n;
    return std::make_unique<ErrorNode>(
        fmt::format("no such attribute: {}", ident.name));
  }

  // A PathNode for select/constant-index chains rooted at a variable.
  PlanNodePtr PlanPath(const Expr& e) {
    std::vector<PathNode::Step> steps;
    const Expr* current = &e;
    while (true) {
      if (const auto* ident = std::get_if<IdentExpr>(&current->kind)) {
        int local = FindLocal(ident->name);
        if (local >= 0 && !steps.empty()) {
          return MakePath(local, true, std::move(steps));
        }
      }
      if (!steps.empty()) {
        std::optional<std::string> q = QualifiedName(*current);
        if (q) {
          std::string_view root = std::string_view(*q).substr(0, q->find('.'));
          if (FindLocal(root) < 0) {
            std::optional<NameResolution> r = ResolveName(env_, *q);
            if (r && r->remaining_selects == 0 &&
                r->reference.kind == Reference::Kind::kVariable) {
              return MakePath(r->reference.slot, false, std::move(steps));
            }
          }
        }
      }
      if (const auto* sel = std::get_if<SelectExpr>(&current->kind)) {
        if (sel->test_only) return nullptr;
        steps.push_back({KeepString(sel->field), false, Intern(sel->field)});
        current = sel->operand.get();
        continue;
      }
      if (const auto* call = std::get_if<CallExpr>(&current->kind)) {
        if (call->target == nullptr && call->function == "_[_]" &&
            call->args.size() == 2 && ConstString(*call->args[1])) {
          const std::string& key = *ConstString(*call->args[1]);
          steps.push_back({KeepString(key), true, Intern(key)});
          current = call->args[0].get();
          continue;
        }
      }
      return nullptr;
    }
  }

  static PlanNodePtr MakePath(int slot, bool local,
                              std::vector<PathNode::Step> steps) {
    std::reverse(steps.begin(), steps.end());
    return std::make_unique<PathNode>(slot, local, std::move(steps));
  }

  PlanNodePtr VisitKind(const Expr& e, const SelectExpr& sel) {
    if (!sel.test_only) {
      if (PlanNodePtr n = ResolveChain(e)) return n;
      if (PlanNodePtr n = PlanPath(e)) return n;
    }
    uint64_t cost = sel.test_only ? env_.options().presence_test_cost : 1;
    return std::make_unique<SelectNode>(Visit(*sel.operand), sel.field,
                                        sel.test_only, cost);
  }

  PlanNodePtr VisitKind(const Expr& e, const ListExpr& list) {
    std::vector<PlanNodePtr> elements;
    std::vector<bool> optional(list.elements.size(), false);
    for (int32_t i : list.optional_indices) {
      if (i >= 0 && static_cast<size_t>(i) < optional.size())
        optional[i] = true;
    }
    for (const ExprPtr& x : list.elements) elements.push_back(Visit(*x));
    (void)e;
    return std::make_unique<ListNode>(std::move(elements), std::move(optional));
  }

  PlanNodePtr VisitKind(const Expr&, const MapExpr& map) {
    std::vector<MapNode::Entry> entries;
    for (const MapEntry& entry : map.entries) {
      entries.push_back(
          {Visit(*entry.key), Visit(*entry.value), entry.optional});
    }
    return std::make_unique<MapNode>(std::move(entries));
  }

  PlanNodePtr VisitKind(const Expr&, const StructExpr& s) {
    return std::make_unique<ErrorNode>(
        fmt::format("unknown type: {}", s.type_name));
  }

  PlanNodePtr VisitKind(const Expr&, const ComprehensionExpr& c) {
    PlanNodePtr range = Visit(*c.iter_range);
    PlanNodePtr init = Visit(*c.accu_init);
    int accu = PushLocal(c.accu_var);
    int iter = PushLocal(c.iter_var);
    int iter2 = c.iter_var2.empty() ? -1 : PushLocal(c.iter_var2);
    accu_slots_.push_back(accu);
    PlanNodePtr cond = Visit(*c.loop_condition);
    PlanNodePtr step = Visit(*c.loop_step);
    accu_slots_.pop_back();
    if (iter2 >= 0) scopes_.pop_back();
    scopes_.pop_back();
    // The result sees the accumulator only.
    PlanNodePtr result = Visit(*c.result);
    scopes_.pop_back();
    auto node = std::make_unique<ComprehensionNode>(
        std::move(range), std::move(init), std::move(cond), std::move(step),
        std::move(result), iter, iter2, accu);
    node->condition_ = LoopCondition(*c.loop_condition, c.accu_var);
    return node;
  }

  // Recognises the loop conditions of the all() and exists() expansions.
  static ComprehensionNode::Condition LoopCondition(const Expr& cond,
                                                    const std::string& accu) {
    using Condition = ComprehensionNode::Condition;
    auto is_accu = [&](const Expr& e) {
      const auto* ident = std::get_if<IdentExpr>(&e.kind);
      return ident != nullptr && ident->name == accu;
    };
    const auto* call = std::get_if<CallExpr>(&cond.kind);
    if (call == nullptr || call->target ||
        call->function != "@not_strictly_false" || call->args.size() != 1) {
      return Condition::kGeneric;
    }
    const Expr& arg = *call->args[0];
    if (is_accu(arg)) return Condition::kUntilFalse;
    const auto* negation = std::get_if<CallExpr>(&arg.kind);
    if (negation != nullptr && !negation->target &&
        negation->function == "!_" && negation->args.size() == 1 &&
        is_accu(*negation->args[0])) {
      return Condition::kUntilTrue;
    }
    return Condition::kGeneric;
  }

  // The overloads a call may dispatch to, narrowed by checked types.
  std::vector<Candidate> Candidates(const Expr& e, std::string_view function,
                                    bool member,
                                    const std::vector<const Expr*>& arg_exprs,
                                    const std::vector<PlanNodePtr>& args) {
    std::vector<Candidate> out;
    for (const Overload* o : env_.functions().Find(function, member)) {
      if (o->params.size() != arg_exprs.size()) continue;
      bool ok = true;
      for (size_t i = 0; i < arg_exprs.size() && ok; ++i) {
        const Type* t = TypeOf(*arg_exprs[i]);
        if (t == nullptr || t->IsDyn() || t->kind() == TypeKind::kTypeParam) {
          continue;
        }
        ok = TypeCompatible(o->params[i], *t);
      }
      if (!ok) continue;
      const void* prepared = nullptr;
      if (o->prepare != nullptr) {
        std::vector<const Value*> constants;
        bool any = false;
        for (const PlanNodePtr& a : args) {
          constants.push_back(a->constant());
          any |= a->constant() != nullptr;
        }
        if (any) {
          StatusOr<std::shared_ptr<const void>> state = o->prepare(constants);
          if (!state.ok()) {
            if (error_.ok()) {
              error_ = InvalidArgumentError(FormatLocatedError(
                  *source_, e.offset, state.status().message()));
            }
          } else if (*state != nullptr) {
            prepared = state->get();
            program_.keep_alive_.push_back(std::move(*state));
          }
        }
      }
      out.push_back({o, prepared, RuntimeChecks(*o, arg_exprs)});
    }
    return out;
  }

  // The parameters of `o` that the checked argument types do not prove, to be
  // tested at runtime. Type parameters and dyn accept every value.
  std::vector<ParamCheck> RuntimeChecks(
      const Overload& o, const std::vector<const Expr*>& arg_exprs) const {
    std::vector<ParamCheck> checks;
    for (size_t i = 0; i < arg_exprs.size(); ++i) {
      const Type& p = o.params[i];
      if (p.kind() == TypeKind::kDyn || p.kind() == TypeKind::kTypeParam) {
        continue;
      }
      if (ProvenParam(p, TypeOf(*arg_exprs[i]))) continue;
      ParamCheck check{i, &p, {}};
      if (p.kind() == TypeKind::kOpaque) {
        check.opaque_name = CanonicalOpaqueName(p.name());
      }
      checks.push_back(check);
    }
    return checks;
  }

  // Whether every non-error value of checked type `t` fits parameter `p`.
  static bool ProvenParam(const Type& p, const Type* t) {
    if (t == nullptr) return false;
    switch (t->kind()) {
      case TypeKind::kDyn:
      case TypeKind::kError:
      case TypeKind::kTypeParam:
      case TypeKind::kObject:
        return false;
      default:
        break;
    }
    return p.kind() == t->kind() &&
           (p.kind() != TypeKind::kOpaque || p.name() == t->name());
  }

  // The library's own constant for a known opaque type name (the pointer
  // OpaqueValue::TypeName() returns), else `name` itself.
  static std::string_view CanonicalOpaqueName(const std::string& name) {
    static constexpr const std::string_view* kKnown[] = {
        &kQuantityTypeName, &kSemverTypeName, &kIpTypeName,
        &kCidrTypeName,     &kUrlTypeName,    &kFormatTypeName};
    for (const std::string_view* known : kKnown) {
      if (*known == name) return *known;
    }
    return name;
  }

  // Whether every argument has a concrete checked type that the overload's
  // parameter accepts without looking at the runtime value.
  bool StaticallyExact(const Overload& o,
                       const std::vector<const Expr*>& arg_exprs) const {
    if (checked_ == nullptr) return false;
    for (size_t i = 0; i < arg_exprs.size(); ++i) {
      const Type* t = TypeOf(*arg_exprs[i]);
      if (t == nullptr) return false;
      switch (t->kind()) {
        case TypeKind::kDyn:
        case TypeKind::kError:
        case TypeKind::kTypeParam:
        case TypeKind::kObject:
          return false;
        default:
          break;
      }
      const Type& p = o.params[i];
      if (p.kind() != TypeKind::kDyn && p.kind() != TypeKind::kTypeParam &&
          !(p.kind() == t->kind() &&
            (p.kind() != TypeKind::kOpaque || p.name() == t->name()))) {
        return false;
      }
    }
    return true;
  }

  static bool TypeCompatible(const Type& param, const Type& arg) {
    if (param.kind() == TypeKind::kDyn ||
        param.kind() == TypeKind::kTypeParam || arg.kind() == TypeKind::kDyn ||
        arg.kind() == TypeKind::kError) {
      return true;
    }
    if (param.kind() == TypeKind::kObject || arg.kind() == TypeKind::kObject) {
      return (param.kind() == TypeKind::kMap ||
              param.kind() == TypeKind::kObject) &&
             (arg.kind() == TypeKind::kMap || arg.kind() == TypeKind::kObject);
    }
    if (param.kind() != arg.kind()) return false;
    if (param.kind() == TypeKind::kOpaque) return param.name() == arg.name();
    return true;
  }

  PlanNodePtr VisitKind(const Expr& e, const CallExpr& call) {
    const std::string& f = call.function;
    if (call.target == nullptr) {
      if ((f == "_&&_" || f == "_||_") && call.args.size() == 2) {
        return std::make_unique<AndOrNode>(Visit(*call.args[0]),
                                           Visit(*call.args[1]), f == "_&&_");
      }
      if (f == "_?_:_" && call.args.size() == 3) {
        return std::make_unique<ConditionalNode>(
            Visit(*call.args[0]), Visit(*call.args[1]), Visit(*call.args[2]));
      }
      if (f == "!_" && call.args.size() == 1) {
        return std::make_unique<NotNode>(Visit(*call.args[0]));
      }
      if (f == "@not_strictly_false" && call.args.size() == 1) {
        return std::make_unique<NotStrictlyFalseNode>(Visit(*call.args[0]));
      }
      if (f == "cel.@mapInsert" &&
          (call.args.size() == 2 || call.args.size() == 3)) {
        std::vector<PlanNodePtr> args;
        for (const ExprPtr& a : call.args) args.push_back(Visit(*a));
        return std::make_unique<MapInsertNode>(std::move(args));
      }
      if (f == "_+_" && call.args.size() == 2 && !accu_slots_.empty()) {
        if (PlanNodePtr n = PlanAppend(e, call)) return n;
      }
    }
    // Namespaced global functions written as member calls (`sets.contains`).
    bool member = call.target != nullptr;
    std::string function = f;
    if (member) {
      std::optional<std::string> q = QualifiedName(*call.target);
      if (q) {
        std::string_view root = std::string_view(*q).substr(0, q->find('.'));
        std::string global = *q + "." + f;
        if (FindLocal(root) < 0 && !ResolveName(env_, *q) &&
            !env_.functions().Find(global, false).empty()) {
          member = false;
          function = global;
        }
      }
    }
    std::vector<const Expr*> arg_exprs;
    if (member) arg_exprs.push_back(call.target.get());
    for (const ExprPtr& a : call.args) arg_exprs.push_back(a.get());
    if (PlanNodePtr n = PlanSpecialized(e, function, member, arg_exprs))
      return n;
    std::vector<PlanNodePtr> args;
    for (const Expr* a : arg_exprs) args.push_back(Visit(*a));
    std::vector<Candidate> candidates =
        Candidates(e, function, member, arg_exprs, args);
    if (candidates.empty() && env_.functions().Find(function, member).empty()) {
      return std::make_unique<ErrorNode>(
          fmt::format("no such overload: {}", function));
    }
    bool exact = candidates.size() == 1 &&
                 StaticallyExact(*candidates[0].overload, arg_exprs);
    return MakeCallNode(function, std::move(args), std::move(candidates),
                        exact);
  }

  PlanNodePtr PlanGenericCall(const Expr& e, std::string_view function,
                              bool member,
                              const std::vector<const Expr*>& arg_exprs) {
    std::vector<PlanNodePtr> args;
    for (const Expr* a : arg_exprs) args.push_back(Visit(*a));
    std::vector<Candidate> candidates =
        Candidates(e, function, member, arg_exprs, args);
    bool exact = candidates.size() == 1 &&
                 StaticallyExact(*candidates[0].overload, arg_exprs);
    return MakeCallNode(std::string(function), std::move(args),
                        std::move(candidates), exact);
  }

  static const std::string* ConstString(const Expr& e) {
    const auto* c = std::get_if<ConstantExpr>(&e.kind);
    if (c == nullptr) return nullptr;
    return std::get_if<std::string>(&c->value);
  }

  // Fast paths for the shapes selectors use most.
  PlanNodePtr PlanSpecialized(const Expr& e, const std::string& function,
                              bool member,
                              const std::vector<const Expr*>& args) {
    if (member || args.size() != 2) return nullptr;
    if (function == "_==_" || function == "_!=_") {
      int which = ConstString(*args[1]) ? 1 : (ConstString(*args[0]) ? 0 : -1);
      if (which < 0) return nullptr;
      const Expr& other = *args[1 - which];
      std::string_view constant = KeepString(*ConstString(*args[which]));
      (void)e;
      return std::make_unique<EqualsConstStringNode>(Visit(other), constant,
                                                     function == "_!=_");
    }
    if (function == "_[_]" && ConstString(*args[1])) {
      if (PlanNodePtr n = PlanPath(e)) return n;
      std::string_view key = KeepString(*ConstString(*args[1]));
      return std::make_unique<IndexConstStringNode>(Visit(*args[0]), key);
    }
    return nullptr;
  }

  // `@result + [x]` with @result the innermost accumulator.
  PlanNodePtr PlanAppend(const Expr& e, const CallExpr& call) {
    const auto* lhs = std::get_if<IdentExpr>(&call.args[0]->kind);
    const auto* rhs = std::get_if<ListExpr>(&call.args[1]->kind);
    if (lhs == nullptr || rhs == nullptr || rhs->elements.size() != 1 ||
        !rhs->optional_indices.empty()) {
      return nullptr;
    }
    int slot = FindLocal(lhs->name);
    if (slot < 0 || slot != accu_slots_.back()) return nullptr;
    std::vector<const Expr*> args = {call.args[0].get(), call.args[1].get()};
    PlanNodePtr generic = PlanGenericCall(e, "_+_", false, args);
    return std::make_unique<AppendNode>(slot, Visit(*rhs->elements[0]),
                                        std::move(generic));
  }

 public:
  const Source* source_ = nullptr;

 private:
  const Environment& env_;
  const CheckResult* checked_;
  Program& program_;
  Status error_;
  std::vector<std::pair<std::string, int>> scopes_;
  std::vector<int> accu_slots_;
  std::unordered_set<const Expr*> folded_;  // operands with constant plans
  int max_locals_ = 0;
};

// ---- Program ----

Program::~Program() = default;

namespace {
constexpr int kInlineLocals = 8;
}

Value Program::Evaluate(const Activation& activation, EvalContext& ctx) const {
  if (max_locals_ == 0) {
    Frame frame{activation, ctx, nullptr};
    Value result = root_->Eval(frame);
    if (ctx.CostExceeded()) result = CostLimitExceededError();
    return result;
  }
  return EvaluateWithLocals(activation, ctx);
}

Value Program::EvaluateWithLocals(const Activation& activation,
                                  EvalContext& ctx) const {
  Value result;
  if (max_locals_ <= kInlineLocals) {
    Value locals[kInlineLocals];
    Frame frame{activation, ctx, locals};
    result = root_->Eval(frame);
  } else {
    std::vector<Value> locals(max_locals_);
    Frame frame{activation, ctx, locals.data()};
    result = root_->Eval(frame);
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
  Planner planner(*env, checked ? &*checked : nullptr, *program);
  planner.source_ = parsed.source.get();
  ASSIGN_OR_RETURN(program->root_, planner.Plan(*parsed.root));
  program->max_locals_ = planner.max_locals();
  return std::shared_ptr<const Program>(std::move(program));
}

}  // namespace dralloc::cel
