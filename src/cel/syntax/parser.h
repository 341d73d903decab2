// The CEL parser: source text to an AST with macros expanded.
//
// Grammar: cel-spec's language definition with cel-go's extensions (optional
// syntax `.?f` `[?i]` `{?k: v}` `[?e]`, backquoted field names, two-variable
// comprehension macros and the extension macros cel.bind, optMap, optFlatMap,
// sortBy, transformList, transformMap, transformMapEntry).
//
// The parser is a hand-written recursive-descent parser whose recursion and
// result depth are bounded by ParseOptions::max_recursion_depth: any input,
// however large, deep or malformed, yields a tree or an error, never a crash
// or a stack overflow.
#ifndef DRALLOC_CEL_SYNTAX_PARSER_H_
#define DRALLOC_CEL_SYNTAX_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "cel/syntax/ast.h"
#include "cel/syntax/source.h"
#include "common/status.h"

namespace dralloc::cel {

struct ParseOptions {
  // Bounds the nesting of parenthesised/list/map/call/index structures and
  // the depth of the resulting tree (operator chains, member chains, unary
  // operators, macro expansions all count). Exceeding it is the error
  // "expression recursion limit exceeded".
  int max_recursion_depth = 200;
  // Longer inputs are rejected before lexing.
  size_t max_expression_bytes = 100'000;
  bool enable_macros = true;
  // `.?f`, `[?i]`, `{?k: v}`, `[?e]`, `Msg{?f: v}`.
  bool enable_optional_syntax = true;
};

struct ParsedExpr {
  ExprPtr root;
  std::shared_ptr<const Source> source;
  int64_t max_id = 0;  // every id in the tree is in [1, max_id]
};

// Parses `text`. Errors (lexical, syntactic, macro, limits) are
// kInvalidArgument with a message formatted like cel-go's:
//   ERROR: <input>:1:5: Syntax error: mismatched input 'c' expecting <EOF>
//    | a + b c
//    | ......^
// Only the first error is reported.
StatusOr<ParsedExpr> Parse(std::string_view text,
                           const ParseOptions& options = {});

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_SYNTAX_PARSER_H_
