#include "cel/check/checker.h"

#include <map>

#include "cel/syntax/source.h"
#include "fmt/format.h"

namespace dralloc::cel {

namespace {

struct TypeIdent {
  std::string_view name;
  std::string_view type_name;
};
constexpr TypeIdent kTypeIdents[] = {
    {"int", kIntTypeName},
    {"uint", kUintTypeName},
    {"double", kDoubleTypeName},
    {"bool", kBoolTypeName},
    {"string", kStringTypeName},
    {"bytes", kBytesTypeName},
    {"list", kListTypeName},
    {"map", kMapTypeName},
    {"null_type", kNullTypeName},
    {"type", kTypeTypeName},
    {"optional_type", kOptionalTypeName},
    {"google.protobuf.Timestamp", kTimestampTypeName},
    {"google.protobuf.Duration", kDurationTypeName},
    {"kubernetes.Quantity", kQuantityTypeName},
    {"kubernetes.Semver", kSemverTypeName},
    {"net.IP", kIpTypeName},
    {"net.CIDR", kCidrTypeName},
    {"kubernetes.URL", kUrlTypeName},
};

Type TypeOfTypeName(std::string_view name) {
  if (name == kIntTypeName) return Type::Int();
  if (name == kUintTypeName) return Type::Uint();
  if (name == kDoubleTypeName) return Type::Double();
  if (name == kBoolTypeName) return Type::Bool();
  if (name == kStringTypeName) return Type::String();
  if (name == kBytesTypeName) return Type::Bytes();
  if (name == kNullTypeName) return Type::Null();
  if (name == kTimestampTypeName) return Type::Timestamp();
  if (name == kDurationTypeName) return Type::Duration();
  if (name == kListTypeName) return Type::List(Type::Dyn());
  if (name == kMapTypeName) return Type::Map(Type::Dyn(), Type::Dyn());
  if (name == kTypeTypeName) return Type::TypeType();
  if (name == "dyn") return Type::Dyn();
  if (name == kOptionalTypeName) return Type::Optional(Type::Dyn());
  return Type::Opaque(name);
}

using Bindings = std::map<std::string, Type>;

Type Substitute(const Type& t, const Bindings& b) {
  if (t.kind() == TypeKind::kTypeParam) {
    auto it = b.find(t.name());
    return it == b.end() ? Type::Dyn() : Substitute(it->second, b);
  }
  if (t.params().empty()) return t;
  std::vector<Type> params;
  for (const Type& p : t.params()) params.push_back(Substitute(p, b));
  if (t.kind() == TypeKind::kOpaque || t.kind() == TypeKind::kObject) {
    return Type(t.kind(), t.name(), std::move(params));
  }
  return Type(t.kind(), std::move(params));
}

bool IsDynLike(const Type& t) {
  return t.kind() == TypeKind::kDyn || t.kind() == TypeKind::kError;
}

// Whether a value of type `arg` may be passed where `param` is declared,
// binding type parameters on the way.
bool Unify(const Type& param, const Type& arg, Bindings& b) {
  if (param.kind() == TypeKind::kTypeParam) {
    auto it = b.find(param.name());
    if (it == b.end()) {
      b.emplace(param.name(), arg);
      return true;
    }
    if (IsDynLike(it->second)) {
      it->second = arg;
      return true;
    }
    if (IsDynLike(arg)) return true;
    Bindings scratch = b;
    if (Unify(it->second, arg, scratch)) return true;
    // Widen to dyn when the element types differ (e.g. mixed literals).
    return false;
  }
  if (IsDynLike(param) || IsDynLike(arg)) return true;
  if (param.kind() != arg.kind()) {
    // The object type of a map-like variable accepts map declarations.
    return false;
  }
  if ((param.kind() == TypeKind::kOpaque ||
       param.kind() == TypeKind::kObject) &&
      param.name() != arg.name()) {
    return false;
  }
  // Type values unify regardless of what they denote: type(int) and
  // type(uint) are both of type `type`, and compare at runtime.
  if (param.kind() == TypeKind::kType) return true;
  if (param.params().size() != arg.params().size()) {
    return param.params().empty() || arg.params().empty();
  }
  for (size_t i = 0; i < param.params().size(); ++i) {
    if (!Unify(param.param(i), arg.param(i), b)) return false;
  }
  return true;
}

// The most specific type both values conform to (for literals and ?:).
Type Join(const Type& a, const Type& b) {
  if (IsDynLike(a) || IsDynLike(b)) return Type::Dyn();
  if (a == b) return a;
  if (a.kind() == b.kind() && a.params().size() == b.params().size() &&
      a.name() == b.name() && !a.params().empty()) {
    std::vector<Type> params;
    for (size_t i = 0; i < a.params().size(); ++i) {
      params.push_back(Join(a.param(i), b.param(i)));
    }
    if (a.kind() == TypeKind::kOpaque || a.kind() == TypeKind::kObject) {
      return Type(a.kind(), a.name(), std::move(params));
    }
    return Type(a.kind(), std::move(params));
  }
  if (a.kind() == TypeKind::kNull) return b;
  if (b.kind() == TypeKind::kNull) return a;
  return Type::Dyn();
}

// Whether two element types are the same for homogeneous literals.
bool SameForLiterals(const Type& a, const Type& b) {
  if (IsDynLike(a) || IsDynLike(b)) return true;
  Bindings scratch;
  return Unify(a, b, scratch) && Unify(b, a, scratch);
}

class Checker {
 public:
  Checker(const Source& source, const Environment& env)
      : source_(source), env_(env) {}

