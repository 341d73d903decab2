#include "apiserver/protobuf_body.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <array>
#include <cctype>
#include <chrono>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "api/kind_traits.h"
#include "api/struct_codec.h"
#include "common/base64.h"
#include "common/quantity.h"

namespace dralloc::apiserver {
namespace {

using Json = nlohmann::ordered_json;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

// ---------------------------------------------------------------------------
// Schema: for each message, its field numbers with the JSON name and how the
// value is encoded. The messages of API objects are generated from the API
// types' field tables (api/reflect.h: `Field(...).Proto(n)`, and `Kept` for
// fields kept verbatim); the wire format's own building blocks and
// DeleteOptions are listed here. The decoder skips every other field.

enum class FieldKind {
  kString,       // string
  kBool,         // varint
  kInt32,        // varint, two's complement
  kInt64,        // varint, two's complement
  kMessage,      // nested message → JSON object
  kTime,         // meta/v1 Time{seconds=1, nanos=2} → RFC 3339, seconds
  kMicroTime,    // meta/v1 MicroTime{seconds=1, nanos=2} → RFC 3339, µs
  kQuantity,     // resource.Quantity{string=1} → its string
  kFieldsV1,     // meta/v1 FieldsV1{Raw=1 bytes holding JSON} → that JSON
  kStringMap,    // map<string, string>: repeated {key=1, value=2}
  kQuantityMap,  // map<string, Quantity>: repeated {key=1, value=2}
  kBytesMap      // map<string, bytes> → values as base64 text (Secret.data)
};

enum class Cardinality {
  // A Go value field tagged `omitempty`: absent from JSON when empty, zero
  // or false, even though gogo-protobuf writes it on the wire.
  kOmitEmpty,
  // A Go pointer field, or a value field without `omitempty`: present in
  // JSON whenever it is present on the wire.
  kKeepEmpty,
  // A repeated field → JSON array (absent when it has no elements).
  kRepeated,
};

struct MessageSchema;

struct FieldSchema {
  uint32_t number = 0;
  std::string_view json_name;
  FieldKind kind = FieldKind::kString;
  Cardinality cardinality = Cardinality::kOmitEmpty;
  const MessageSchema* message = nullptr;  // for kMessage
};

struct MessageSchema {
  // The upstream message name, for error messages (computed only then).
  std::string_view (*name)();
  std::span<const FieldSchema> fields;
};

constexpr FieldSchema Kept(uint32_t number, std::string_view json_name,
                           FieldKind kind = FieldKind::kString) {
  return {number, json_name, kind, Cardinality::kKeepEmpty, nullptr};
}
constexpr FieldSchema Repeated(uint32_t number, std::string_view json_name,
                               FieldKind kind = FieldKind::kString) {
  return {number, json_name, kind, Cardinality::kRepeated, nullptr};
}
constexpr FieldSchema Nested(uint32_t number, std::string_view json_name,
                             const MessageSchema& message) {
  return {number, json_name, FieldKind::kMessage, Cardinality::kKeepEmpty,
          &message};
}

// Building blocks of the wire format itself.
constexpr FieldSchema kTimestampFields[] = {
    Kept(1, "seconds", FieldKind::kInt64), Kept(2, "nanos", FieldKind::kInt32)};
constexpr MessageSchema kTimestamp{[] { return std::string_view("Time"); },
                                   kTimestampFields};

constexpr FieldSchema kQuantityFields[] = {Kept(1, "string")};
constexpr MessageSchema kQuantity{[] { return std::string_view("Quantity"); },
                                  kQuantityFields};

constexpr FieldSchema kFieldsV1Fields[] = {Kept(1, "Raw")};
constexpr MessageSchema kFieldsV1{[] { return std::string_view("FieldsV1"); },
                                  kFieldsV1Fields};

constexpr std::string_view MapEntryName() { return "map entry"; }

constexpr FieldSchema kStringMapEntryFields[] = {Kept(1, "key"),
                                                 Kept(2, "value")};
constexpr MessageSchema kStringMapEntry{MapEntryName, kStringMapEntryFields};

constexpr FieldSchema kQuantityMapEntryFields[] = {
    Kept(1, "key"), Kept(2, "value", FieldKind::kQuantity)};
constexpr MessageSchema kQuantityMapEntry{MapEntryName,
                                          kQuantityMapEntryFields};

// runtime.TypeMeta inside the runtime.Unknown envelope.
constexpr FieldSchema kEnvelopeTypeMetaFields[] = {Kept(1, "apiVersion"),
                                                   Kept(2, "kind")};
constexpr MessageSchema kEnvelopeTypeMeta{
    [] { return std::string_view("TypeMeta"); }, kEnvelopeTypeMetaFields};

// runtime.Unknown: `raw` holds the object's own encoding.
constexpr FieldSchema kEnvelopeFields[] = {
    Nested(1, "typeMeta", kEnvelopeTypeMeta), Kept(2, "raw"),
    Kept(3, "contentEncoding"), Kept(4, "contentType")};
constexpr MessageSchema kEnvelope{[] { return std::string_view("Unknown"); },
                                  kEnvelopeFields};

// meta/v1 DeleteOptions, the body of a DELETE from a typed client.
constexpr FieldSchema kPreconditionsFields[] = {Kept(1, "uid"),
                                                Kept(2, "resourceVersion")};
constexpr MessageSchema kPreconditions{
    [] { return std::string_view("Preconditions"); }, kPreconditionsFields};

constexpr FieldSchema kDeleteOptionsFields[] = {
    Kept(1, "gracePeriodSeconds", FieldKind::kInt64),
    Nested(2, "preconditions", kPreconditions),
    Kept(3, "orphanDependents", FieldKind::kBool), Kept(4, "propagationPolicy"),
    Repeated(5, "dryRun")};
constexpr MessageSchema kDeleteOptions{
    [] { return std::string_view("DeleteOptions"); }, kDeleteOptionsFields};

// The messages of API types, from their field tables.

using api::IsOptional;
using api::IsVector;

// True for types whose values are protobuf messages of their own.
template <typename T>
concept ProtoMessage = api::Reflected<T> || api::HasKeptFields<T>;

// The upstream message name of T: what ProtoMessageName(const T*) states
// where a type differs from its message, else T's unqualified name.
template <ProtoMessage T>
std::string_view MessageName() {
  if constexpr (requires {
                  ProtoMessageName(static_cast<const T*>(nullptr));
                }) {
    return ProtoMessageName(static_cast<const T*>(nullptr));
  } else {
    // "... MessageName() [with T = dralloc::api::PodSpec; ...]" (g++) or
    // "... MessageName() [T = dralloc::api::PodSpec]" (clang).
    static const std::string name = [](std::string_view pretty) {
      pretty.remove_prefix(pretty.find("T = ") + 4);
      pretty = pretty.substr(0, pretty.find_first_of(";]"));
      return std::string(pretty.substr(pretty.rfind("::") + 2));
    }(__PRETTY_FUNCTION__);
    return name;
  }
}

template <ProtoMessage T>
struct Message;

// The schema of one field whose value has shape V.
template <typename V>
constexpr FieldSchema FieldOf(std::string_view name, uint32_t number,
                              api::ProtoType type, uint32_t flags) {
  if constexpr (IsVector<V>::value) {
    FieldSchema field =
        FieldOf<typename V::value_type>(name, number, type, flags);
    field.cardinality = Cardinality::kRepeated;
    return field;
  } else if constexpr (IsOptional<V>::value) {
    // A Go pointer: present in JSON whenever it is on the wire.
    return FieldOf<typename V::value_type>(name, number, type,
                                           flags | api::kAlways);
  } else {
    FieldSchema field{number, name, FieldKind::kString,
                      (flags & api::kAlways) != 0 ? Cardinality::kKeepEmpty
                                                  : Cardinality::kOmitEmpty,
                      nullptr};
    if (type == api::ProtoType::kBytes) {
      field.kind = FieldKind::kBytesMap;
      field.cardinality = Cardinality::kKeepEmpty;
      return field;
    }
    if (type != api::ProtoType::kDefault) {
      field.kind = type == api::ProtoType::kTime        ? FieldKind::kTime
                   : type == api::ProtoType::kMicroTime ? FieldKind::kMicroTime
                                                        : FieldKind::kFieldsV1;
      field.cardinality = Cardinality::kKeepEmpty;
      return field;
    }
    if constexpr (std::is_same_v<V, bool>) {
      field.kind = FieldKind::kBool;
    } else if constexpr (std::is_same_v<V, int32_t>) {
      field.kind = FieldKind::kInt32;
    } else if constexpr (std::is_same_v<V, int64_t>) {
      field.kind = FieldKind::kInt64;
    } else if constexpr (std::is_same_v<V, std::string> ||
                         std::is_same_v<V, api::RawJson>) {
      // RawJson only with a ProtoType, handled above.
    } else if constexpr (std::is_same_v<V,
                                        std::map<std::string, std::string>>) {
      field.kind = FieldKind::kStringMap;
      field.cardinality = Cardinality::kKeepEmpty;
    } else if constexpr (std::is_same_v<V, std::map<std::string, Quantity>>) {
      field.kind = FieldKind::kQuantityMap;
      field.cardinality = Cardinality::kKeepEmpty;
    } else if constexpr (std::is_same_v<V, Quantity>) {
      field.kind = FieldKind::kQuantity;
    } else {
      static_assert(ProtoMessage<V>, "no protobuf encoding for this type");
      field.kind = FieldKind::kMessage;
      field.cardinality = Cardinality::kKeepEmpty;
      field.message = &Message<V>::schema;
    }
    return field;
  }
}

// Calls fn(field_info, shape tag) for every field of T with a proto number.
template <ProtoMessage T, typename Fn>
constexpr void ForEachProtoField(Fn&& fn) {
  if constexpr (api::Reflected<T>) {
    api::ForEachField<T>([&](const auto& field) {
      using Shape = typename std::decay_t<decltype(field)>::ShapeType;
      if (field.proto != 0) fn(field, static_cast<const Shape*>(nullptr));
    });
  }
  api::ForEachKeptField<T>([&](const auto& field) {
    using Value = typename std::decay_t<decltype(field)>::ValueType;
    if (field.proto != 0) fn(field, static_cast<const Value*>(nullptr));
  });
}

template <ProtoMessage T>
constexpr size_t ProtoFieldCount() {
  size_t count = 0;
  ForEachProtoField<T>([&](const auto&, const auto*) { ++count; });
  return count;
}

template <ProtoMessage T>
constexpr auto ProtoFields() {
  std::array<FieldSchema, ProtoFieldCount<T>()> fields{};
  size_t next = 0;
  ForEachProtoField<T>([&]<typename V>(const auto& field, const V*) {
    fields[next++] =
        FieldOf<V>(field.name, field.proto, field.proto_type, field.flags);
  });
  return fields;
}

template <ProtoMessage T>
struct Message {
  static constexpr auto fields = ProtoFields<T>();
  static constexpr MessageSchema schema{MessageName<T>, fields};
};

// authentication.k8s.io/v1 TokenRequest, the body of `kubectl create token`
// (the serviceaccounts/token subresource; serviceaccount/).
constexpr FieldSchema kBoundObjectReferenceFields[] = {
    Kept(1, "kind"), Kept(2, "apiVersion"), Kept(3, "name"), Kept(4, "uid")};
constexpr MessageSchema kBoundObjectReference{
    [] { return std::string_view("BoundObjectReference"); },
    kBoundObjectReferenceFields};
constexpr FieldSchema kTokenRequestSpecFields[] = {
    Repeated(1, "audiences"),
    Nested(3, "boundObjectRef", kBoundObjectReference),
    Kept(4, "expirationSeconds", FieldKind::kInt64)};
constexpr MessageSchema kTokenRequestSpec{
    [] { return std::string_view("TokenRequestSpec"); },
    kTokenRequestSpecFields};
constexpr FieldSchema kTokenRequestFields[] = {
    Nested(1, "metadata", Message<api::ObjectMeta>::schema),
    Nested(2, "spec", kTokenRequestSpec)};
constexpr MessageSchema kTokenRequest{
    [] { return std::string_view("TokenRequest"); }, kTokenRequestFields};

// authorization.k8s.io/v1 access reviews (`kubectl auth can-i`; their
// answers are computed by AccessReviews, never stored).
constexpr FieldSchema kResourceAttributesFields[] = {
    Kept(1, "namespace"), Kept(2, "verb"),     Kept(3, "group"),
    Kept(4, "version"),   Kept(5, "resource"), Kept(6, "subresource"),
    Kept(7, "name")};
constexpr MessageSchema kResourceAttributes{
    [] { return std::string_view("ResourceAttributes"); },
    kResourceAttributesFields};
constexpr FieldSchema kNonResourceAttributesFields[] = {Kept(1, "path"),
                                                        Kept(2, "verb")};
constexpr MessageSchema kNonResourceAttributes{
    [] { return std::string_view("NonResourceAttributes"); },
    kNonResourceAttributesFields};
constexpr FieldSchema kAccessReviewSpecFields[] = {
    Nested(1, "resourceAttributes", kResourceAttributes),
    Nested(2, "nonResourceAttributes", kNonResourceAttributes), Kept(3, "user"),
    Repeated(4, "groups"), Kept(6, "uid")};
constexpr MessageSchema kAccessReviewSpec{
    [] { return std::string_view("SubjectAccessReviewSpec"); },
    kAccessReviewSpecFields};
constexpr FieldSchema kAccessReviewFields[] = {
    Nested(1, "metadata", Message<api::ObjectMeta>::schema),
    Nested(2, "spec", kAccessReviewSpec)};
constexpr MessageSchema kAccessReview{
    [] { return std::string_view("SubjectAccessReview"); },
    kAccessReviewFields};
constexpr FieldSchema kRulesReviewSpecFields[] = {Kept(1, "namespace")};
constexpr MessageSchema kRulesReviewSpec{
    [] { return std::string_view("SelfSubjectRulesReviewSpec"); },
    kRulesReviewSpecFields};
constexpr FieldSchema kRulesReviewFields[] = {
    Nested(1, "metadata", Message<api::ObjectMeta>::schema),
    Nested(2, "spec", kRulesReviewSpec)};
constexpr MessageSchema kRulesReview{
    [] { return std::string_view("SelfSubjectRulesReview"); },
    kRulesReviewFields};
constexpr FieldSchema kSelfSubjectReviewFields[] = {
    Nested(1, "metadata", Message<api::ObjectMeta>::schema)};
constexpr MessageSchema kSelfSubjectReview{
    [] { return std::string_view("SelfSubjectReview"); },
    kSelfSubjectReviewFields};

// The kinds a protobuf body may carry: those whose fields have protobuf
// numbers, DeleteOptions, TokenRequest and the access reviews.
const MessageSchema* SchemaForKind(std::string_view kind) {
  const MessageSchema* found = nullptr;
  api::ForEachKind([&]<typename T>(const api::KindTraits& traits) {
    if constexpr (ProtoFieldCount<T>() > 0) {
      if (traits.kind == kind) found = &Message<T>::schema;
    }
  });
  if (found == nullptr && kind == "DeleteOptions") found = &kDeleteOptions;
  if (found == nullptr && kind == "TokenRequest") found = &kTokenRequest;
  if (found == nullptr &&
      (kind == "SelfSubjectAccessReview" || kind == "SubjectAccessReview" ||
       kind == "LocalSubjectAccessReview")) {
    found = &kAccessReview;
  }
  if (found == nullptr && kind == "SelfSubjectRulesReview") {
    found = &kRulesReview;
  }
  if (found == nullptr && kind == "SelfSubjectReview") {
    found = &kSelfSubjectReview;
  }
  return found;
}

// ---------------------------------------------------------------------------
// Decoding.

// Seconds from 0001-01-01T00:00:00Z to the Unix epoch: Go's zero time.Time,
// which JSON encodes as null.
constexpr int64_t kGoZeroTimeUnixSeconds = -62135596800;
// Seconds from 0000-01-01 to 9999-12-31T23:59:59Z relative to the epoch: the
// range Go's RFC 3339 JSON encoding accepts.
constexpr int64_t kMinRfc3339Seconds = -62167219200;
constexpr int64_t kMaxRfc3339Seconds = 253402300799;

Status Malformed(std::string_view path, std::string_view problem) {
  return InvalidArgumentError(fmt::format(
      "the protobuf body is malformed at {}: {}",
      path.empty() ? std::string_view("the top level") : path, problem));
}

std::string Child(std::string_view path, std::string_view name) {
  if (path.empty()) return std::string(name);
  return fmt::format("{}.{}", path, name);
}

WireFormatLite::WireType WireTypeOf(FieldKind kind) {
  switch (kind) {
    case FieldKind::kBool:
    case FieldKind::kInt32:
    case FieldKind::kInt64:
      return WireFormatLite::WIRETYPE_VARINT;
    default:
      return WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
  }
}

// "2026-11-22T14:05:09Z" (seconds) or "2026-11-22T14:05:09.123456Z" (µs).
StatusOr<std::string> FormatTime(int64_t seconds, int64_t nanos,
                                 bool microseconds, std::string_view path) {
  // Go normalises nanoseconds outside [0, 1e9) into the seconds.
  seconds += nanos / 1'000'000'000;
  nanos %= 1'000'000'000;
  if (nanos < 0) {
    nanos += 1'000'000'000;
    seconds -= 1;
  }
  if (seconds < kMinRfc3339Seconds || seconds > kMaxRfc3339Seconds) {
    return Malformed(path, fmt::format("the timestamp {}s is outside the "
                                       "years 0-9999 RFC 3339 can express",
                                       seconds));
  }
  using std::chrono::days;
  using std::chrono::floor;
  const std::chrono::sys_seconds instant{std::chrono::seconds(seconds)};
  const auto day = floor<days>(instant);
  const std::chrono::year_month_day date{day};
  const std::chrono::hh_mm_ss time_of_day{instant - day};
  std::string text = fmt::format(
      "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", static_cast<int>(date.year()),
      static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
      time_of_day.hours().count(), time_of_day.minutes().count(),
      time_of_day.seconds().count());
  if (microseconds) text += fmt::format(".{:06}", nanos / 1000);
  text += 'Z';
  return text;
}

class Decoder {
 public:
  explicit Decoder(std::string_view bytes)
      : input_(reinterpret_cast<const uint8_t*>(bytes.data()),
               static_cast<int>(bytes.size())) {}

