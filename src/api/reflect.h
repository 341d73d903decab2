// Compile-time field tables: the single schema source for every API type.
//
// Each API struct T is described by a free function found by ADL,
//   constexpr auto FieldsOf(const T*) { return std::tuple{Field("name",
//   &T::name), ...}; }
// listing its JSON field names in wire order. The generic codec
// (struct_codec.h) decodes and encodes any such struct from this table, so a
// type's fields are written down exactly once.
#ifndef DRALLOC_API_REFLECT_H_
#define DRALLOC_API_REFLECT_H_

#include <boost/container/flat_map.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace dralloc::api {

// Encoding behaviour of a field (decoding is the same for all).
enum FieldFlags : uint32_t {
  // Default: like Go's `omitempty`; empty strings, zero numbers, false,
  // empty lists and maps and unset optionals are left out.
  kOmitEmpty = 0,
  // Always written, even when empty (Go fields without `omitempty`).
  kAlways = 1u << 0,
};

template <typename Struct, typename Member>
struct FieldInfo {
  using StructType = Struct;
  using MemberType = Member;
  std::string_view name;
  Member Struct::*member;
  uint32_t flags;
};

template <typename Struct, typename Member>
constexpr FieldInfo<Struct, Member> Field(std::string_view name,
                                          Member Struct::*member,
                                          uint32_t flags = kOmitEmpty) {
  return {name, member, flags};
}

// True for types that have a field table.
template <typename T>
concept Reflected = requires(const T* t) {
  FieldsOf(t);
};

template <Reflected T>
constexpr auto FieldTable() {
  return FieldsOf(static_cast<const T*>(nullptr));
}

// Calls fn(field_info) for every field of T in order.
template <Reflected T, typename Fn>
constexpr void ForEachField(Fn&& fn) {
  std::apply([&](const auto&... field) { (fn(field), ...); }, FieldTable<T>());
}

// A sorted map stored in one contiguous array: used for the per-device maps
// (attributes, capacity) that are decoded and walked by the thousand, where
// one allocation per map beats one per entry. Iterates like std::map.
template <typename V>
using FlatMap = boost::container::flat_map<std::string, V>;

// Raw JSON kept verbatim (opaque driver parameters, managedFields, unknown
// fields of core objects that we pass through). Holds compact JSON text.
struct RawJson {
  std::string json;
  // True when `json` is byte for byte what nlohmann::json::dump() makes of
  // its value (decoded raw JSON is): the text encoder then copies it as is.
  bool canonical = false;
  bool empty() const { return json.empty(); }
  // Semantic equality: the same JSON value, whatever the spacing.
  friend bool operator==(const RawJson& a, const RawJson& b);
};

// Fields of an object that the schema does not model, kept in order so that
// objects we only partly understand (Pods, Nodes) round-trip losslessly.
// A struct opts in by having a member `UnknownFields unknown_fields;`.
using UnknownFields = std::vector<std::pair<std::string, RawJson>>;

template <typename T>
concept KeepsUnknownFields = requires(T t) {
  { t.unknown_fields } -> std::same_as<UnknownFields&>;
};

// An empty JSON object `{}` (e.g. NullableDeviceAttribute's `null: {}`).
struct EmptyObject {
  friend bool operator==(const EmptyObject&, const EmptyObject&) = default;
};
constexpr auto FieldsOf(const EmptyObject*) { return std::tuple<>(); }

}  // namespace dralloc::api

#endif  // DRALLOC_API_REFLECT_H_
