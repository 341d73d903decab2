#include "cel/dra/named_resources_environment.h"

#include <string>
#include <utility>

#include "cel/common/types.h"
#include "cel/program.h"

namespace dralloc::cel {
namespace {

constexpr std::string_view kAttributesTypeName =
    "kubernetes.NamedResourcesAttributes";

ObjectTypeDecl AttributesTypeDecl() {
  ObjectTypeDecl decl;
  decl.name = std::string(kAttributesTypeName);
  auto by_name = [](Type value) {
    return Type::Map(Type::String(), std::move(value));
  };
  decl.fields.push_back(
      {"quantity", by_name(Type::Opaque(kQuantityTypeName)), {}});
  decl.fields.push_back({"bool", by_name(Type::Bool()), {}});
  decl.fields.push_back({"int", by_name(Type::Int()), {}});
  decl.fields.push_back({"intslice", by_name(Type::List(Type::Int())), {}});
  decl.fields.push_back({"string", by_name(Type::String()), {}});
  decl.fields.push_back(
      {"stringslice", by_name(Type::List(Type::String())), {}});
  decl.fields.push_back(
      {"version", by_name(Type::Opaque(kSemverTypeName)), {}});
  return decl;
}

struct NamedResources {
  std::shared_ptr<const Environment> env;
  int attributes_slot = -1;
};

const NamedResources& Get() {
  static const NamedResources* built = [] {
    EnvironmentOptions options;
    options.homogeneous_aggregate_literals = true;
    options.require_bool_result = true;
    auto env = Environment::NewStandard(options);
    env->DeclareObjectType(AttributesTypeDecl());
    auto* out = new NamedResources();
    out->attributes_slot =
        env->DeclareVariable("attributes", Type::Object(kAttributesTypeName));
    out->env = std::move(env);
    return out;
  }();
  return *built;
}

}  // namespace

std::shared_ptr<const Environment> NamedResourcesEnvironment() {
  return Get().env;
}

int NamedResourcesAttributesSlot() { return Get().attributes_slot; }

Status CheckNamedResourcesSelector(std::string_view text) {
  StatusOr<std::shared_ptr<const Program>> program =
      Compile(NamedResourcesEnvironment(), text, CompileOptions{});
  return program.status();
}

}  // namespace dralloc::cel