  // Decodes the whole buffer as one message of `schema` into `out`.
  Status DecodeAll(const MessageSchema& schema, Json& out) {
    return DecodeFields(schema, "", out);
  }

 private:
  // Decodes fields until the current limit into `out` (an object).
  Status DecodeFields(const MessageSchema& schema, const std::string& path,
                      Json& out) {
    if (!out.is_object()) out = Json::object();
    while (input_.BytesUntilLimit() > 0) {
      const uint32_t tag = input_.ReadTag();
      if (tag == 0) {
        return Malformed(path, "a truncated or invalid field tag");
      }
      const int number = WireFormatLite::GetTagFieldNumber(tag);
      const WireFormatLite::WireType wire_type =
          WireFormatLite::GetTagWireType(tag);
      const FieldSchema* field = nullptr;
      for (const FieldSchema& candidate : schema.fields) {
        if (static_cast<int>(candidate.number) == number) field = &candidate;
      }
      if (field == nullptr) {
        // A field dralloc does not model: skip it by its wire type.
        if (!WireFormatLite::SkipField(&input_, tag)) {
          return Malformed(
              path,
              fmt::format("field {} of {} (wire type {}) is truncated "
                          "or invalid",
                          number, schema.name(), static_cast<int>(wire_type)));
        }
        continue;
      }
      std::string field_path = Child(path, field->json_name);
      if (field->cardinality == Cardinality::kRepeated) {
        Json& list = out[std::string(field->json_name)];
        if (!list.is_array()) list = Json::array();
        field_path += fmt::format("[{}]", list.size());
      }
      if (wire_type != WireTypeOf(field->kind)) {
        return Malformed(
            field_path, fmt::format("wire type {} where {} was expected",
                                    static_cast<int>(wire_type),
                                    static_cast<int>(WireTypeOf(field->kind))));
      }
      RETURN_IF_ERROR(DecodeField(*field, field_path, out));
    }
    return OkStatus();
  }

