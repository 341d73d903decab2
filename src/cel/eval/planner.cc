#include "cel/eval/planner.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cel/eval/activation.h"
#include "cel/eval/aggregate_nodes.h"
#include "cel/eval/call_nodes.h"
#include "cel/eval/leaf_nodes.h"
#include "cel/eval/logic_nodes.h"
#include "fmt/format.h"

namespace dralloc::cel {
namespace {

class Planner {
 public:
  Planner(const Environment& env, const CheckResult* checked,
          const Source& source, Plan& plan)
      : env_(env), checked_(checked), source_(&source), plan_(plan) {}

  StatusOr<PlanNodePtr> Build(const Expr& e) {
    PlanNodePtr node = Visit(e);
    if (!error_.ok()) return error_;
    return node;
  }
  int max_locals() const { return max_locals_; }

 private:
  // Keeps `v` alive in the plan and returns a non-owning alias.
  Value Keep(Value v) {
    if (v.kind() == ValueKind::kString || v.kind() == ValueKind::kBytes) {
      auto text = std::make_unique<std::string>(v.string_view());
      std::string_view view = *text;
      plan_.strings.push_back(std::move(text));
      return v.kind() == ValueKind::kString ? Value::BorrowedString(view)
                                            : Value::BorrowedBytes(view);
    }
    return v;
  }

  std::string_view KeepString(std::string_view s) {
    plan_.strings.push_back(std::make_unique<std::string>(s));
    return *plan_.strings.back();
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
    plan_.keep_alive.push_back(
        std::shared_ptr<const PlanNode>(std::move(node)));
    return MakeFoldedNode(std::move(v), ctx.cost());
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
    return MakeConstNode(Keep(v));
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
      return MakeConstNode(Value::TypeValue(KeepString(r->reference.name)));
    }
    return MakeVariableNode(r->reference.slot);
  }

  PlanNodePtr VisitKind(const Expr& e, const IdentExpr& ident) {
    int local = FindLocal(ident.name);
    if (local >= 0) return MakeLocalNode(local);
    if (PlanNodePtr n = ResolveChain(e)) return n;
    return MakeErrorNode(fmt::format("no such attribute: {}", ident.name));
  }

  // A PathNode for select/constant-index chains rooted at a variable.
  PlanNodePtr PlanPath(const Expr& e) {
    std::vector<PathStep> steps;
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
                              std::vector<PathStep> steps) {
    std::reverse(steps.begin(), steps.end());
    return MakePathNode(slot, local, std::move(steps));
  }

  PlanNodePtr VisitKind(const Expr& e, const SelectExpr& sel) {
    if (!sel.test_only) {
      if (PlanNodePtr n = ResolveChain(e)) return n;
      if (PlanNodePtr n = PlanPath(e)) return n;
    }
    uint64_t cost = sel.test_only ? env_.options().presence_test_cost : 1;
    return MakeSelectNode(Visit(*sel.operand), sel.field, sel.test_only, cost);
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
    return MakeListNode(std::move(elements), std::move(optional));
  }

  PlanNodePtr VisitKind(const Expr&, const MapExpr& map) {
    std::vector<MapEntryNodes> entries;
    for (const MapEntry& entry : map.entries) {
      entries.push_back(
          {Visit(*entry.key), Visit(*entry.value), entry.optional});
    }
    return MakeMapNode(std::move(entries));
  }

  PlanNodePtr VisitKind(const Expr&, const StructExpr& s) {
    return MakeErrorNode(fmt::format("unknown type: {}", s.type_name));
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
    return MakeComprehensionNode(std::move(range), std::move(init),
                                 std::move(cond), std::move(step),
                                 std::move(result), iter, iter2, accu,
                                 LoopCondition(*c.loop_condition, c.accu_var));
  }

  // Recognises the loop conditions of the all() and exists() expansions.
  static ComprehensionCondition LoopCondition(const Expr& cond,
                                              const std::string& accu) {
    using Condition = ComprehensionCondition;
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
            plan_.keep_alive.push_back(std::move(*state));
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
    return Concrete(t) && p.kind() == t->kind() &&
           (p.kind() != TypeKind::kOpaque || p.name() == t->name());
  }

  // Whether `t` is a checked type that pins down the runtime value's type
  // (not absent, dyn, error, a type parameter or an object).
  static bool Concrete(const Type* t) {
    if (t == nullptr) return false;
    const TypeKind kind = t->kind();
    return kind != TypeKind::kDyn && kind != TypeKind::kError &&
           kind != TypeKind::kTypeParam && kind != TypeKind::kObject;
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
      const Type& p = o.params[i];
      const bool accepts_any =
          p.kind() == TypeKind::kDyn || p.kind() == TypeKind::kTypeParam;
      if (accepts_any ? !Concrete(t) : !ProvenParam(p, t)) return false;
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
        return MakeAndOrNode(Visit(*call.args[0]), Visit(*call.args[1]),
                             f == "_&&_");
      }
      if (f == "_?_:_" && call.args.size() == 3) {
        return MakeConditionalNode(Visit(*call.args[0]), Visit(*call.args[1]),
                                   Visit(*call.args[2]));
      }
      if (f == "!_" && call.args.size() == 1) {
        return MakeNotNode(Visit(*call.args[0]));
      }
      if (f == "@not_strictly_false" && call.args.size() == 1) {
        return MakeNotStrictlyFalseNode(Visit(*call.args[0]));
      }
      if (f == "cel.@mapInsert" &&
          (call.args.size() == 2 || call.args.size() == 3)) {
        std::vector<PlanNodePtr> args;
        for (const ExprPtr& a : call.args) args.push_back(Visit(*a));
        return MakeMapInsertNode(std::move(args));
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
      return MakeErrorNode(fmt::format("no such overload: {}", function));
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
      return MakeEqualsConstStringNode(Visit(other), constant,
                                       function == "_!=_");
    }
    if (function == "_[_]" && ConstString(*args[1])) {
      if (PlanNodePtr n = PlanPath(e)) return n;
      std::string_view key = KeepString(*ConstString(*args[1]));
      return MakeIndexConstStringNode(Visit(*args[0]), key);
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
    return MakeAppendNode(slot, Visit(*rhs->elements[0]), std::move(generic));
  }

  const Environment& env_;
  const CheckResult* checked_;
  const Source* source_;
  Plan& plan_;
  Status error_;
  std::vector<std::pair<std::string, int>> scopes_;
  std::vector<int> accu_slots_;
  std::unordered_set<const Expr*> folded_;  // operands with constant plans
  int max_locals_ = 0;
};

}  // namespace

Plan::Plan() = default;
Plan::~Plan() = default;

Status BuildPlan(const Expr& root, const Source& source, const Environment& env,
                 const CheckResult* checked, Plan& plan) {
  Planner planner(env, checked, source, plan);
  ASSIGN_OR_RETURN(plan.root, planner.Build(root));
  plan.max_locals = planner.max_locals();
  return OkStatus();
}

}  // namespace dralloc::cel
