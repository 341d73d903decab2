#include "cel/syntax/macro_expander.h"

#include <algorithm>
#include <variant>

#include "cel/syntax/source.h"

namespace dralloc::cel::internal {
namespace {

// Calls f(const Expr&) for each direct child of a node.
template <typename F>
void ForEachChild(const ExprKind& kind, F&& f) {
  auto visit = [&](const ExprPtr& e) {
    if (e) f(*e);
  };
  if (const auto* s = std::get_if<SelectExpr>(&kind)) {
    visit(s->operand);
  } else if (const auto* c = std::get_if<CallExpr>(&kind)) {
    visit(c->target);
    for (const ExprPtr& a : c->args) visit(a);
  } else if (const auto* l = std::get_if<ListExpr>(&kind)) {
    for (const ExprPtr& e : l->elements) visit(e);
  } else if (const auto* m = std::get_if<MapExpr>(&kind)) {
    for (const MapEntry& e : m->entries) {
      visit(e.key);
      visit(e.value);
    }
  } else if (const auto* st = std::get_if<StructExpr>(&kind)) {
    for (const StructField& fld : st->fields) visit(fld.value);
  } else if (const auto* comp = std::get_if<ComprehensionExpr>(&kind)) {
    visit(comp->iter_range);
    visit(comp->accu_init);
    visit(comp->loop_condition);
    visit(comp->loop_step);
    visit(comp->result);
  }
}

}  // namespace

int64_t ExprFactory::NextId() {
  depth_by_id_.push_back(1);
  return next_id_++;
}

int ExprFactory::Depth(const Expr& expr) const {
  if (expr.id > 0 && static_cast<size_t>(expr.id) < depth_by_id_.size()) {
    return depth_by_id_[expr.id];
  }
  return 1;
}

Status ExprFactory::Error(int32_t offset, std::string_view message) const {
  return InvalidArgumentError(FormatLocatedError(source_, offset, message));
}

Status ExprFactory::DepthError(int32_t offset) const {
  return Error(offset, "expression recursion limit exceeded: " +
                           std::to_string(max_depth_));
}

StatusOr<ExprPtr> ExprFactory::NewWithId(int64_t id, int32_t offset,
                                         ExprKind kind) {
  int child_depth = 0;
  ForEachChild(kind, [&](const Expr& child) {
    child_depth = std::max(child_depth, Depth(child));
  });
  if (child_depth + 1 > max_depth_) return DepthError(offset);
  if (next_id_ - 1 > max_nodes_) {
    return Error(offset, "expression size exceeds limit: more than " +
                             std::to_string(max_nodes_) +
                             " nodes after macro expansion");
  }
  auto expr = std::make_unique<Expr>();
  expr->id = id;
  expr->offset = offset;
  expr->kind = std::move(kind);
  if (id > 0 && static_cast<size_t>(id) < depth_by_id_.size()) {
    depth_by_id_[id] = child_depth + 1;
  }
  return expr;
}

StatusOr<ExprPtr> ExprFactory::NewIdent(int32_t offset, std::string name) {
  return New(offset, IdentExpr{std::move(name)});
}

StatusOr<ExprPtr> ExprFactory::NewConst(int32_t offset, Constant value) {
  return New(offset, ConstantExpr{std::move(value)});
}

StatusOr<ExprPtr> ExprFactory::NewCall(int32_t offset, std::string function,
                                       std::vector<ExprPtr> args) {
  return New(offset, CallExpr{nullptr, std::move(function), std::move(args)});
}

StatusOr<ExprPtr> ExprFactory::NewMemberCall(int32_t offset, ExprPtr target,
                                             std::string function,
                                             std::vector<ExprPtr> args) {
  return New(offset,
             CallExpr{std::move(target), std::move(function), std::move(args)});
}

StatusOr<ExprPtr> ExprFactory::NewList(int32_t offset,
                                       std::vector<ExprPtr> elements) {
  return New(offset, ListExpr{std::move(elements), {}});
}

StatusOr<ExprPtr> ExprFactory::Copy(const Expr& expr) {
  auto copy = [this](const ExprPtr& e) -> StatusOr<ExprPtr> {
    if (!e) return ExprPtr();
    return Copy(*e);
  };
  const int64_t id = NextId();
  ExprKind kind;
  if (const auto* c = std::get_if<ConstantExpr>(&expr.kind)) {
    kind = *c;
  } else if (const auto* i = std::get_if<IdentExpr>(&expr.kind)) {
    kind = *i;
  } else if (const auto* s = std::get_if<SelectExpr>(&expr.kind)) {
    ASSIGN_OR_RETURN(ExprPtr operand, copy(s->operand));
    kind = SelectExpr{std::move(operand), s->field, s->test_only};
  } else if (const auto* call = std::get_if<CallExpr>(&expr.kind)) {
    CallExpr out;
    ASSIGN_OR_RETURN(out.target, copy(call->target));
    out.function = call->function;
    for (const ExprPtr& a : call->args) {
      ASSIGN_OR_RETURN(ExprPtr arg, copy(a));
      out.args.push_back(std::move(arg));
    }
    kind = std::move(out);
  } else if (const auto* l = std::get_if<ListExpr>(&expr.kind)) {
    ListExpr out;
    for (const ExprPtr& e : l->elements) {
      ASSIGN_OR_RETURN(ExprPtr element, copy(e));
      out.elements.push_back(std::move(element));
    }
    out.optional_indices = l->optional_indices;
    kind = std::move(out);
  } else if (const auto* m = std::get_if<MapExpr>(&expr.kind)) {
    MapExpr out;
    for (const MapEntry& e : m->entries) {
      MapEntry entry;
      entry.id = NextId();
      entry.offset = e.offset;
      ASSIGN_OR_RETURN(entry.key, copy(e.key));
      ASSIGN_OR_RETURN(entry.value, copy(e.value));
      entry.optional = e.optional;
      out.entries.push_back(std::move(entry));
    }
    kind = std::move(out);
  } else if (const auto* st = std::get_if<StructExpr>(&expr.kind)) {
    StructExpr out;
    out.type_name = st->type_name;
    for (const StructField& f : st->fields) {
      StructField field;
      field.id = NextId();
      field.offset = f.offset;
      field.name = f.name;
      ASSIGN_OR_RETURN(field.value, copy(f.value));
      field.optional = f.optional;
      out.fields.push_back(std::move(field));
    }
    kind = std::move(out);
  } else if (const auto* comp = std::get_if<ComprehensionExpr>(&expr.kind)) {
    ComprehensionExpr out;
    out.iter_var = comp->iter_var;
    out.iter_var2 = comp->iter_var2;
    out.accu_var = comp->accu_var;
    ASSIGN_OR_RETURN(out.iter_range, copy(comp->iter_range));
    ASSIGN_OR_RETURN(out.accu_init, copy(comp->accu_init));
    ASSIGN_OR_RETURN(out.loop_condition, copy(comp->loop_condition));
    ASSIGN_OR_RETURN(out.loop_step, copy(comp->loop_step));
    ASSIGN_OR_RETURN(out.result, copy(comp->result));
    kind = std::move(out);
  }
  return NewWithId(id, expr.offset, std::move(kind));
}

namespace {

// Builds the nodes of one expansion; every new node gets the offset of the
// macro call.
class Expander {
 public:
  Expander(ExprFactory& factory, int32_t offset)
      : f_(factory), offset_(offset) {}