  // Decodes one occurrence of `field` and merges it into `out`.
  Status DecodeField(const FieldSchema& field, const std::string& path,
                     Json& out) {
    const std::string name(field.json_name);
    Json value;
    switch (field.kind) {
      case FieldKind::kStringMap:
      case FieldKind::kBytesMap:
      case FieldKind::kQuantityMap: {
        // One map entry per occurrence; the last value of a key wins.
        const bool quantities = field.kind == FieldKind::kQuantityMap;
        Json entry;
        RETURN_IF_ERROR(DecodeNested(
            quantities ? kQuantityMapEntry : kStringMapEntry, path, entry));
        Json& map = out[name];
        if (!map.is_object()) map = Json::object();
        const std::string key = entry.value("key", std::string());
        if (entry.contains("value")) {
          map[key] = std::move(entry["value"]);
        } else {
          map[key] = quantities ? "0" : "";
        }
        if (field.kind == FieldKind::kBytesMap) {
          map[key] = Base64Encode(map[key].get<std::string>(),
                                  Base64Alphabet::kStandard, /*pad=*/true);
        }
        return OkStatus();
      }
      case FieldKind::kMessage:
        if (field.cardinality != Cardinality::kRepeated && out.contains(name)) {
          // A repeated occurrence of a singular message merges into it.
          value = std::move(out[name]);
        }
        RETURN_IF_ERROR(DecodeNested(*field.message, path, value));
        break;
      default:
        RETURN_IF_ERROR(DecodeScalar(field.kind, path, value));
        break;
    }
    if (field.cardinality == Cardinality::kRepeated) {
      if (!value.is_null()) out[name].push_back(std::move(value));
      return OkStatus();
    }
    if (value.is_null() ||
        (field.cardinality == Cardinality::kOmitEmpty && IsEmpty(value))) {
      out.erase(name);  // a later empty occurrence replaces an earlier value
      return OkStatus();
    }
    out[name] = std::move(value);
    return OkStatus();
  }

