// A readable one-line rendering of an AST, for tests and diagnostics.
//
//   constants   1  1u  1.5  "s"  b"\xff"  true  null
//   ident       a   .a
//   select      a.b   a.`b-c`   a.b~test-only  (has() expansion)
//   call        f(a, b)   a.f(b)   _+_(a, 1)   _?._(a, "b")
//   list        [a, ?b]
//   map         {k: v, ?k2: v2}
//   struct      pkg.Msg{f: v, ?g: w}
//   comprehension
//     __comprehension__(iter_var, [iter_var2,] iter_range, accu_var,
//                       accu_init, loop_condition, loop_step, result)
//
// With `with_ids`, every expression is followed by "^#<id>".
#ifndef DRALLOC_CEL_SYNTAX_DEBUG_STRING_H_
#define DRALLOC_CEL_SYNTAX_DEBUG_STRING_H_

#include <string>

#include "cel/syntax/ast.h"

namespace dralloc::cel {

std::string DebugString(const Expr& expr, bool with_ids = false);
std::string DebugString(const Constant& constant);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_SYNTAX_DEBUG_STRING_H_