  StatusOr<CheckResult> Run(const Expr& root) {
    Type t = Visit(root);
    if (errors_.empty() && env_.options().require_bool_result &&
        t.kind() != TypeKind::kBool && !IsDynLike(t)) {
      AddError(root.offset,
               fmt::format("must evaluate to bool or the unknown type, not {}",
                           t.ToString()));
    }
    if (!errors_.empty()) {
      std::string message;
      for (const std::string& e : errors_) {
        if (!message.empty()) message += "\n";
        message += e;
      }
      return InvalidArgumentError(std::move(message));
    }
    return std::move(result_);
  }

 private:
  void AddError(int32_t offset, std::string_view message) {
    if (errors_.size() < 20) {
      errors_.push_back(FormatLocatedError(source_, offset, message));
    }
  }

  Type Record(const Expr& e, Type t) {
    result_.types[e.id] = t;
    return t;
  }

  const Type* FindLocal(std::string_view name) const {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (it->first == name) return &it->second;
    }
    return nullptr;
  }

  Type Visit(const Expr& e) {
    return std::visit([&](const auto& k) { return Record(e, VisitKind(e, k)); },
                      e.kind);
  }

  Type VisitKind(const Expr&, const ConstantExpr& c) {
    switch (c.value.index()) {
      case 0:
        return Type::Null();
      case 1:
        return Type::Bool();
      case 2:
        return Type::Int();
      case 3:
        return Type::Uint();
      case 4:
        return Type::Double();
      case 5:
        return Type::String();
      default:
        return Type::Bytes();
    }
  }

  // Resolves an ident or select chain as a name; nullopt when it is a
  // normal field selection.
  std::optional<Type> ResolveChain(const Expr& e) {
    std::optional<std::string> qualified = QualifiedName(e);
    if (!qualified) return std::nullopt;
    std::string_view root = *qualified;
    root = root.substr(0, root.find('.'));
    if (!root.empty() && FindLocal(root) != nullptr) return std::nullopt;
    std::optional<NameResolution> r = ResolveName(env_, *qualified);
    if (!r || r->remaining_selects != 0) return std::nullopt;
    result_.references[e.id] = r->reference;
    if (r->reference.kind == Reference::Kind::kTypeName) {
      return Type::TypeOf(TypeOfTypeName(r->reference.name));
    }
    return env_.variables()[r->reference.slot].type;
  }

