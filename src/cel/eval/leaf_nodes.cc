#include "cel/eval/leaf_nodes.h"

#include <cstring>
#include <utility>

#include "fmt/format.h"

namespace dralloc::cel {
namespace {

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
  using Step = PathStep;
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

}  // namespace

PlanNodePtr MakeConstNode(Value v) {
  return std::make_unique<ConstNode>(std::move(v));
}

const Value* ConstNodeValue(const PlanNode& node) {
  const auto* c = dynamic_cast<const ConstNode*>(&node);
  return c != nullptr ? c->constant() : nullptr;
}

PlanNodePtr MakeFoldedNode(Value v, uint64_t cost) {
  return std::make_unique<FoldedNode>(std::move(v), cost);
}

PlanNodePtr MakeVariableNode(int slot) {
  return std::make_unique<VariableNode>(slot);
}

PlanNodePtr MakeLocalNode(int slot) {
  return std::make_unique<LocalNode>(slot);
}

PlanNodePtr MakeErrorNode(std::string message) {
  return std::make_unique<ErrorNode>(std::move(message));
}

PlanNodePtr MakePathNode(int slot, bool local, std::vector<PathStep> steps) {
  return std::make_unique<PathNode>(slot, local, std::move(steps));
}

PlanNodePtr MakeSelectNode(PlanNodePtr operand, std::string field,
                           bool test_only, uint64_t cost) {
  return std::make_unique<SelectNode>(std::move(operand), std::move(field),
                                      test_only, cost);
}

PlanNodePtr MakeIndexConstStringNode(PlanNodePtr operand,
                                     std::string_view key) {
  return std::make_unique<IndexConstStringNode>(std::move(operand), key);
}

}  // namespace dralloc::cel
