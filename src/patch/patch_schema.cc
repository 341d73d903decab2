#include "patch/patch_schema.h"

#include <optional>
#include <type_traits>
#include <utility>

#include "api/kind_traits.h"
#include "api/resource_registry.h"
#include "api/struct_codec.h"

namespace dralloc::patch {

void PatchSchema::AddList(std::string path, ListRule rule) {
  lists_.insert_or_assign(std::move(path), std::move(rule));
}

const ListRule* PatchSchema::FindList(std::string_view path) const {
  auto it = lists_.find(path);
  return it == lists_.end() ? nullptr : &it->second;
}

std::string JoinSchemaPath(std::string_view path, std::string_view field) {
  std::string joined(path);
  if (!joined.empty()) joined += '.';
  joined += field;
  return joined;
}

namespace {

void AddRule(PatchSchema& schema, const std::string& path,
             const api::ListRule& rule) {
  ListRule out;
  switch (rule.type) {
    case api::ListType::kUnstated:
      return;  // atomic, like a stated kAtomic
    case api::ListType::kAtomic:
      out.kind = ListKind::kAtomic;
      break;
    case api::ListType::kSet:
      out.kind = ListKind::kSet;
      break;
    case api::ListType::kMap:
      out.kind = ListKind::kMap;
      break;
  }
  for (size_t i = 0; i < rule.KeyCount(); ++i) {
    out.keys.emplace_back(rule.keys[i]);
  }
  out.smp_merge = rule.patch_merge;
  schema.AddList(path, std::move(out));
}

template <typename T>
void AddStructRules(PatchSchema& schema, const std::string& path);

// The rules inside a value of type V found at `path`.
template <typename V>
void AddValueRules(PatchSchema& schema, const std::string& path) {
  if constexpr (api::IsOptional<V>::value) {
    AddValueRules<typename V::value_type>(schema, path);
  } else if constexpr (api::IsVector<V>::value) {
    AddValueRules<typename V::value_type>(schema, path + "[]");
  } else if constexpr (std::is_same_v<V, api::ObjectMeta>) {
    // ObjectMeta's rules hold for the object's own metadata; the metadata
    // embedded in a ResourceClaimTemplate's spec merges atomically.
    if (path == "metadata") AddStructRules<V>(schema, path);
  } else if constexpr (api::Reflected<V> || api::HasKeptFields<V>) {
    AddStructRules<V>(schema, path);
  }
}

// The rules of T's fields, modelled and kept, and of the fields inside them.
template <typename T>
void AddStructRules(PatchSchema& schema, const std::string& path) {
  if constexpr (api::Reflected<T>) {
    api::ForEachField<T>([&](const auto& field) {
      using Shape = typename std::decay_t<decltype(field)>::ShapeType;
      const std::string child = JoinSchemaPath(path, field.name);
      AddRule(schema, child, field.list);
      AddValueRules<Shape>(schema, child);
    });
  }
  api::ForEachKeptField<T>([&](const auto& field) {
    using Value = typename std::decay_t<decltype(field)>::ValueType;
    const std::string child = JoinSchemaPath(path, field.name);
    AddRule(schema, child, field.list);
    AddValueRules<Value>(schema, child);
  });
}

}  // namespace

const PatchSchema& SchemaFor(const api::ResourceInfo& resource) {
  // By KindTraits::listing (= ResourceInfo::listing): the two families of a
  // shared kind name have different rules.
  static const auto* const schemas = [] {
    auto* by_listing = new std::vector<PatchSchema>(api::kKindCount);
    api::ForEachKind([&]<typename T>(const api::KindTraits& traits) {
      AddStructRules<T>(by_listing->at(static_cast<size_t>(traits.listing)),
                        "");
    });
    return by_listing;
  }();
  return schemas->at(static_cast<size_t>(resource.listing));
}

const PatchSchema& SchemaForKind(std::string_view kind) {
  static const PatchSchema* const common = [] {
    auto* schema = new PatchSchema;
    AddValueRules<api::ObjectMeta>(*schema, "metadata");
    return schema;
  }();
  const api::ResourceInfo* resource = api::FindResourceByKind(kind);
  return resource == nullptr ? *common : SchemaFor(*resource);
}

}  // namespace dralloc::patch
