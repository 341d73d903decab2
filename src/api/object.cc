#include "api/object.h"

#include "api/kind_traits.h"

namespace dralloc::api {
namespace {

template <typename T>
std::pair<Object, Object> DifferingMembersOf(const T& before, const T& after) {
  T kept_before;
  T kept_after;
  ForEachField<T>([&](const auto& field) {
    const auto member = field.member;
    const bool identity = field.name == "apiVersion" || field.name == "kind" ||
                          field.name == "metadata";
    if (identity || !(before.*member == after.*member)) {
      kept_before.*member = before.*member;
      kept_after.*member = after.*member;
    }
  });
  if constexpr (KeepsUnknownFields<T>) {
    if (before.unknown_fields != after.unknown_fields) {
      kept_before.unknown_fields = before.unknown_fields;
      kept_after.unknown_fields = after.unknown_fields;
    }
  }
  return {Object(std::move(kept_before)), Object(std::move(kept_after))};
}

}  // namespace

std::optional<std::pair<Object, Object>> DifferingMembers(const Object& before,
                                                          const Object& after) {
  if (before.index() != after.index()) return std::nullopt;
  return std::visit(
      [&](const auto& typed_before) {
        using T = std::decay_t<decltype(typed_before)>;
        return DifferingMembersOf(typed_before, std::get<T>(after));
      },
      before);
}

std::string_view KindOf(const Object& object) {
  return std::visit(
      [](const auto& o) { return KindName<std::decay_t<decltype(o)>>(); },
      object);
}

const ObjectMeta& MetaOf(const Object& object) {
  return std::visit(
      [](const auto& o) -> const ObjectMeta& { return o.metadata; }, object);
}

ObjectMeta& MetaOf(Object& object) {
  return std::visit([](auto& o) -> ObjectMeta& { return o.metadata; }, object);
}

std::string DisplayName(const Object& object) {
  const ObjectMeta& meta = MetaOf(object);
  std::string out(KindOf(object));
  const std::string& name = meta.name.empty() ? meta.generate_name : meta.name;
  if (name.empty()) return out;
  out += ' ';
  if (!meta.namespace_.empty()) {
    out += meta.namespace_;
    out += '/';
  }
  out += name;
  return out;
}

}  // namespace dralloc::api
