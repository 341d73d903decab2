#include "cel/check/environment.h"

#include "cel/lib/all_libraries.h"

namespace dralloc::cel {

std::shared_ptr<Environment> Environment::NewStandard(
    EnvironmentOptions options) {
  static const std::shared_ptr<const FunctionRegistry> registry = [] {
    auto r = std::make_shared<FunctionRegistry>();
    RegisterAllLibraries(*r);
    return std::shared_ptr<const FunctionRegistry>(std::move(r));
  }();
  return std::make_shared<Environment>(registry, options);
}

Environment::Environment(std::shared_ptr<const FunctionRegistry> functions,
                         EnvironmentOptions options)
    : functions_(std::move(functions)), options_(options) {}

int Environment::DeclareVariable(std::string name, Type type, SizeInfo sizes) {
  int existing = VariableIndex(name);
  if (existing >= 0) {
    variables_[existing].type = std::move(type);
    variables_[existing].sizes = std::move(sizes);
    return existing;
  }
  variables_.push_back({std::move(name), std::move(type), std::move(sizes)});
  return static_cast<int>(variables_.size()) - 1;
}

void Environment::DeclareObjectType(ObjectTypeDecl decl) {
  object_types_.push_back(std::move(decl));
}

int Environment::VariableIndex(std::string_view name) const {
  for (size_t i = 0; i < variables_.size(); ++i) {
    if (variables_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const ObjectTypeDecl* Environment::FindObjectType(std::string_view name) const {
  for (const ObjectTypeDecl& d : object_types_) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

}  // namespace dralloc::cel
