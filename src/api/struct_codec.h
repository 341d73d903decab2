// Generic decoding (simdjson DOM → struct) and encoding (struct → JSON) of
// every type that has a field table (reflect.h).
//
// Decoding follows Kubernetes' JSON rules: `null` leaves a field unset, a
// field of the wrong JSON type is an error, and in strict mode unknown and
// duplicate fields are errors (otherwise warnings, and the value is dropped,
// or kept in `unknown_fields` where the type has one). Errors carry the
// field path and never abort the walk, so one pass reports every problem.
#ifndef DRALLOC_API_STRUCT_CODEC_H_
#define DRALLOC_API_STRUCT_CODEC_H_

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "api/field_error.h"
#include "api/field_path.h"
#include "api/reflect.h"
#include "common/quantity.h"
#include "common/text_escape.h"

namespace dralloc::api {

using Json = nlohmann::ordered_json;
using JsonElement = simdjson::dom::element;

struct DecodeOptions {
  // Unknown and duplicate fields are errors (true) or warnings (false).
  bool strict = true;
};

// Collects what one decode finds.
class DecodeContext {
 public:
  explicit DecodeContext(DecodeOptions options) : options_(options) {}

  bool strict() const { return options_.strict; }
  void TypeMismatch(const FieldPath& path, std::string_view expected,
                    JsonElement got);
  void BadValue(const FieldPath& path, JsonElement got, std::string detail);
  void UnknownField(const FieldPath& path);
  void DuplicateField(const FieldPath& path);

  ErrorList& errors() { return errors_; }
  ErrorList& warnings() { return warnings_; }

 private:
  DecodeOptions options_;
  ErrorList errors_;
  ErrorList warnings_;
};

// Short description of a JSON value for messages: `string "abc"`, `number 5`.
std::string DescribeJson(JsonElement e);

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};
template <typename T>
struct IsStringMap : std::false_type {};
template <typename T>
struct IsStringMap<std::map<std::string, T>> : std::true_type {};
template <typename T>
struct IsStringMap<FlatMap<T>> : std::true_type {};
template <typename T>
struct IsFlatMap : std::false_type {};
template <typename T>
struct IsFlatMap<FlatMap<T>> : std::true_type {};

template <typename T>
void DecodeValue(JsonElement e, T& out, const FieldPath& path,
                 DecodeContext& ctx);

namespace codec_internal {

// `e` kept verbatim, in the canonical compact form (RawJson::canonical).
void DecodeRaw(JsonElement e, RawJson& out);

// Sets the field of `out` named `key`; false when T has no such field.
template <Reflected T>
bool DecodeNamedField(std::string_view key, JsonElement value, T& out,
                      const FieldPath& path, DecodeContext& ctx,
                      uint64_t& seen) {
  bool found = false;
  size_t index = 0;
  ForEachField<T>([&](const auto& field) {
    if (!found && field.name == key) {
      found = true;
      const FieldPath child = path.Child(field.name);
      if (index < 64 && (seen & (uint64_t{1} << index)) != 0) {
        ctx.DuplicateField(child);
        if (ctx.strict()) return;
      }
      if (index < 64) seen |= uint64_t{1} << index;
      DecodeValue(value, out.*(field.member), child, ctx);
    }
    ++index;
  });
  return found;
}

template <Reflected T>
void DecodeStruct(JsonElement e, T& out, const FieldPath& path,
                  DecodeContext& ctx) {
  simdjson::dom::object object;
  if (e.get_object().get(object) != simdjson::SUCCESS) {
    ctx.TypeMismatch(path, "object", e);
    return;
  }
  uint64_t seen = 0;
  for (auto [key, value] : object) {
    if (DecodeNamedField(key, value, out, path, ctx, seen)) continue;
    if constexpr (KeepsUnknownFields<T>) {
      RawJson raw;
      codec_internal::DecodeRaw(value, raw);
      out.unknown_fields.emplace_back(std::string(key), std::move(raw));
    } else {
      ctx.UnknownField(path.Child(key));
    }
  }
}

void DecodeString(JsonElement e, std::string& out, const FieldPath& path,
                  DecodeContext& ctx);
void DecodeBool(JsonElement e, bool& out, const FieldPath& path,
                DecodeContext& ctx);
void DecodeInt64(JsonElement e, int64_t& out, const FieldPath& path,
                 DecodeContext& ctx);
void DecodeInt32(JsonElement e, int32_t& out, const FieldPath& path,
                 DecodeContext& ctx);
void DecodeQuantity(JsonElement e, Quantity& out, const FieldPath& path,
                    DecodeContext& ctx);
void DecodeRaw(JsonElement e, RawJson& out);

// Decodes an object into a FlatMap in O(n log n) whatever the key order:
// entries are appended in input order, then sorted once. Duplicate keys are
// reported like for std::map (strict: the first wins; otherwise the last).
template <typename V>
void DecodeFlatMap(JsonElement e, FlatMap<V>& out, const FieldPath& path,
                   DecodeContext& ctx) {
  simdjson::dom::object object;
  if (e.get_object().get(object) != simdjson::SUCCESS) {
    ctx.TypeMismatch(path, "object", e);
    return;
  }
  auto entries = out.extract_sequence();
  entries.clear();
  entries.reserve(object.size());
  bool sorted = true;
  for (auto [key, value] : object) {
    if (!entries.empty() && !(entries.back().first < key)) sorted = false;
    auto& entry = entries.emplace_back(std::piecewise_construct,
                                       std::forward_as_tuple(key),
                                       std::forward_as_tuple());
    DecodeValue(value, entry.second, path.Key(entry.first), ctx);
  }
  if (!sorted) {
    std::stable_sort(
        entries.begin(), entries.end(),
        [](const auto& a, const auto& b) { return a.first < b.first; });
    auto keep = entries.begin();
    for (auto it = entries.begin(); it != entries.end(); ++it) {
      if (it != entries.begin() && it->first == keep->first) {
        ctx.DuplicateField(path.Key(it->first));
        if (!ctx.strict()) *keep = std::move(*it);
        continue;
      }
      if (it != entries.begin()) ++keep;
      if (keep != it) *keep = std::move(*it);
    }
    if (!entries.empty()) entries.erase(keep + 1, entries.end());
  }
  out.adopt_sequence(boost::container::ordered_unique_range,
                     std::move(entries));
}

}  // namespace codec_internal

