// The CEL abstract syntax tree produced by the parser and consumed by the
// checker and the planner.
//
// The shape follows cel-spec's `cel.expr.Expr`: macros are already expanded
// into Comprehension nodes (with cel-go's accumulator name "@result"), `has()`
// is a Select with test_only set, and the optional syntax becomes calls of the
// internal functions "_?._" (a.?b) and "_[?_]" (a[?b]). Operators are calls of
// their cel-spec function names ("_+_", "_&&_", "_?_:_", "@in", ...).
#ifndef DRALLOC_CEL_SYNTAX_AST_H_
#define DRALLOC_CEL_SYNTAX_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "cel/syntax/source.h"

namespace dralloc::cel {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct NullConstant {
  friend bool operator==(NullConstant, NullConstant) = default;
};
// Bytes literals are kept apart from strings; `value` holds raw octets.
struct BytesConstant {
  std::string value;
  friend bool operator==(const BytesConstant&, const BytesConstant&) = default;
};
using Constant = std::variant<NullConstant, bool, int64_t, uint64_t, double,
                              std::string, BytesConstant>;

struct ConstantExpr {
  Constant value;
};

struct IdentExpr {
  std::string name;
};

// `operand.field`; with test_only it is the expansion of `has(operand.field)`.
struct SelectExpr {
  ExprPtr operand;
  std::string field;
  bool test_only = false;
};

// A function call, global (`target` null) or receiver-style (`target.f()`).
struct CallExpr {
  ExprPtr target;
  std::string function;
  std::vector<ExprPtr> args;
};

// `[a, ?b]`: optional_indices lists the positions written with `?`.
struct ListExpr {
  std::vector<ExprPtr> elements;
  std::vector<int32_t> optional_indices;
};

struct MapEntry {
  int64_t id = 0;
  int32_t offset = 0;
  ExprPtr key;
  ExprPtr value;
  bool optional = false;  // `{?k: v}`
};

struct MapExpr {
  std::vector<MapEntry> entries;
};

// `pkg.Msg{f: v}`. Parsed for completeness; dralloc has no message types, so
// the checker reports the type as unknown.
struct StructField {
  int64_t id = 0;
  int32_t offset = 0;
  std::string name;
  ExprPtr value;
  bool optional = false;
};

struct StructExpr {
  std::string type_name;
  std::vector<StructField> fields;
};

// Macro expansion target. iter_var2 is empty for one-variable macros; for
// two-variable macros over a list iter_var is the index and iter_var2 the
// element, over a map iter_var is the key and iter_var2 the value.
struct ComprehensionExpr {
  std::string iter_var;
  std::string iter_var2;
  ExprPtr iter_range;
  std::string accu_var;
  ExprPtr accu_init;
  ExprPtr loop_condition;
  ExprPtr loop_step;
  ExprPtr result;
};

struct Expr {
  int64_t id = 0;      // unique within one parse, > 0
  int32_t offset = 0;  // byte offset into the source of the node's token
  std::variant<ConstantExpr, IdentExpr, SelectExpr, CallExpr, ListExpr, MapExpr,
               StructExpr, ComprehensionExpr>
      kind;
};

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_SYNTAX_AST_H_