  Type VisitKind(const Expr& e, const IdentExpr& ident) {
    if (const Type* local = FindLocal(ident.name)) return *local;
    if (std::optional<Type> t = ResolveChain(e)) return *t;
    AddError(e.offset,
             fmt::format("undeclared reference to '{}' (in container '')",
                         ident.name));
    return Type::Error();
  }

  Type FieldType(const Expr& e, const Type& operand, const std::string& field) {
    switch (operand.kind()) {
      case TypeKind::kDyn:
      case TypeKind::kError:
        return Type::Dyn();
      case TypeKind::kOptional: {
        Type inner = FieldType(e, operand.param(0), field);
        return inner.kind() == TypeKind::kOptional ? inner
                                                   : Type::Optional(inner);
      }
      case TypeKind::kMap:
        if (!IsDynLike(operand.param(0)) &&
            operand.param(0).kind() != TypeKind::kString) {
          break;
        }
        return operand.param(1);
      case TypeKind::kObject: {
        const ObjectTypeDecl* decl = env_.FindObjectType(operand.name());
        if (decl != nullptr) {
          for (const FieldDecl& f : decl->fields) {
            if (f.name == field) return f.type;
          }
        }
        AddError(e.offset, fmt::format("undefined field '{}'", field));
        return Type::Error();
      }
      default:
        break;
    }
    AddError(e.offset, fmt::format("type '{}' does not support field selection",
                                   operand.ToString()));
    return Type::Error();
  }

  Type VisitKind(const Expr& e, const SelectExpr& sel) {
    if (!sel.test_only) {
      if (std::optional<Type> t = ResolveChain(e)) return *t;
    }
    Type operand = Visit(*sel.operand);
    Type field = FieldType(e, operand, sel.field);
    if (sel.test_only) return Type::Bool();
    return field;
  }

  Type VisitKind(const Expr& e, const ListExpr& list) {
    Type elem;
    bool first = true;
    for (size_t i = 0; i < list.elements.size(); ++i) {
      Type t = Visit(*list.elements[i]);
      if (IsOptionalIndex(list, i)) {
        t = t.kind() == TypeKind::kOptional ? t.param(0) : Type::Dyn();
      }
      elem = MergeElement(e, first, elem, t);
      first = false;
    }
    return Type::List(first ? Type::Dyn() : elem);
  }

  static bool IsOptionalIndex(const ListExpr& list, size_t i) {
    for (int32_t j : list.optional_indices) {
      if (static_cast<size_t>(j) == i) return true;
    }
    return false;
  }

  Type MergeElement(const Expr& e, bool first, const Type& acc, const Type& t) {
    if (first) return t;
    if (env_.options().homogeneous_aggregate_literals &&
        !SameForLiterals(acc, t)) {
      AddError(e.offset, fmt::format("expected type '{}' but found '{}'",
                                     acc.ToString(), t.ToString()));
      return acc;
    }
    return Join(acc, t);
  }

  Type VisitKind(const Expr& e, const MapExpr& map) {
    Type key, value;
    bool first = true;
    for (const MapEntry& entry : map.entries) {
      Type k = Visit(*entry.key);
      Type v = Visit(*entry.value);
      if (entry.optional) {
        v = v.kind() == TypeKind::kOptional ? v.param(0) : Type::Dyn();
      }
      switch (k.kind()) {
        case TypeKind::kInt:
        case TypeKind::kUint:
        case TypeKind::kBool:
        case TypeKind::kString:
        case TypeKind::kDyn:
        case TypeKind::kError:
        case TypeKind::kTypeParam:
          break;
        default:
          AddError(entry.key->offset,
                   fmt::format("unsupported map key type: {}", k.ToString()));
      }
      key = MergeElement(e, first, key, k);
      value = MergeElement(e, first, value, v);
      first = false;
    }
    if (first) return Type::Map(Type::Dyn(), Type::Dyn());
    return Type::Map(key, value);
  }