  StatusOr<ExprPtr> Ident(std::string_view name) {
    return f_.NewIdent(offset_, std::string(name));
  }
  StatusOr<ExprPtr> Accu() { return Ident(kAccumulatorName); }
  StatusOr<ExprPtr> Const(Constant value) {
    return f_.NewConst(offset_, std::move(value));
  }
  StatusOr<ExprPtr> Call(std::string_view function, std::vector<ExprPtr> args) {
    return f_.NewCall(offset_, std::string(function), std::move(args));
  }
  StatusOr<ExprPtr> MemberCall(ExprPtr target, std::string_view function,
                               std::vector<ExprPtr> args) {
    return f_.NewMemberCall(offset_, std::move(target), std::string(function),
                            std::move(args));
  }
  StatusOr<ExprPtr> List(std::vector<ExprPtr> elements) {
    return f_.NewList(offset_, std::move(elements));
  }
  StatusOr<ExprPtr> EmptyMap() { return f_.New(offset_, MapExpr{}); }
  // _?_:_(cond, then, @result)
  StatusOr<ExprPtr> IfElseAccu(ExprPtr cond, ExprPtr then) {
    ASSIGN_OR_RETURN(ExprPtr accu, Accu());
    return Call("_?_:_",
                MakeArgs(std::move(cond), std::move(then), std::move(accu)));
  }
  // _+_(@result, [element])
  StatusOr<ExprPtr> AppendToAccu(ExprPtr element) {
    ASSIGN_OR_RETURN(ExprPtr accu, Accu());
    ASSIGN_OR_RETURN(ExprPtr list, List(MakeArgs(std::move(element))));
    return Call("_+_", MakeArgs(std::move(accu), std::move(list)));
  }
  StatusOr<ExprPtr> Fold(std::string iter_var, std::string iter_var2,
                         ExprPtr range, std::string accu_var, ExprPtr init,
                         ExprPtr condition, ExprPtr step, ExprPtr result) {
    return f_.New(offset_,
                  ComprehensionExpr{std::move(iter_var), std::move(iter_var2),
                                    std::move(range), std::move(accu_var),
                                    std::move(init), std::move(condition),
                                    std::move(step), std::move(result)});
  }
  // A comprehension accumulating into @result with loop condition `true`.
  StatusOr<ExprPtr> FoldIntoAccu(std::string iter_var, std::string iter_var2,
                                 ExprPtr range, ExprPtr init, ExprPtr step) {
    ASSIGN_OR_RETURN(ExprPtr condition, Const(true));
    ASSIGN_OR_RETURN(ExprPtr result, Accu());
    return Fold(std::move(iter_var), std::move(iter_var2), std::move(range),
                std::string(kAccumulatorName), std::move(init),
                std::move(condition), std::move(step), std::move(result));
  }
  // cel.bind(var, init, body)
  StatusOr<ExprPtr> Bind(std::string var, ExprPtr init, ExprPtr body) {
    ASSIGN_OR_RETURN(ExprPtr range, List({}));
    ASSIGN_OR_RETURN(ExprPtr condition, Const(false));
    ASSIGN_OR_RETURN(ExprPtr step, Ident(var));
    return Fold("#unused", "", std::move(range), std::move(var),
                std::move(init), std::move(condition), std::move(step),
                std::move(body));
  }

