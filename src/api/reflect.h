// Compile-time field tables: the single schema source for every API type.
//
// Each API struct T is described by a free function found by ADL,
//   constexpr auto FieldsOf(const T*) { return std::tuple{Field("name",
//   &T::name), ...}; }
// listing its JSON field names in wire order, and per field its protobuf
// number and list merge rule where it has them. The generic codec
// (struct_codec.h), protobuf bodies, patch merge rules and OpenAPI all read
// this table, so a type's fields are written down exactly once.
#ifndef DRALLOC_API_REFLECT_H_
#define DRALLOC_API_REFLECT_H_

#include <array>
#include <boost/container/flat_map.hpp>
#include <cstddef>
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

// How the items of a list field are identified when two versions of the
// list are merged: Go's `+listType`/`+listMapKey` markers (server-side apply)
// and `patchStrategy`/`patchMergeKey` tags (strategic merge patch).
enum class ListType : uint8_t {
  kUnstated,  // no marker: merges like kAtomic
  kAtomic,    // replaced whole
  kSet,       // a set of scalars
  kMap,       // items identified by the values of `keys`
};

struct ListRule {
  ListType type = ListType::kUnstated;
  // patchStrategy=merge: strategic merge patch merges the list by keys[0]
  // (or as a set) instead of replacing it.
  bool patch_merge = false;
  // +listMapKey values in declaration order; unused entries are empty.
  std::array<std::string_view, 4> keys{};

  constexpr size_t KeyCount() const {
    size_t count = 0;
    while (count < keys.size() && !keys[count].empty()) ++count;
    return count;
  }
};

// How a field's value is written in a Kubernetes protobuf body when its C++
// type alone does not say it (see apiserver/protobuf_body.h).
enum class ProtoType : uint8_t {
  kDefault,    // follows from the member type
  kTime,       // meta/v1 Time{seconds, nanos} (api::Time is its JSON text)
  kMicroTime,  // meta/v1 MicroTime: a Time written with microseconds
  kFieldsV1,   // meta/v1 FieldsV1{Raw: JSON text} (a RawJson value)
  kBytes,      // map<string, bytes> whose JSON values are base64 text
};

// The facts about one field beyond its JSON name and member, set with the
// chained setters below: `Field("containers", &T::containers, kAlways)
// .Proto(2).ListMap("name").PatchMerge()`. Everything is constexpr: the JSON
// codec reads only `name`, `member` and `flags`, so the rest costs it nothing.
template <typename Self>
struct FieldFacts {
  // Protobuf field number (0: the field is not read from protobuf bodies).
  uint32_t proto = 0;
  ProtoType proto_type = ProtoType::kDefault;
  ListRule list{};

  constexpr Self Proto(uint32_t number,
                       ProtoType type = ProtoType::kDefault) const {
    Self copy = self();
    copy.proto = number;
    copy.proto_type = type;
    return copy;
  }
  template <typename... Keys>
  constexpr Self ListMap(Keys... keys) const {
    static_assert(sizeof...(Keys) >= 1 && sizeof...(Keys) <= 4);
    Self copy = self();
    copy.list.type = ListType::kMap;
    copy.list.keys = {std::string_view(keys)...};
    return copy;
  }
  constexpr Self ListAtomic() const {
    Self copy = self();
    copy.list.type = ListType::kAtomic;
    return copy;
  }
  constexpr Self ListSet() const {
    Self copy = self();
    copy.list.type = ListType::kSet;
    return copy;
  }
  constexpr Self PatchMerge() const {
    Self copy = self();
    copy.list.patch_merge = true;
    return copy;
  }

 private:
  constexpr const Self& self() const { return static_cast<const Self&>(*this); }
};

template <typename Struct, typename Member, typename Shape = Member>
struct FieldInfo : FieldFacts<FieldInfo<Struct, Member, Shape>> {
  using StructType = Struct;
  using MemberType = Member;
  // The shape of the value beyond what the member type says: for a member
  // kept as RawJson, a struct stating the facts of the fields inside it.
  using ShapeType = Shape;
  std::string_view name;
  Member Struct::*member = nullptr;
  uint32_t flags = kOmitEmpty;

  // The same field with its value shaped as `NewShape`
  // (`std::vector<ManagedFieldsEntry>` for a std::vector<RawJson>).
  template <typename NewShape>
  constexpr FieldInfo<Struct, Member, NewShape> ShapedAs() const {
    FieldInfo<Struct, Member, NewShape> shaped;
    shaped.proto = this->proto;
    shaped.proto_type = this->proto_type;
    shaped.list = this->list;
    shaped.name = name;
    shaped.member = member;
    shaped.flags = flags;
    return shaped;
  }
};

template <typename Struct, typename Member>
constexpr FieldInfo<Struct, Member> Field(std::string_view name,
                                          Member Struct::*member,
                                          uint32_t flags = kOmitEmpty) {
  FieldInfo<Struct, Member> field;
  field.name = name;
  field.member = member;
  field.flags = flags;
  return field;
}

// A field the struct does not model but keeps verbatim in its
// `unknown_fields` (a Pod's volumes, a Node's addresses), or a field of a
// shape-only struct (one that describes RawJson values): the codec never
// sees it, but protobuf bodies and merge rules need its facts. `Value` is
// the shape of its JSON value, for the facts of the fields inside it
// (`std::vector<Container>` for ephemeralContainers; `RawJson` when nothing
// inside matters).
template <typename Value>
struct KeptFieldInfo : FieldFacts<KeptFieldInfo<Value>> {
  using ValueType = Value;
  std::string_view name;
  uint32_t flags = kOmitEmpty;  // as for Field: whether Go omits it empty
};

template <typename Value>
constexpr KeptFieldInfo<Value> Kept(std::string_view name,
                                    uint32_t flags = kOmitEmpty) {
  KeptFieldInfo<Value> field;
  field.name = name;
  field.flags = flags;
  return field;
}

// True for types that have a field table.
template <typename T>
concept Reflected = requires(const T* t) {
  FieldsOf(t);
};

// T's field table, built once at compile time: a constexpr variable forces
// constant evaluation, where a call to FieldsOf in a hot loop may be left to
// run time (and rebuild the table on every encode) once the table is large.
template <Reflected T>
inline constexpr auto kFieldTable = FieldsOf(static_cast<const T*>(nullptr));

template <Reflected T>
constexpr const auto& FieldTable() {
  return kFieldTable<T>;
}

// Calls fn(field_info) for every field of T in order.
template <Reflected T, typename Fn>
constexpr void ForEachField(Fn&& fn) {
  std::apply([&](const auto&... field) { (fn(field), ...); }, kFieldTable<T>);
}

// A struct that keeps unmodelled fields may state their facts with
//   constexpr auto KeptFieldsOf(const T*) { return std::tuple{Kept<V>(...)}; }
template <typename T>
concept HasKeptFields = requires(const T* t) {
  KeptFieldsOf(t);
};

template <HasKeptFields T>
inline constexpr auto kKeptFieldTable =
    KeptFieldsOf(static_cast<const T*>(nullptr));

// Calls fn(kept_field_info) for every kept field T states (none by default).
template <typename T, typename Fn>
constexpr void ForEachKeptField(Fn&& fn) {
  if constexpr (HasKeptFields<T>) {
    std::apply([&](const auto&... field) { (fn(field), ...); },
               kKeptFieldTable<T>);
  }
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
