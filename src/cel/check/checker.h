// Type checking of a parsed expression against an Environment.
//
// Besides reporting errors (undeclared references, no matching overload,
// wrong result type), the checker records for the planner and the cost
// estimator the type of every node and how each name was resolved.
#ifndef DRALLOC_CEL_CHECK_CHECKER_H_
#define DRALLOC_CEL_CHECK_CHECKER_H_

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cel/check/environment.h"
#include "cel/common/types.h"
#include "cel/syntax/ast.h"
#include "common/status.h"

namespace dralloc::cel {

// How an identifier, a select chain or a call target was resolved.
struct Reference {
  enum class Kind { kVariable, kTypeName, kGlobalFunction };
  Kind kind = Kind::kVariable;
  int slot = -1;     // kVariable: Environment slot
  std::string name;  // kTypeName: static type name; kGlobalFunction: "ns.fn"
};

struct CheckResult {
  std::unordered_map<int64_t, Type> types;            // by Expr id
  std::unordered_map<int64_t, Reference> references;  // Ident/Select/Call ids
};

// Returns the result or kInvalidArgument with every error, formatted with
// positions ("ERROR: <input>:L:C: message\n | source\n | ..^").
StatusOr<CheckResult> Check(const Expr& root, const Source& source,
                            const Environment& env);

// The dotted name written by an Ident/Select chain ("a.b.c"), if it is one.
std::optional<std::string> QualifiedName(const Expr& expr);
// Resolves a name that is not shadowed by a comprehension variable: the
// longest declared variable prefix of `qualified` ("a.b" of "a.b.c") and the
// number of remaining select steps, or a type name. nullopt when unknown.
struct NameResolution {
  Reference reference;
  int remaining_selects = 0;  // selects left to apply after the variable
};
std::optional<NameResolution> ResolveName(const Environment& env,
                                          std::string_view qualified);
// The static type name (as type() returns it) of a type identifier such as
// "int" or "google.protobuf.Timestamp", or nullopt.
std::optional<std::string_view> TypeIdentifier(std::string_view name);

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_CHECK_CHECKER_H_