template <typename T>
void DecodeValue(JsonElement e, T& out, const FieldPath& path,
                 DecodeContext& ctx) {
  if (e.is_null()) {
    if constexpr (std::is_same_v<T, RawJson>) {
      out.json.clear();  // Like RawExtension: null is "no value".
    } else if constexpr (requires { DecodeNullInto(out); }) {
      DecodeNullInto(out);  // Types where null has a meaning of its own.
    }
    return;  // Like Go: null leaves the field at its zero value.
  }
  if constexpr (std::is_same_v<T, std::string>) {
    codec_internal::DecodeString(e, out, path, ctx);
  } else if constexpr (std::is_same_v<T, bool>) {
    codec_internal::DecodeBool(e, out, path, ctx);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    codec_internal::DecodeInt64(e, out, path, ctx);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    codec_internal::DecodeInt32(e, out, path, ctx);
  } else if constexpr (std::is_same_v<T, Quantity>) {
    codec_internal::DecodeQuantity(e, out, path, ctx);
  } else if constexpr (std::is_same_v<T, RawJson>) {
    codec_internal::DecodeRaw(e, out);
  } else if constexpr (IsOptional<T>::value) {
    DecodeValue(e, out.emplace(), path, ctx);
  } else if constexpr (IsVector<T>::value) {
    simdjson::dom::array array;
    if (e.get_array().get(array) != simdjson::SUCCESS) {
      ctx.TypeMismatch(path, "array", e);
      return;
    }
    out.clear();
    out.reserve(array.size());
    int64_t i = 0;
    for (JsonElement item : array) {
      if constexpr (std::is_same_v<T, std::vector<bool>>) {
        bool value = false;  // vector<bool> has no addressable elements.
        DecodeValue(item, value, path.Index(i), ctx);
        out.push_back(value);
      } else {
        DecodeValue(item, out.emplace_back(), path.Index(i), ctx);
      }
      ++i;
    }
  } else if constexpr (IsFlatMap<T>::value) {
    codec_internal::DecodeFlatMap(e, out, path, ctx);
  } else if constexpr (IsStringMap<T>::value) {
    simdjson::dom::object object;
    if (e.get_object().get(object) != simdjson::SUCCESS) {
      ctx.TypeMismatch(path, "object", e);
      return;
    }
    for (auto [key, value] : object) {
      // Go writes map keys sorted, so appending at the end is the common case.
      const size_t size_before = out.size();
      auto it =
          out.emplace_hint(out.end(), std::piecewise_construct,
                           std::forward_as_tuple(key), std::forward_as_tuple());
      const bool inserted = out.size() != size_before;
      const FieldPath child = path.Key(it->first);
      if (!inserted) {
        ctx.DuplicateField(child);
        if (ctx.strict()) continue;
        it->second = {};
      }
      DecodeValue(value, it->second, child, ctx);
    }
  } else {
    static_assert(Reflected<T>, "type has no field table (FieldsOf)");
    codec_internal::DecodeStruct(e, out, path, ctx);
  }
}

// Decodes a whole object; the value only if that added no errors to `ctx`.
template <typename T>
std::optional<T> DecodeRoot(JsonElement element, DecodeContext& ctx) {
  std::optional<T> value(std::in_place);
  const size_t errors_before = ctx.errors().size();
  DecodeValue(element, *value, FieldPath(), ctx);
  if (ctx.errors().size() != errors_before) value.reset();
  return value;
}

// ---- Encoding ----

template <typename T>
bool IsEmptyValue(const T& v) {
  if constexpr (std::is_same_v<T, std::string> || IsVector<T>::value ||
                IsStringMap<T>::value) {
    return v.empty();
  } else if constexpr (std::is_same_v<T, bool>) {
    return !v;
  } else if constexpr (std::is_integral_v<T>) {
    return v == 0;
  } else if constexpr (IsOptional<T>::value) {
    return !v.has_value();
  } else if constexpr (std::is_same_v<T, RawJson>) {
    return v.empty();
  } else {
    return false;  // Structs and quantities are never omitted (as in Go).
  }
}