  StatusOr<std::string> VarName(
      const Expr& arg,
      std::string_view message = "argument must be a simple name") {
    const auto* ident = std::get_if<IdentExpr>(&arg.kind);
    if (ident == nullptr || ident->name.empty() || ident->name[0] == '.') {
      return f_.Error(arg.offset, message);
    }
    return ident->name;
  }
  // The iteration variable names of a one- or two-variable macro.
  Status IterVars(const std::vector<ExprPtr>& args, int count,
                  std::string* var1, std::string* var2) {
    ASSIGN_OR_RETURN(*var1, VarName(*args[0]));
    if (count == 2) {
      ASSIGN_OR_RETURN(*var2, VarName(*args[1]));
    }
    for (int i = 0; i < count; ++i) {
      if ((i == 0 ? *var1 : *var2) == kAccumulatorName) {
        return f_.Error(args[i]->offset,
                        "iteration variable overwrites accumulator variable");
      }
    }
    if (count == 2 && *var1 == *var2) {
      return f_.Error(args[1]->offset, "duplicate variable name: " + *var1);
    }
    return OkStatus();
  }

  ExprFactory& factory() { return f_; }

 private:
  ExprFactory& f_;
  int32_t offset_;
};

enum class Quantifier { kAll, kExists, kExistsOne };

// all / exists / exists_one with one (2 args) or two (3 args) variables.
StatusOr<ExprPtr> ExpandQuantifier(Expander& x, Quantifier q, ExprPtr range,
                                   std::vector<ExprPtr>& args) {
  const int vars = static_cast<int>(args.size()) - 1;
  std::string v1, v2;
  RETURN_IF_ERROR(x.IterVars(args, vars, &v1, &v2));
  ExprPtr predicate = std::move(args.back());
  ExprPtr init, condition, step, result;
  switch (q) {
    case Quantifier::kAll: {
      ASSIGN_OR_RETURN(init, x.Const(true));
      ASSIGN_OR_RETURN(ExprPtr accu, x.Accu());
      ASSIGN_OR_RETURN(
          condition, x.Call("@not_strictly_false", MakeArgs(std::move(accu))));
      ASSIGN_OR_RETURN(ExprPtr accu2, x.Accu());
      ASSIGN_OR_RETURN(step, x.Call("_&&_", MakeArgs(std::move(accu2),
                                                     std::move(predicate))));
      ASSIGN_OR_RETURN(result, x.Accu());
      break;
    }
    case Quantifier::kExists: {
      ASSIGN_OR_RETURN(init, x.Const(false));
      ASSIGN_OR_RETURN(ExprPtr accu, x.Accu());
      ASSIGN_OR_RETURN(ExprPtr negated,
                       x.Call("!_", MakeArgs(std::move(accu))));
      ASSIGN_OR_RETURN(condition, x.Call("@not_strictly_false",
                                         MakeArgs(std::move(negated))));
      ASSIGN_OR_RETURN(ExprPtr accu2, x.Accu());
      ASSIGN_OR_RETURN(step, x.Call("_||_", MakeArgs(std::move(accu2),
                                                     std::move(predicate))));
      ASSIGN_OR_RETURN(result, x.Accu());
      break;
    }
    case Quantifier::kExistsOne: {
      ASSIGN_OR_RETURN(init, x.Const(int64_t{0}));
      ASSIGN_OR_RETURN(condition, x.Const(true));
      ASSIGN_OR_RETURN(ExprPtr accu, x.Accu());
      ASSIGN_OR_RETURN(ExprPtr one, x.Const(int64_t{1}));
      ASSIGN_OR_RETURN(ExprPtr inc, x.Call("_+_", MakeArgs(std::move(accu),
                                                           std::move(one))));
      ASSIGN_OR_RETURN(step,
                       x.IfElseAccu(std::move(predicate), std::move(inc)));
      ASSIGN_OR_RETURN(ExprPtr accu2, x.Accu());
      ASSIGN_OR_RETURN(ExprPtr one2, x.Const(int64_t{1}));
      ASSIGN_OR_RETURN(
          result, x.Call("_==_", MakeArgs(std::move(accu2), std::move(one2))));
      break;
    }
  }
  return x.Fold(std::move(v1), std::move(v2), std::move(range),
                std::string(kAccumulatorName), std::move(init),
                std::move(condition), std::move(step), std::move(result));
}

// map(x, t), map(x, f, t), transformList(i, v, t), transformList(i, v, f, t).
StatusOr<ExprPtr> ExpandMap(Expander& x, int vars, ExprPtr range,
                            std::vector<ExprPtr>& args) {
  std::string v1, v2;
  RETURN_IF_ERROR(x.IterVars(args, vars, &v1, &v2));
  const bool has_filter = static_cast<int>(args.size()) == vars + 2;
  ASSIGN_OR_RETURN(ExprPtr step, x.AppendToAccu(std::move(args.back())));
  if (has_filter) {
    ASSIGN_OR_RETURN(step,
                     x.IfElseAccu(std::move(args[vars]), std::move(step)));
  }
  ASSIGN_OR_RETURN(ExprPtr init, x.List({}));
  return x.FoldIntoAccu(std::move(v1), std::move(v2), std::move(range),
                        std::move(init), std::move(step));
}

// filter(x, p)
StatusOr<ExprPtr> ExpandFilter(Expander& x, ExprPtr range,
                               std::vector<ExprPtr>& args) {
  std::string v1, v2;
  RETURN_IF_ERROR(x.IterVars(args, 1, &v1, &v2));
  ASSIGN_OR_RETURN(ExprPtr element, x.Ident(v1));
  ASSIGN_OR_RETURN(ExprPtr append, x.AppendToAccu(std::move(element)));
  ASSIGN_OR_RETURN(ExprPtr step,
                   x.IfElseAccu(std::move(args[1]), std::move(append)));
  ASSIGN_OR_RETURN(ExprPtr init, x.List({}));
  return x.FoldIntoAccu(std::move(v1), "", std::move(range), std::move(init),
                        std::move(step));
}

// transformMap(i, v, [f,] t) and transformMapEntry(i, v, [f,] t).
StatusOr<ExprPtr> ExpandTransformMap(Expander& x, bool entry, ExprPtr range,
                                     std::vector<ExprPtr>& args) {
  std::string v1, v2;
  RETURN_IF_ERROR(x.IterVars(args, 2, &v1, &v2));
  ASSIGN_OR_RETURN(ExprPtr accu, x.Accu());
  std::vector<ExprPtr> insert_args = MakeArgs(std::move(accu));
  if (!entry) {
    ASSIGN_OR_RETURN(ExprPtr key, x.Ident(v1));
    insert_args.push_back(std::move(key));
  }
  insert_args.push_back(std::move(args.back()));
  ASSIGN_OR_RETURN(ExprPtr step,
                   x.Call("cel.@mapInsert", std::move(insert_args)));
  if (args.size() == 4) {
    ASSIGN_OR_RETURN(step, x.IfElseAccu(std::move(args[2]), std::move(step)));
  }
  ASSIGN_OR_RETURN(ExprPtr init, x.EmptyMap());
  return x.FoldIntoAccu(std::move(v1), std::move(v2), std::move(range),
                        std::move(init), std::move(step));
}

// o.optMap(x, t) and o.optFlatMap(x, t).
StatusOr<ExprPtr> ExpandOptMap(Expander& x, bool flat, ExprPtr target,
                               std::vector<ExprPtr>& args) {
  ASSIGN_OR_RETURN(std::string var, x.VarName(*args[0]));
  ASSIGN_OR_RETURN(ExprPtr target_copy, x.factory().Copy(*target));
  ASSIGN_OR_RETURN(ExprPtr has_value,
                   x.MemberCall(std::move(target), "hasValue", {}));
  ASSIGN_OR_RETURN(ExprPtr value,
                   x.MemberCall(std::move(target_copy), "value", {}));
  ASSIGN_OR_RETURN(ExprPtr then, x.Bind(std::move(var), std::move(value),
                                        std::move(args[1])));
  if (!flat) {
    ASSIGN_OR_RETURN(then, x.Call("optional.of", MakeArgs(std::move(then))));
  }
  ASSIGN_OR_RETURN(ExprPtr none, x.Call("optional.none", {}));
  return x.Call("_?_:_", MakeArgs(std::move(has_value), std::move(then),
                                  std::move(none)));
}

// l.sortBy(x, k)
StatusOr<ExprPtr> ExpandSortBy(Expander& x, ExprPtr target,
                               std::vector<ExprPtr>& args) {
  constexpr std::string_view kInput = "@__sortBy_input__";
  std::string v1, v2;
  RETURN_IF_ERROR(x.IterVars(args, 1, &v1, &v2));
  ASSIGN_OR_RETURN(ExprPtr range, x.Ident(kInput));
  ASSIGN_OR_RETURN(ExprPtr step, x.AppendToAccu(std::move(args[1])));
  ASSIGN_OR_RETURN(ExprPtr init, x.List({}));
  ASSIGN_OR_RETURN(ExprPtr keys,
                   x.FoldIntoAccu(std::move(v1), "", std::move(range),
                                  std::move(init), std::move(step)));
  ASSIGN_OR_RETURN(ExprPtr input, x.Ident(kInput));
  ASSIGN_OR_RETURN(ExprPtr sorted,
                   x.MemberCall(std::move(input), "@sortByAssociatedKeys",
                                MakeArgs(std::move(keys))));
  return x.Bind(std::string(kInput), std::move(target), std::move(sorted));
}

}  // namespace

StatusOr<ExprPtr> ExpandMacro(ExprFactory& factory, int32_t offset,
                              std::string_view function, ExprPtr& target,
                              std::vector<ExprPtr>& args) {
  const size_t n = args.size();
  if (!target) {
    if (function == "has" && n == 1) {
      auto* select = std::get_if<SelectExpr>(&args[0]->kind);
      if (select == nullptr || select->test_only) {
        return factory.Error(args[0]->offset,
                             "invalid argument to has() macro");
      }
      select->test_only = true;
      return std::move(args[0]);
    }
    return ExprPtr();
  }
  Expander x(factory, offset);
  if (function == "all" && (n == 2 || n == 3)) {
    return ExpandQuantifier(x, Quantifier::kAll, std::move(target), args);
  }
  if (function == "exists" && (n == 2 || n == 3)) {
    return ExpandQuantifier(x, Quantifier::kExists, std::move(target), args);
  }
  if ((function == "exists_one" || function == "existsOne") &&
      (n == 2 || n == 3)) {
    return ExpandQuantifier(x, Quantifier::kExistsOne, std::move(target), args);
  }
  if (function == "map" && (n == 2 || n == 3)) {
    return ExpandMap(x, 1, std::move(target), args);
  }
  if (function == "filter" && n == 2) {
    return ExpandFilter(x, std::move(target), args);
  }
  if (function == "transformList" && (n == 3 || n == 4)) {
    return ExpandMap(x, 2, std::move(target), args);
  }
  if ((function == "transformMap" || function == "transformMapEntry") &&
      (n == 3 || n == 4)) {
    return ExpandTransformMap(x, function == "transformMapEntry",
                              std::move(target), args);
  }
  if ((function == "optMap" || function == "optFlatMap") && n == 2) {
    return ExpandOptMap(x, function == "optFlatMap", std::move(target), args);
  }
  if (function == "sortBy" && n == 2) {
    return ExpandSortBy(x, std::move(target), args);
  }
  if (function == "bind" && n == 3) {
    const auto* ident = std::get_if<IdentExpr>(&target->kind);
    if (ident == nullptr || ident->name != "cel") return ExprPtr();
    ASSIGN_OR_RETURN(std::string var,
                     x.VarName(*args[0],
                               "cel.bind() variable names must be simple "
                               "identifiers"));
    return x.Bind(std::move(var), std::move(args[1]), std::move(args[2]));
  }
  return ExprPtr();
}

}  // namespace dralloc::cel::internal