  Type VisitKind(const Expr& e, const StructExpr& s) {
    for (const StructField& f : s.fields) Visit(*f.value);
    AddError(e.offset,
             fmt::format("undeclared reference to '{}' (in container '')",
                         s.type_name));
    return Type::Error();
  }

  Type VisitKind(const Expr& e, const ComprehensionExpr& c) {
    Type range = Visit(*c.iter_range);
    Type var1 = Type::Dyn(), var2 = Type::Dyn();
    bool two = !c.iter_var2.empty();
    switch (range.kind()) {
      case TypeKind::kList:
        if (two) {
          var1 = Type::Int();
          var2 = range.param(0);
        } else {
          var1 = range.param(0);
        }
        break;
      case TypeKind::kMap:
        var1 = range.param(0);
        var2 = range.param(1);
        break;
      case TypeKind::kDyn:
      case TypeKind::kError:
        break;
      default:
        AddError(c.iter_range->offset,
                 fmt::format("expression of type '{}' cannot be the range of "
                             "a comprehension (must be list, map, or dynamic)",
                             range.ToString()));
        break;
    }
    Type accu = Visit(*c.accu_init);
    locals_.emplace_back(c.accu_var, accu);
    locals_.emplace_back(c.iter_var, var1);
    if (two) locals_.emplace_back(c.iter_var2, var2);
    Visit(*c.loop_condition);
    Type step = Visit(*c.loop_step);
    locals_.pop_back();
    if (two) locals_.pop_back();
    // An empty literal accumulator takes its element type from the step.
    Type accu_type = RefineAccumulator(accu, step);
    locals_.back().second = accu_type;
    Type result = Visit(*c.result);
    locals_.pop_back();
    (void)e;
    return result;
  }

  static Type RefineAccumulator(const Type& init, const Type& step) {
    if (init.kind() == step.kind() && init.kind() != TypeKind::kDyn) {
      return Join(step, step);
    }
    return init;
  }

  // Calls whose semantics the evaluator implements directly.
  std::optional<Type> VisitSpecialCall(const Expr& e, const CallExpr& call,
                                       const std::vector<Type>& args) {
    const std::string& f = call.function;
    if (call.target != nullptr) return std::nullopt;
    if (f == "_&&_" || f == "_||_") {
      for (size_t i = 0; i < args.size(); ++i) {
        if (args[i].kind() != TypeKind::kBool && !IsDynLike(args[i])) {
          NoOverload(e, call, args);
          return Type::Error();
        }
      }
      return Type::Bool();
    }
    if (f == "_?_:_" && args.size() == 3) {
      if (args[0].kind() != TypeKind::kBool && !IsDynLike(args[0])) {
        NoOverload(e, call, args);
        return Type::Error();
      }
      if (!SameForLiterals(args[1], args[2]) &&
          args[1].kind() != TypeKind::kNull &&
          args[2].kind() != TypeKind::kNull) {
        NoOverload(e, call, args);
        return Type::Error();
      }
      return Join(args[1], args[2]);
    }
    if (f == "@not_strictly_false") return Type::Bool();
    if (f == "cel.@mapInsert") {
      if (args.size() == 3) return Type::Map(args[1], args[2]);
      if (args.size() == 2) return args[1];
    }
    return std::nullopt;
  }

  void NoOverload(const Expr& e, const CallExpr& call,
                  const std::vector<Type>& args) {
    std::string list;
    for (size_t i = 0; i < args.size(); ++i) {
      if (i > 0) list += ", ";
      list += args[i].ToString();
    }
    std::string name = call.function;
    AddError(
        e.offset,
        fmt::format("found no matching overload for '{}' applied to '{}({})'",
                    name, call.target ? "member " : "", list));
  }