template <typename T>
Json EncodeValue(const T& v);

namespace codec_internal {
Json EncodeRaw(const RawJson& raw);
}  // namespace codec_internal

// Returns `body` with apiVersion and kind set and placed first, the other
// members following in order (the shape kubectl prints).
Json WithTypeHeader(Json body, std::string_view api_version,
                    std::string_view kind);

template <typename T>
Json EncodeValue(const T& v) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool> ||
                std::is_integral_v<T>) {
    return Json(v);
  } else if constexpr (std::is_same_v<T, Quantity>) {
    return Json(v.ToString());
  } else if constexpr (std::is_same_v<T, RawJson>) {
    return codec_internal::EncodeRaw(v);
  } else if constexpr (IsOptional<T>::value) {
    return v.has_value() ? EncodeValue(*v) : Json(nullptr);
  } else if constexpr (IsVector<T>::value) {
    Json out = Json::array();
    for (const auto& item : v) out.push_back(EncodeValue(item));
    return out;
  } else if constexpr (IsStringMap<T>::value) {
    Json out = Json::object();
    for (const auto& [key, value] : v) out[key] = EncodeValue(value);
    return out;
  } else {
    static_assert(Reflected<T>, "type has no field table (FieldsOf)");
    Json out = Json::object();
    ForEachField<T>([&](const auto& field) {
      const auto& member = v.*(field.member);
      if ((field.flags & kAlways) == 0 && IsEmptyValue(member)) return;
      out[std::string(field.name)] = EncodeValue(member);
    });
    if constexpr (KeepsUnknownFields<T>) {
      for (const auto& [key, raw] : v.unknown_fields)
        out[key] = codec_internal::EncodeRaw(raw);
    }
    return out;
  }
}

// ---- Encoding straight to text ----
//
// AppendJson writes exactly the compact text that EncodeValue(v).dump()
// would, without building a JSON tree (the tree's ordered map makes each
// member insertion a linear search): the hot path of every stored write.

namespace codec_internal {
void AppendRaw(const RawJson& raw, std::string& out);
void AppendInteger(int64_t value, std::string& out);
void AppendUnsigned(uint64_t value, std::string& out);
}  // namespace codec_internal

template <typename T>
void AppendJson(const T& v, std::string& out);

// The members of struct `v`, each preceded by a comma unless `first`;
// `skip_type_meta` leaves out apiVersion and kind (written by the caller).
template <typename T>
void AppendJsonMembers(const T& v, std::string& out, bool& first,
                       bool skip_type_meta) {
  static_assert(Reflected<T>, "type has no field table (FieldsOf)");
  const auto member_key = [&](std::string_view key) {
    if (!first) out += ',';
    first = false;
    AppendJsonString(out, key);
    out += ':';
  };
  ForEachField<T>([&](const auto& field) {
    const auto& member = v.*(field.member);
    if ((field.flags & kAlways) == 0 && IsEmptyValue(member)) return;
    if (skip_type_meta &&
        (field.name == "apiVersion" || field.name == "kind")) {
      return;
    }
    member_key(field.name);
    AppendJson(member, out);
  });
  if constexpr (KeepsUnknownFields<T>) {
    for (const auto& [key, raw] : v.unknown_fields) {
      if (skip_type_meta && (key == "apiVersion" || key == "kind")) continue;
      member_key(key);
      codec_internal::AppendRaw(raw, out);
    }
  }
}

template <typename T>
void AppendJson(const T& v, std::string& out) {
  if constexpr (std::is_same_v<T, std::string>) {
    AppendJsonString(out, v);
  } else if constexpr (std::is_same_v<T, bool>) {
    out += v ? "true" : "false";
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    codec_internal::AppendInteger(v, out);
  } else if constexpr (std::is_integral_v<T>) {
    codec_internal::AppendUnsigned(v, out);
  } else if constexpr (std::is_same_v<T, Quantity>) {
    AppendJsonString(out, v.ToString());
  } else if constexpr (std::is_same_v<T, RawJson>) {
    codec_internal::AppendRaw(v, out);
  } else if constexpr (IsOptional<T>::value) {
    if (v.has_value()) {
      AppendJson(*v, out);
    } else {
      out += "null";
    }
  } else if constexpr (IsVector<T>::value) {
    out += '[';
    bool first = true;
    for (const auto& item : v) {
      if (!first) out += ',';
      first = false;
      AppendJson(item, out);
    }
    out += ']';
  } else if constexpr (IsStringMap<T>::value) {
    out += '{';
    bool first = true;
    for (const auto& [key, value] : v) {
      if (!first) out += ',';
      first = false;
      AppendJsonString(out, key);
      out += ':';
      AppendJson(value, out);
    }
    out += '}';
  } else {
    out += '{';
    bool first = true;
    AppendJsonMembers(v, out, first, /*skip_type_meta=*/false);
    out += '}';
  }
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_STRUCT_CODEC_H_