  static bool IsEmpty(const Json& value) {
    if (value.is_string()) return value.get_ref<const std::string&>().empty();
    if (value.is_boolean()) return !value.get<bool>();
    if (value.is_number_integer()) return value.get<int64_t>() == 0;
    return false;
  }

  // Reads a length prefix and checks it against the bytes left.
  Status ReadLength(const std::string& path, int& length) {
    uint32_t raw = 0;
    if (!input_.ReadVarint32(&raw)) {
      return Malformed(path, "a truncated length");
    }
    const int left = input_.BytesUntilLimit();
    if (raw > static_cast<uint32_t>(left)) {
      return Malformed(path, fmt::format("a length of {} bytes where only {} "
                                         "are left",
                                         raw, left));
    }
    length = static_cast<int>(raw);
    return OkStatus();
  }

  Status DecodeNested(const MessageSchema& schema, const std::string& path,
                      Json& out) {
    int length = 0;
    RETURN_IF_ERROR(ReadLength(path, length));
    const CodedInputStream::Limit limit = input_.PushLimit(length);
    Status status = DecodeFields(schema, path, out);
    input_.PopLimit(limit);
    return status;
  }

  // Decodes a scalar (or a message with a scalar JSON form) into `value`;
  // null means "absent from JSON" (a zero Time).
  Status DecodeScalar(FieldKind kind, const std::string& path, Json& value) {
    switch (kind) {
      case FieldKind::kBool:
      case FieldKind::kInt32:
      case FieldKind::kInt64: {
        uint64_t raw = 0;
        if (!input_.ReadVarint64(&raw)) {
          return Malformed(path, "a truncated varint");
        }
        if (kind == FieldKind::kBool) {
          value = raw != 0;
        } else if (kind == FieldKind::kInt32) {
          value = static_cast<int32_t>(static_cast<uint32_t>(raw));
        } else {
          value = static_cast<int64_t>(raw);
        }
        return OkStatus();
      }
      case FieldKind::kString: {
        int length = 0;
        RETURN_IF_ERROR(ReadLength(path, length));
        std::string text;
        if (!input_.ReadString(&text, length)) {
          return Malformed(path, "a truncated string");
        }
        value = std::move(text);
        return OkStatus();
      }
      case FieldKind::kQuantity: {
        Json quantity;
        RETURN_IF_ERROR(DecodeNested(kQuantity, path, quantity));
        // A Quantity without its string is zero.
        value = quantity.value("string", std::string("0"));
        return OkStatus();
      }
      case FieldKind::kTime:
      case FieldKind::kMicroTime: {
        Json timestamp;
        RETURN_IF_ERROR(DecodeNested(kTimestamp, path, timestamp));
        const int64_t seconds = timestamp.value("seconds", int64_t{0});
        const int64_t nanos = timestamp.value("nanos", int64_t{0});
        // Go writes a zero time as an empty message; both it and an
        // explicit zero time read back as the zero time, JSON null.
        if (timestamp.empty() ||
            (seconds == kGoZeroTimeUnixSeconds && nanos == 0)) {
          value = nullptr;
          return OkStatus();
        }
        ASSIGN_OR_RETURN(
            std::string text,
            FormatTime(seconds, nanos, kind == FieldKind::kMicroTime, path));
        value = std::move(text);
        return OkStatus();
      }
      case FieldKind::kFieldsV1: {
        Json fields;
        RETURN_IF_ERROR(DecodeNested(kFieldsV1, path, fields));
        if (!fields.contains("Raw")) {
          value = Json::object();
          return OkStatus();
        }
        value = Json::parse(fields["Raw"].get_ref<const std::string&>(),
                            nullptr, /*allow_exceptions=*/false);
        if (value.is_discarded()) {
          return Malformed(path, "the managed fields are not JSON");
        }
        return OkStatus();
      }
      default:
        return InternalError(fmt::format("{}: unexpected field kind", path));
    }
  }

