#include "cel/syntax/debug_string.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <variant>

namespace dralloc::cel {
namespace {

void AppendQuoted(std::string* out, std::string_view text, bool bytes) {
  if (bytes) out->push_back('b');
  out->push_back('"');
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (u < 0x20 || u == 0x7F || (bytes && u >= 0x80)) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", u);
          *out += buf;
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

bool IsPlainIdentifier(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

class Printer {
 public:
  explicit Printer(bool with_ids) : with_ids_(with_ids) {}

  void Print(const ExprPtr& expr) {
    if (!expr) {
      out_ += "<null>";
      return;
    }
    Print(*expr);
  }

  void Print(const Expr& expr) {
    std::visit([this](const auto& kind) { PrintKind(kind); }, expr.kind);
    if (with_ids_) out_ += "^#" + std::to_string(expr.id);
  }

  std::string Take() { return std::move(out_); }

 private:
  void PrintKind(const ConstantExpr& c) { out_ += DebugString(c.value); }
  void PrintKind(const IdentExpr& i) { out_ += i.name; }
  void PrintKind(const SelectExpr& s) {
    Print(s.operand);
    out_ += '.';
    PrintField(s.field);
    if (s.test_only) out_ += "~test-only";
  }
  void PrintKind(const CallExpr& c) {
    if (c.target) {
      Print(c.target);
      out_ += '.';
    }
    out_ += c.function;
    out_ += '(';
    PrintList(c.args);
    out_ += ')';
  }
  void PrintKind(const ListExpr& l) {
    out_ += '[';
    for (size_t i = 0; i < l.elements.size(); ++i) {
      if (i > 0) out_ += ", ";
      for (int32_t o : l.optional_indices) {
        if (static_cast<size_t>(o) == i) {
          out_ += '?';
          break;
        }
      }
      Print(l.elements[i]);
    }
    out_ += ']';
  }
  void PrintKind(const MapExpr& m) {
    out_ += '{';
    for (size_t i = 0; i < m.entries.size(); ++i) {
      if (i > 0) out_ += ", ";
      if (m.entries[i].optional) out_ += '?';
      Print(m.entries[i].key);
      out_ += ": ";
      Print(m.entries[i].value);
    }
    out_ += '}';
  }
  void PrintKind(const StructExpr& s) {
    out_ += s.type_name;
    out_ += '{';
    for (size_t i = 0; i < s.fields.size(); ++i) {
      if (i > 0) out_ += ", ";
      if (s.fields[i].optional) out_ += '?';
      PrintField(s.fields[i].name);
      out_ += ": ";
      Print(s.fields[i].value);
    }
    out_ += '}';
  }
  void PrintKind(const ComprehensionExpr& c) {
    out_ += "__comprehension__(";
    out_ += c.iter_var;
    out_ += ", ";
    if (!c.iter_var2.empty()) {
      out_ += c.iter_var2;
      out_ += ", ";
    }
    Print(c.iter_range);
    out_ += ", ";
    out_ += c.accu_var;
    out_ += ", ";
    Print(c.accu_init);
    out_ += ", ";
    Print(c.loop_condition);
    out_ += ", ";
    Print(c.loop_step);
    out_ += ", ";
    Print(c.result);
    out_ += ')';
  }

  void PrintField(const std::string& name) {
    if (IsPlainIdentifier(name)) {
      out_ += name;
    } else {
      out_ += '`';
      out_ += name;
      out_ += '`';
    }
  }
  void PrintList(const std::vector<ExprPtr>& exprs) {
    for (size_t i = 0; i < exprs.size(); ++i) {
      if (i > 0) out_ += ", ";
      Print(exprs[i]);
    }
  }

  bool with_ids_;
  std::string out_;
};

}  // namespace

std::string DebugString(const Constant& constant) {
  struct Visitor {
    std::string operator()(NullConstant) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(uint64_t u) const { return std::to_string(u) + "u"; }
    std::string operator()(double d) const {
      if (std::isnan(d)) return "NaN";
      if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
      char buf[64];
      const auto result = std::to_chars(buf, buf + sizeof(buf), d);
      std::string s(buf, result.ptr);
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return s;
    }
    std::string operator()(const std::string& s) const {
      std::string out;
      AppendQuoted(&out, s, /*bytes=*/false);
      return out;
    }
    std::string operator()(const BytesConstant& b) const {
      std::string out;
      AppendQuoted(&out, b.value, /*bytes=*/true);
      return out;
    }
  };
  return std::visit(Visitor{}, constant);
}

std::string DebugString(const Expr& expr, bool with_ids) {
  Printer printer(with_ids);
  printer.Print(expr);
  return printer.Take();
}

}  // namespace dralloc::cel
