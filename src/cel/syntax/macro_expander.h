// Node construction for the parser and expansion of CEL macros into
// comprehensions. Internal to the parser; other code uses cel/parser.h.
#ifndef DRALLOC_CEL_SYNTAX_MACRO_EXPANDER_H_
#define DRALLOC_CEL_SYNTAX_MACRO_EXPANDER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/syntax/ast.h"
#include "common/status.h"

namespace dralloc::cel::internal {

using ExprKind = decltype(Expr::kind);

// The name of the accumulator variable in macro expansions (as cel-go).
inline constexpr std::string_view kAccumulatorName = "@result";

// Builds nodes with fresh ids and bounds the depth of the tree: a node that
// would make its subtree deeper than max_depth is not built and an
// "expression recursion limit exceeded" error is returned instead. Thus
// every tree built here can be copied, printed and destroyed recursively.
// It also bounds the number of ids handed out (max_nodes), since macros
// that copy their target (optMap) could otherwise grow the tree
// exponentially in the input size.
class ExprFactory {
 public:
  ExprFactory(const Source& source, int max_depth, int64_t max_nodes)
      : source_(source), max_depth_(max_depth), max_nodes_(max_nodes) {}

  int64_t NextId();
  int64_t max_id() const { return next_id_ - 1; }

  // Builds a node with an id from NextId() (reserved at its token so that
  // ids follow the source order) or a fresh one.
  StatusOr<ExprPtr> NewWithId(int64_t id, int32_t offset, ExprKind kind);
  StatusOr<ExprPtr> New(int32_t offset, ExprKind kind) {
    return NewWithId(NextId(), offset, std::move(kind));
  }
  StatusOr<ExprPtr> NewIdent(int32_t offset, std::string name);
  StatusOr<ExprPtr> NewConst(int32_t offset, Constant value);
  StatusOr<ExprPtr> NewCall(int32_t offset, std::string function,
                            std::vector<ExprPtr> args);
  StatusOr<ExprPtr> NewMemberCall(int32_t offset, ExprPtr target,
                                  std::string function,
                                  std::vector<ExprPtr> args);
  StatusOr<ExprPtr> NewList(int32_t offset, std::vector<ExprPtr> elements);
  // Deep copy with fresh ids (offsets kept).
  StatusOr<ExprPtr> Copy(const Expr& expr);

  // Depth of a subtree built by this factory (a leaf has depth 1).
  int Depth(const Expr& expr) const;

  // "ERROR: <input>:L:C: message" with the source line and caret.
  Status Error(int32_t offset, std::string_view message) const;
  Status DepthError(int32_t offset) const;
  const Source& source() const { return source_; }

 private:
  const Source& source_;
  int max_depth_;
  int64_t max_nodes_;
  int64_t next_id_ = 1;
  std::vector<int32_t> depth_by_id_ = {0};  // index: id
};

template <typename... E>
std::vector<ExprPtr> MakeArgs(E&&... exprs) {
  std::vector<ExprPtr> args;
  args.reserve(sizeof...(exprs));
  (args.push_back(std::forward<E>(exprs)), ...);
  return args;
}

// Expands the call `target.function(args)` (target null for a global call)
// when it matches a macro by name, argument count and receiver style.
// Returns the expansion, nullptr when no macro matches (target and args are
// then left untouched), or an error for a malformed macro call.
StatusOr<ExprPtr> ExpandMacro(ExprFactory& factory, int32_t offset,
                              std::string_view function, ExprPtr& target,
                              std::vector<ExprPtr>& args);

}  // namespace dralloc::cel::internal

#endif  // DRALLOC_CEL_SYNTAX_MACRO_EXPANDER_H_
