#include "allocator/prefix_closed_conjuncts.h"

#include "cel/syntax/parser.h"

namespace dralloc::allocator {
namespace {

constexpr std::string_view kDevices = "devices";
constexpr std::string_view kAccumulator = "@result";

const cel::CallExpr* AsCall(const cel::Expr& e, std::string_view function) {
  const auto* call = std::get_if<cel::CallExpr>(&e.kind);
  return call != nullptr && call->function == function ? call : nullptr;
}

bool IsIdent(const cel::Expr* e, std::string_view name) {
  if (e == nullptr) return false;
  const auto* ident = std::get_if<cel::IdentExpr>(&e->kind);
  return ident != nullptr && ident->name == name;
}

template <typename F>
void ForEachChild(const cel::Expr& e, F f) {
  std::visit(
      [&](const auto& k) {
        using K = std::decay_t<decltype(k)>;
        if constexpr (std::is_same_v<K, cel::SelectExpr>) {
          f(*k.operand);
        } else if constexpr (std::is_same_v<K, cel::CallExpr>) {
          if (k.target) f(*k.target);
          for (const auto& a : k.args) f(*a);
        } else if constexpr (std::is_same_v<K, cel::ListExpr>) {
          for (const auto& a : k.elements) f(*a);
        } else if constexpr (std::is_same_v<K, cel::MapExpr>) {
          for (const auto& entry : k.entries) {
            f(*entry.key);
            f(*entry.value);
          }
        } else if constexpr (std::is_same_v<K, cel::StructExpr>) {
          for (const auto& field : k.fields) f(*field.value);
        } else if constexpr (std::is_same_v<K, cel::ComprehensionExpr>) {
          f(*k.iter_range);
          f(*k.accu_init);
          f(*k.loop_condition);
          f(*k.loop_step);
          f(*k.result);
        }
      },
      e.kind);
}

bool Mentions(const cel::Expr& e) {
  if (IsIdent(&e, kDevices)) return true;
  bool found = false;
  ForEachChild(
      e, [&](const cel::Expr& child) { found = found || Mentions(child); });
  return found;
}

// The predicate of an expanded one-variable `devices.all(x, P)`, or null.
const cel::Expr* AllOverDevices(const cel::Expr& e) {
  const auto* c = std::get_if<cel::ComprehensionExpr>(&e.kind);
  if (c == nullptr || !c->iter_var2.empty() ||
      !IsIdent(c->iter_range.get(), kDevices) || c->accu_var != kAccumulator ||
      !IsIdent(c->result.get(), kAccumulator)) {
    return nullptr;
  }
  const auto* init = std::get_if<cel::ConstantExpr>(&c->accu_init->kind);
  if (init == nullptr || init->value != cel::Constant(true)) return nullptr;
  const cel::CallExpr* step = AsCall(*c->loop_step, "_&&_");
  if (step == nullptr || step->args.size() != 2 ||
      !IsIdent(step->args[0].get(), kAccumulator)) {
    return nullptr;
  }
  return step->args[1].get();
}

// `devices` appears only as `devices[<int constant>]` or as the range of a
// nested all() whose predicate again qualifies.
bool BodyQualifies(const cel::Expr& e) {
  if (IsIdent(&e, kDevices)) return false;
  if (const cel::CallExpr* index = AsCall(e, "_[_]");
      index != nullptr && index->args.size() == 2 &&
      IsIdent(index->args[0].get(), kDevices)) {
    const auto* k = std::get_if<cel::ConstantExpr>(&index->args[1]->kind);
    return k != nullptr && std::holds_alternative<int64_t>(k->value);
  }
  if (const cel::Expr* predicate = AllOverDevices(e)) {
    return BodyQualifies(*predicate);
  }
  bool ok = true;
  ForEachChild(
      e, [&](const cel::Expr& child) { ok = ok && BodyQualifies(child); });
  return ok;
}

bool IsSizeOfDevices(const cel::Expr& e) {
  const cel::CallExpr* call = AsCall(e, "size");
  if (call == nullptr) return false;
  if (call->target)
    return call->args.empty() && IsIdent(call->target.get(), kDevices);
  return call->args.size() == 1 && IsIdent(call->args[0].get(), kDevices);
}

bool PrefixClosed(const cel::Expr& e) {
  if (!Mentions(e)) return true;
  if (const cel::CallExpr* both = AsCall(e, "_&&_")) {
    return both->args.size() == 2 && PrefixClosed(*both->args[0]) &&
           PrefixClosed(*both->args[1]);
  }
  for (std::string_view op : {"_<=_", "_<_", "_>=_", "_>_"}) {
    const cel::CallExpr* cmp = AsCall(e, op);
    if (cmp == nullptr || cmp->args.size() != 2) continue;
    // size(devices) on the small side of the comparison.
    bool size_left = op == "_<=_" || op == "_<_";
    const cel::Expr& size_side = *cmp->args[size_left ? 0 : 1];
    const cel::Expr& bound = *cmp->args[size_left ? 1 : 0];
    return IsSizeOfDevices(size_side) && !Mentions(bound);
  }
  if (const cel::Expr* predicate = AllOverDevices(e)) {
    return BodyQualifies(*predicate);
  }
  return false;
}

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

// Splits the text of `e`, which spans [begin, end) of the source, at the
// offsets of its top-level `&&` operators.
void Split(const cel::Expr& e, std::string_view text, size_t begin, size_t end,
           std::vector<std::pair<const cel::Expr*, std::string>>& out) {
  const cel::CallExpr* both = AsCall(e, "_&&_");
  size_t op = static_cast<size_t>(e.offset);
  if (both != nullptr && both->args.size() == 2 && op >= begin &&
      op + 2 <= end && text.substr(op, 2) == "&&") {
    Split(*both->args[0], text, begin, op, out);
    Split(*both->args[1], text, op + 2, end, out);
    return;
  }
  out.emplace_back(&e, Trim(text.substr(begin, end - begin)));
}

}  // namespace

std::vector<std::string> PrefixClosedConjuncts(std::string_view expression) {
  auto parsed = cel::Parse(expression);
  if (!parsed.ok()) return {};
  std::vector<std::pair<const cel::Expr*, std::string>> conjuncts;
  Split(*parsed->root, expression, 0, expression.size(), conjuncts);
  std::vector<std::string> out;
  for (const auto& [node, text] : conjuncts) {
    // A fragment cut out of parentheses does not parse on its own: skip it.
    if (Mentions(*node) && PrefixClosed(*node) && cel::Parse(text).ok()) {
      out.push_back(text);
    }
  }
  return out;
}

}  // namespace dralloc::allocator
