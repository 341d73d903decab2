#include "cel/eval/aggregate_nodes.h"

#include <string_view>
#include <utility>

#include "fmt/format.h"

namespace dralloc::cel {
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
  using Entry = MapEntryNodes;
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
  using Condition = ComprehensionCondition;

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

PlanNodePtr MakeListNode(std::vector<PlanNodePtr> elements,
                         std::vector<bool> optional) {
  return std::make_unique<ListNode>(std::move(elements), std::move(optional));
}

PlanNodePtr MakeMapNode(std::vector<MapEntryNodes> entries) {
  return std::make_unique<MapNode>(std::move(entries));
}

PlanNodePtr MakeComprehensionNode(PlanNodePtr range, PlanNodePtr init,
                                  PlanNodePtr cond, PlanNodePtr step,
                                  PlanNodePtr result, int iter_slot,
                                  int iter2_slot, int accu_slot,
                                  ComprehensionCondition condition) {
  auto node = std::make_unique<ComprehensionNode>(
      std::move(range), std::move(init), std::move(cond), std::move(step),
      std::move(result), iter_slot, iter2_slot, accu_slot);
  node->condition_ = condition;
  return node;
}

PlanNodePtr MakeAppendNode(int accu_slot, PlanNodePtr element,
                           PlanNodePtr generic) {
  return std::make_unique<AppendNode>(accu_slot, std::move(element),
                                      std::move(generic));
}

PlanNodePtr MakeMapInsertNode(std::vector<PlanNodePtr> args) {
  return std::make_unique<MapInsertNode>(std::move(args));
}

}  // namespace dralloc::cel
