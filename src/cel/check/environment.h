// A CEL environment: declared variables, object types and functions, and the
// options that change semantics (e.g. Kubernetes' homogeneous literals).
#ifndef DRALLOC_CEL_CHECK_ENVIRONMENT_H_
#define DRALLOC_CEL_CHECK_ENVIRONMENT_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cel/common/function_registry.h"
#include "cel/common/types.h"

namespace dralloc::cel {

struct EnvironmentOptions {
  // `[1, 'a']` is a compile error (Kubernetes); plain cel-spec allows it.
  bool homogeneous_aggregate_literals = false;
  // Cost of a `has()` test: 0 in Kubernetes, 1 in cel-go's default.
  uint64_t presence_test_cost = 1;
  // The checked result must be bool or dyn (Kubernetes selectors).
  bool require_bool_result = false;
};

// Estimated sizes of a value (string length, list or map entries) and of
// what it contains, for static cost estimation. Unset parts are unbounded.
struct SizeInfo {
  SizeEstimate size;
  std::shared_ptr<const SizeInfo> key;   // map keys
  std::shared_ptr<const SizeInfo> elem;  // list elements, map values
};

struct VariableDecl {
  std::string name;
  Type type;
  SizeInfo sizes;
};

// A field of an object type (e.g. kubernetes.DRADevice's `driver`).
struct FieldDecl {
  std::string name;
  Type type;
  SizeInfo sizes;
};

struct ObjectTypeDecl {
  std::string name;
  std::vector<FieldDecl> fields;
};

class Environment {
 public:
  // The cel-spec standard library plus every extension dralloc implements
  // (strings, lists, sets, optionals, bindings, two-variable comprehensions,
  // Kubernetes libraries). No variables.
  static std::shared_ptr<Environment> NewStandard(
      EnvironmentOptions options = {});

  explicit Environment(std::shared_ptr<const FunctionRegistry> functions,
                       EnvironmentOptions options = {});

  // Returns the variable's slot index for Activation.
  int DeclareVariable(std::string name, Type type, SizeInfo sizes = {});
  void DeclareObjectType(ObjectTypeDecl decl);

  const FunctionRegistry& functions() const { return *functions_; }
  const EnvironmentOptions& options() const { return options_; }
  EnvironmentOptions& mutable_options() { return options_; }
  const std::vector<VariableDecl>& variables() const { return variables_; }
  // -1 when not declared.
  int VariableIndex(std::string_view name) const;
  const ObjectTypeDecl* FindObjectType(std::string_view name) const;

 private:
  std::shared_ptr<const FunctionRegistry> functions_;
  EnvironmentOptions options_;
  std::vector<VariableDecl> variables_;
  std::vector<ObjectTypeDecl> object_types_;
};

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_CHECK_ENVIRONMENT_H_