  CodedInputStream input_;
};

constexpr std::string_view kMagic("k8s\0", 4);

}  // namespace

bool IsProtobufContentType(std::string_view content_type) {
  std::string_view type = content_type.substr(0, content_type.find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) {
    type.remove_suffix(1);
  }
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) {
    type.remove_prefix(1);
  }
  if (type.size() != kProtobufMediaType.size()) return false;
  for (size_t i = 0; i < type.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(type[i])) !=
        kProtobufMediaType[i]) {
      return false;
    }
  }
  return true;
}

bool CanDecodeProtobufKind(std::string_view kind) {
  return SchemaForKind(kind) != nullptr;
}

StatusOr<nlohmann::ordered_json> DecodeProtobufBody(
    std::string_view body, std::string_view expected_kind) {
  const MessageSchema* schema = SchemaForKind(expected_kind);
  if (schema == nullptr) {
    return UnimplementedError(fmt::format(
        "{} cannot be sent as {}: this server decodes protobuf bodies only "
        "for the core/v1 kinds Namespace, Node, Pod and Event (and "
        "DeleteOptions); send {} as application/json",
        expected_kind, kProtobufMediaType, expected_kind));
  }
  if (!body.starts_with(kMagic)) {
    return InvalidArgumentError(
        "the protobuf body does not start with the Kubernetes magic number "
        "\"k8s\\x00\"");
  }
  body.remove_prefix(kMagic.size());
  if (body.size() > static_cast<size_t>(INT_MAX)) {
    return InvalidArgumentError("the protobuf body is too large");
  }

  Json envelope;
  RETURN_IF_ERROR(Decoder(body).DecodeAll(kEnvelope, envelope));
  const std::string encoding = envelope.value("contentEncoding", std::string());
  if (!encoding.empty()) {
    return UnimplementedError(fmt::format(
        "the protobuf body declares content encoding \"{}\", which this "
        "server does not support",
        encoding));
  }
  const Json type_meta = envelope.value("typeMeta", Json::object());
  const std::string api_version = type_meta.value("apiVersion", std::string());
  const std::string kind = type_meta.value("kind", std::string());
  if (!kind.empty() && kind != expected_kind) {
    return InvalidArgumentError(fmt::format(
        "the kind in the data ({}) does not match the expected kind ({})", kind,
        expected_kind));
  }

  Json object = Json::object();
  if (!api_version.empty()) object["apiVersion"] = api_version;
  object["kind"] = std::string(expected_kind);
  const std::string raw = envelope.value("raw", std::string());
  RETURN_IF_ERROR(Decoder(raw).DecodeAll(*schema, object));
  return object;
}

}  // namespace dralloc::apiserver
