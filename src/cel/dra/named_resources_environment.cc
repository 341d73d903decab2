#include "cel/dra/named_resources_environment.h"

#include <string>
#include <utility>

#include "cel/common/types.h"
#include "cel/lib/quantity_library.h"
#include "cel/lib/semver_library.h"
#include "common/semver.h"

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

NamedResourcesAttributes::NamedResourcesAttributes() {
  static constexpr std::string_view kFields[kMapCount] = {
      "quantity", "bool",        "int",    "intslice",
      "string",   "stringslice", "version"};
  auto* root = new EntryMap();
  root_ = Value::Map(root);
  for (int i = 0; i < kMapCount; ++i) {
    maps_[i] = new EntryMap();
    root->Insert(Value::String(std::string(kFields[i])), Value::Map(maps_[i]));
  }
}

void NamedResourcesAttributes::Add(Map map, std::string_view name,
                                   Value value) {
  maps_[map]->Insert(Value::String(std::string(name)), std::move(value));
}

void NamedResourcesAttributes::AddQuantity(std::string_view name,
                                           const Quantity& value) {
  Add(kQuantity, name, MakeQuantityValue(value));
}

void NamedResourcesAttributes::AddBool(std::string_view name, bool value) {
  Add(kBool, name, Value::Bool(value));
}

void NamedResourcesAttributes::AddInt(std::string_view name, int64_t value) {
  Add(kInt, name, Value::Int(value));
}

void NamedResourcesAttributes::AddIntSlice(std::string_view name,
                                           const std::vector<int64_t>& values) {
  std::vector<Value> items;
  items.reserve(values.size());
  for (int64_t v : values) items.push_back(Value::Int(v));
  Add(kIntSlice, name, Value::List(new VectorList(std::move(items))));
}

void NamedResourcesAttributes::AddString(std::string_view name,
                                         std::string_view value) {
  Add(kString, name, Value::String(std::string(value)));
}

void NamedResourcesAttributes::AddStringSlice(
    std::string_view name, const std::vector<std::string>& values) {
  std::vector<Value> items;
  items.reserve(values.size());
  for (const std::string& v : values) items.push_back(Value::String(v));
  Add(kStringSlice, name, Value::List(new VectorList(std::move(items))));
}

void NamedResourcesAttributes::AddVersion(std::string_view name,
                                          std::string_view value) {
  StatusOr<SemVer> parsed = SemVer::ParseStrict(value);
  Add(kVersion, name,
      parsed.ok() ? MakeSemverValue(*std::move(parsed))
                  : Value::Error(std::string(parsed.status().message())));
}

StatusOr<bool> MatchNamedResourcesSelector(
    const Program& program, const NamedResourcesAttributes& attributes,
    EvalContext& ctx) {
  Activation activation(program.environment());
  activation.Set(NamedResourcesAttributesSlot(), attributes.AsValue());
  const Value result = program.Evaluate(activation, ctx);
  if (result.IsError()) return InvalidArgumentError(result.error_message());
  if (!result.IsBool()) {
    return InvalidArgumentError("selector result is not a bool");
  }
  return result.bool_value();
}

}  // namespace dralloc::cel