  Type VisitKind(const Expr& e, const CallExpr& call) {
    // A namespaced global function written as a member call: `sets.contains`.
    bool member = call.target != nullptr;
    std::string function = call.function;
    if (member) {
      std::optional<std::string> q = QualifiedName(*call.target);
      if (q && !IsShadowed(*q)) {
        std::string global = *q + "." + call.function;
        if (!env_.functions().Find(global, false).empty() &&
            !ResolveName(env_, *q)) {
          member = false;
          function = global;
          Reference ref;
          ref.kind = Reference::Kind::kGlobalFunction;
          ref.name = global;
          result_.references[e.id] = ref;
        }
      }
    }
    std::vector<Type> args;
    if (member) args.push_back(Visit(*call.target));
    for (const ExprPtr& a : call.args) args.push_back(Visit(*a));
    if (!member) {
      if (std::optional<Type> t = VisitSpecialCall(e, call, args)) return *t;
    }
    auto overloads = env_.functions().Find(function, member);
    if (overloads.empty()) {
      if (!env_.functions().HasFunction(function) || member) {
        AddError(e.offset,
                 fmt::format("undeclared reference to '{}' (in container '')",
                             function));
        return Type::Error();
      }
    }
    std::optional<Type> result;
    for (const Overload* o : overloads) {
      if (o->params.size() != args.size()) continue;
      Bindings b;
      bool ok = true;
      for (size_t i = 0; i < args.size() && ok; ++i) {
        ok = Unify(o->params[i], args[i], b);
      }
      if (!ok) continue;
      Type r = Substitute(o->result, b);
      result = result ? (*result == r ? r : Join(*result, r)) : r;
    }
    if (!result) {
      CallExpr shown;
      shown.function = function;
      if (member) shown.target = std::make_unique<Expr>();
      NoOverload(e, shown, args);
      return Type::Error();
    }
    return *result;
  }

  bool IsShadowed(std::string_view qualified) const {
    std::string_view root = qualified.substr(0, qualified.find('.'));
    return FindLocal(root) != nullptr;
  }

  const Source& source_;
  const Environment& env_;
  std::vector<std::pair<std::string, Type>> locals_;
  std::vector<std::string> errors_;
  CheckResult result_;
};

}  // namespace

std::optional<std::string_view> TypeIdentifier(std::string_view name) {
  for (const TypeIdent& t : kTypeIdents) {
    if (t.name == name) return t.type_name;
  }
  return std::nullopt;
}

std::optional<std::string> QualifiedName(const Expr& expr) {
  if (const auto* ident = std::get_if<IdentExpr>(&expr.kind)) {
    return ident->name;
  }
  if (const auto* sel = std::get_if<SelectExpr>(&expr.kind)) {
    if (sel->test_only) return std::nullopt;
    std::optional<std::string> operand = QualifiedName(*sel->operand);
    if (!operand) return std::nullopt;
    return *operand + "." + sel->field;
  }
  return std::nullopt;
}

std::optional<NameResolution> ResolveName(const Environment& env,
                                          std::string_view qualified) {
  std::string_view name = qualified;
  if (!name.empty() && name.front() == '.') name.remove_prefix(1);
  // Longest declared prefix wins.
  std::string_view prefix = name;
  int remaining = 0;
  while (true) {
    int slot = env.VariableIndex(prefix);
    if (slot >= 0) {
      NameResolution r;
      r.reference.kind = Reference::Kind::kVariable;
      r.reference.slot = slot;
      r.remaining_selects = remaining;
      return r;
    }
    if (remaining == 0) {
      if (std::optional<std::string_view> t = TypeIdentifier(prefix)) {
        NameResolution r;
        r.reference.kind = Reference::Kind::kTypeName;
        r.reference.name = std::string(*t);
        return r;
      }
    }
    size_t dot = prefix.rfind('.');
    if (dot == std::string_view::npos) return std::nullopt;
    prefix = prefix.substr(0, dot);
    ++remaining;
  }
}

StatusOr<CheckResult> Check(const Expr& root, const Source& source,
                            const Environment& env) {
  return Checker(source, env).Run(root);
}

}  // namespace dralloc::cel
