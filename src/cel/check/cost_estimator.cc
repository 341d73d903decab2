#include "cel/check/cost_estimator.h"

#include <algorithm>

namespace dralloc::cel {

namespace {

struct Estimate {
  CostEstimate cost;
  SizeInfo sizes;
};

CostEstimate Add(CostEstimate a, CostEstimate b) {
  return {SaturatingAdd(a.min, b.min), SaturatingAdd(a.max, b.max)};
}

uint64_t CodePoints(std::string_view s) {
  uint64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

SizeInfo Exact(uint64_t n) {
  SizeInfo s;
  s.size = {n, n};
  return s;
}

const SizeInfo& Unbounded() {
  static const SizeInfo* unbounded = new SizeInfo();
  return *unbounded;
}

class Estimator {
 public:
  Estimator(const CheckResult& checked, const Environment& env)
      : checked_(checked), env_(env) {}

  Estimate Visit(const Expr& e) {
    return std::visit([&](const auto& k) { return VisitKind(e, k); }, e.kind);
  }

 private:
  const Type* TypeOf(const Expr& e) const {
    auto it = checked_.types.find(e.id);
    return it == checked_.types.end() ? nullptr : &it->second;
  }

  const SizeInfo* FindLocal(std::string_view name) const {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (it->first == name) return &it->second;
    }
    return nullptr;
  }

  Estimate VisitKind(const Expr&, const ConstantExpr& c) {
    Estimate out;
    if (const auto* s = std::get_if<std::string>(&c.value)) {
      out.sizes = Exact(CodePoints(*s));
    } else if (const auto* b = std::get_if<BytesConstant>(&c.value)) {
      out.sizes = Exact(b->value.size());
    } else {
      out.sizes = Exact(1);
    }
    return out;
  }

  // A resolved variable (possibly a qualified name).
  std::optional<Estimate> Reference(const Expr& e) {
    auto it = checked_.references.find(e.id);
    if (it == checked_.references.end()) return std::nullopt;
    Estimate out;
    out.cost = {1, 1};
    if (it->second.kind == Reference::Kind::kVariable) {
      out.sizes = env_.variables()[it->second.slot].sizes;
    } else {
      out.sizes = Exact(1);
    }
    return out;
  }

  Estimate VisitKind(const Expr& e, const IdentExpr& ident) {
    if (const SizeInfo* local = FindLocal(ident.name)) {
      return {{1, 1}, *local};
    }
    if (auto r = Reference(e)) return *r;
    return {{1, 1}, Unbounded()};
  }

  Estimate VisitKind(const Expr& e, const SelectExpr& sel) {
    if (!sel.test_only) {
      if (auto r = Reference(e)) return *r;
    }
    Estimate operand = Visit(*sel.operand);
    uint64_t own = sel.test_only ? env_.options().presence_test_cost : 1;
    Estimate out;
    out.cost = Add(operand.cost, {own, own});
    if (sel.test_only) {
      out.sizes = Exact(1);
      return out;
    }
    out.sizes = FieldSizes(*sel.operand, operand.sizes, sel.field);
    return out;
  }

  SizeInfo FieldSizes(const Expr& operand_expr, const SizeInfo& operand,
                      std::string_view field) {
    const Type* t = TypeOf(operand_expr);
    if (t != nullptr && t->kind() == TypeKind::kObject) {
      if (const ObjectTypeDecl* decl = env_.FindObjectType(t->name())) {
        for (const FieldDecl& f : decl->fields) {
          if (f.name == field) return f.sizes;
        }
      }
    }
    return operand.elem ? *operand.elem : Unbounded();
  }

  Estimate VisitKind(const Expr&, const ListExpr& list) {
    Estimate out;
    out.cost = {10, 10};
    uint64_t max_elem = 0;
    bool any_unbounded = false;
    auto elem = std::make_shared<SizeInfo>();
    for (const ExprPtr& x : list.elements) {
      Estimate e = Visit(*x);
      out.cost = Add(out.cost, e.cost);
      max_elem = std::max(max_elem, e.sizes.size.max);
      any_unbounded |= e.sizes.size.max == kUnboundedSize;
      *elem = e.sizes;
    }
    uint64_t n = list.elements.size();
    out.sizes.size = {n - std::min<uint64_t>(n, list.optional_indices.size()),
                      n};
    elem->size = {0, any_unbounded ? kUnboundedSize : max_elem};
    out.sizes.elem = elem;
    return out;
  }

  Estimate VisitKind(const Expr&, const MapExpr& map) {
    Estimate out;
    out.cost = {30, 30};
    for (const MapEntry& entry : map.entries) {
      out.cost = Add(out.cost, Visit(*entry.key).cost);
      out.cost = Add(out.cost, Visit(*entry.value).cost);
    }
    uint64_t n = map.entries.size();
    out.sizes.size = {0, n};
    return out;
  }

  Estimate VisitKind(const Expr&, const StructExpr& s) {
    Estimate out;
    out.cost = {40, 40};
    for (const StructField& f : s.fields) {
      out.cost = Add(out.cost, Visit(*f.value).cost);
    }
    out.sizes = Exact(1);
    return out;
  }

  Estimate VisitKind(const Expr&, const ComprehensionExpr& c) {
    Estimate range = Visit(*c.iter_range);
    Estimate init = Visit(*c.accu_init);
    const Type* range_type = TypeOf(*c.iter_range);
    bool is_map = range_type != nullptr && range_type->kind() == TypeKind::kMap;
    bool is_object =
        range_type != nullptr && range_type->kind() == TypeKind::kObject;
    SizeInfo elem = range.sizes.elem ? *range.sizes.elem : Unbounded();
    SizeInfo key = range.sizes.key ? *range.sizes.key : Unbounded();
    locals_.emplace_back(c.accu_var, init.sizes);
    if (c.iter_var2.empty()) {
      locals_.emplace_back(c.iter_var, is_map || is_object ? key : elem);
    } else {
      locals_.emplace_back(c.iter_var, is_map ? key : Exact(1));
      locals_.emplace_back(c.iter_var2, elem);
    }
    Estimate cond = Visit(*c.loop_condition);
    Estimate step = Visit(*c.loop_step);
    locals_.pop_back();
    if (!c.iter_var2.empty()) locals_.pop_back();
    Estimate result = Visit(*c.result);
    locals_.pop_back();
    CostEstimate per_iteration = Add(cond.cost, step.cost);
    Estimate out;
    out.cost = Add(range.cost, init.cost);
    out.cost.min = SaturatingAdd(
        out.cost.min, SaturatingMul(range.sizes.size.min, per_iteration.min));
    out.cost.max = SaturatingAdd(
        out.cost.max, SaturatingMul(range.sizes.size.max, per_iteration.max));
    out.cost = Add(out.cost, result.cost);
    out.sizes = result.sizes;
    if (!out.sizes.size.max || out.sizes.size.max == 1) {
      // A map()/filter() result has at most as many elements as the range.
      if (init.sizes.size.max == 0) {
        out.sizes.size = {0, range.sizes.size.max};
      }
    }
    return out;
  }

  Estimate VisitKind(const Expr& e, const CallExpr& call) {
    const std::string& f = call.function;
    if (call.target == nullptr) {
      if ((f == "_&&_" || f == "_||_") && call.args.size() == 2) {
        Estimate l = Visit(*call.args[0]);
        Estimate r = Visit(*call.args[1]);
        return {{l.cost.min, SaturatingAdd(l.cost.max, r.cost.max)}, Exact(1)};
      }
      if (f == "_?_:_" && call.args.size() == 3) {
        Estimate c = Visit(*call.args[0]);
        Estimate t = Visit(*call.args[1]);
        Estimate x = Visit(*call.args[2]);
        Estimate out;
        out.cost = {
            SaturatingAdd(c.cost.min, std::min(t.cost.min, x.cost.min)),
            SaturatingAdd(c.cost.max, std::max(t.cost.max, x.cost.max))};
        out.sizes = t.sizes.size.max >= x.sizes.size.max ? t.sizes : x.sizes;
        return out;
      }
    }
    bool member = call.target != nullptr;
    std::string function = f;
    auto ref = checked_.references.find(e.id);
    if (ref != checked_.references.end() &&
        ref->second.kind == Reference::Kind::kGlobalFunction) {
      member = false;
      function = ref->second.name;
    }
    std::vector<const Expr*> args;
    if (member) args.push_back(call.target.get());
    for (const ExprPtr& a : call.args) args.push_back(a.get());
    CostEstimate total;
    std::vector<SizeEstimate> sizes;
    std::vector<SizeInfo> infos;
    for (const Expr* a : args) {
      Estimate x = Visit(*a);
      total = Add(total, x.cost);
      sizes.push_back(x.sizes.size);
      infos.push_back(x.sizes);
    }
    CostEstimate own{1, 1};
    SizeInfo result_sizes;
    bool first = true;
    for (const Overload* o : env_.functions().Find(function, member)) {
      if (o->params.size() != args.size()) continue;
      if (!Applicable(*o, args)) continue;
      CostEstimate c =
          o->estimate_cost ? o->estimate_cost(sizes) : CostEstimate{1, 1};
      own = first ? c
                  : CostEstimate{std::min(own.min, c.min),
                                 std::max(own.max, c.max)};
      if (o->estimate_size) result_sizes.size = o->estimate_size(sizes);
      first = false;
    }
    if (!member && (function == "_[_]" || function == "_[?_]") &&
        !infos.empty()) {
      result_sizes = infos[0].elem ? *infos[0].elem : Unbounded();
    }
    if (!member && function == "_?._" && !infos.empty()) {
      result_sizes = infos[0].elem ? *infos[0].elem : Unbounded();
    }
    return {Add(total, own), result_sizes};
  }

  bool Applicable(const Overload& o, const std::vector<const Expr*>& args) {
    for (size_t i = 0; i < args.size(); ++i) {
      const Type* t = TypeOf(*args[i]);
      if (t == nullptr) continue;
      const Type& p = o.params[i];
      if (p.IsDyn() || p.kind() == TypeKind::kTypeParam || t->IsDyn() ||
          t->kind() == TypeKind::kError || t->kind() == TypeKind::kTypeParam) {
        continue;
      }
      bool maplike =
          (p.kind() == TypeKind::kMap || p.kind() == TypeKind::kObject) &&
          (t->kind() == TypeKind::kMap || t->kind() == TypeKind::kObject);
      if (p.kind() != t->kind() && !maplike) return false;
      if (p.kind() == TypeKind::kOpaque && p.name() != t->name()) return false;
    }
    return true;
  }

  const CheckResult& checked_;
  const Environment& env_;
  std::vector<std::pair<std::string, SizeInfo>> locals_;
};

}  // namespace

CostEstimate EstimateCost(const Expr& root, const CheckResult& checked,
                          const Environment& env) {
  return Estimator(checked, env).Visit(root).cost;
}

}  // namespace dralloc::cel
