#include "api/codec.h"

#include <fmt/format.h>

#include <array>

#include "api/kind_traits.h"
#include "api/v1beta1/v1beta1.h"

namespace dralloc::api {
namespace {

template <typename T>
void DecodeHub(JsonElement element, DecodeContext& ctx,
               std::optional<Object>& out) {
  if (std::optional<T> value = DecodeRoot<T>(element, ctx))
    out.emplace(*std::move(value));
}

using HubDecoder = void (*)(JsonElement, DecodeContext&,
                            std::optional<Object>&);

// A kind's traits and the decoder of its hub form.
struct KindEntry {
  const KindTraits* traits;
  HubDecoder decode_hub;
};

constexpr std::array<KindEntry, kKindCount> kKinds = [] {
  std::array<KindEntry, kKindCount> kinds{};
  size_t next = 0;
  ForEachKind([&]<typename T>(const KindTraits& traits) {
    kinds[next++] = {&traits, DecodeHub<T>};
  });
  return kinds;
}();

// The entry of the kind `api_version` serves as `kind`, or nullptr.
const KindEntry* FindKind(std::string_view api_version, std::string_view kind) {
  const KindTraits* traits = FindKindTraits(api_version, kind);
  if (traits == nullptr) return nullptr;
  for (const KindEntry& entry : kKinds) {
    if (entry.traits == traits) return &entry;
  }
  return nullptr;
}

const KindEntry& EntryOf(const Object& object) {
  return kKinds[object.index()];
}

// True if `api_version` serves the kind in the hub's wire shape.
bool HubShaped(const KindEntry& entry, std::string_view api_version) {
  for (std::string_view v : entry.traits->api_versions) {
    if (!v.empty() && v == api_version &&
        v != entry.traits->converted_version) {
      return true;
    }
  }
  return false;
}

// True if `api_version` serves the kind through v1beta1 conversion.
bool Converted(const KindEntry& entry, std::string_view api_version) {
  return !entry.traits->converted_version.empty() &&
         api_version == entry.traits->converted_version;
}

std::string_view StringMember(simdjson::dom::object object,
                              std::string_view key) {
  std::string_view value;
  if (object[key].get_string().get(value) != simdjson::SUCCESS) return {};
  return value;
}

void ReadHeader(simdjson::dom::object object, DecodeResult& result) {
  result.api_version = StringMember(object, "apiVersion");
  result.kind = StringMember(object, "kind");
  simdjson::dom::object metadata;
  if (object["metadata"].get_object().get(metadata) == simdjson::SUCCESS) {
    result.name = StringMember(metadata, "name");
    if (result.name.empty())
      result.name = StringMember(metadata, "generateName");
    result.namespace_ = StringMember(metadata, "namespace");
  }
}

FieldError DecodeError(std::string field, std::string detail) {
  return {FieldErrorType::kInvalid, std::move(field), "", std::move(detail)};
}

bool IsListKind(std::string_view kind) {
  if (kind == "List") return true;
  if (kind.size() <= 4 || !kind.ends_with("List")) return false;
  return FindKindTraits(kind.substr(0, kind.size() - 4)) != nullptr;
}

void DecodeObjectInto(JsonElement element, const DecodeOptions& options,
                      std::vector<DecodeResult>& results, bool allow_list);

void DecodeList(simdjson::dom::object object, const DecodeOptions& options,
                std::vector<DecodeResult>& results,
                const DecodeResult& header) {
  simdjson::dom::array items;
  auto items_element = object["items"];
  if (items_element.error() == simdjson::NO_SUCH_FIELD ||
      items_element.is_null())
    return;
  if (items_element.get_array().get(items) != simdjson::SUCCESS) {
    DecodeResult failed = header;
    failed.errors.push_back(DecodeError("items", "expected array"));
    results.push_back(std::move(failed));
    return;
  }
  for (JsonElement item : items)
    DecodeObjectInto(item, options, results, /*allow_list=*/false);
}

void DecodeObjectInto(JsonElement element, const DecodeOptions& options,
                      std::vector<DecodeResult>& results, bool allow_list) {
  DecodeResult result;
  simdjson::dom::object object;
  if (element.get_object().get(object) != simdjson::SUCCESS) {
    result.errors.push_back(DecodeError(
        "", "expected a JSON object with apiVersion and kind, got " +
                DescribeJson(element)));
    results.push_back(std::move(result));
    return;
  }
  ReadHeader(object, result);
  if (result.kind.empty()) {
    result.errors.push_back(
        {FieldErrorType::kRequired, "kind", "", "object has no kind"});
  }
  if (result.api_version.empty()) {
    result.errors.push_back({FieldErrorType::kRequired, "apiVersion", "",
                             "object has no apiVersion"});
  }
  if (!result.errors.empty()) {
    results.push_back(std::move(result));
    return;
  }
  if (allow_list && IsListKind(result.kind)) {
    DecodeList(object, options, results, result);
    return;
  }
  const KindEntry* entry = FindKind(result.api_version, result.kind);
  const bool hub_shaped =
      entry != nullptr && HubShaped(*entry, result.api_version);
  const bool v1beta1 =
      entry != nullptr && Converted(*entry, result.api_version);
  if (!hub_shaped && !v1beta1) {
    result.errors.push_back(DecodeError(
        "", fmt::format("no matches for kind \"{}\" in version \"{}\"",
                        result.kind, result.api_version)));
    results.push_back(std::move(result));
    return;
  }
  DecodeContext ctx(options);
  if (v1beta1) {
    v1beta1::Decode(result.kind, element, ctx, result.object);
  } else {
    entry->decode_hub(element, ctx, result.object);
  }
  result.errors = std::move(ctx.errors());
  result.warnings = std::move(ctx.warnings());
  if (!result.errors.empty()) result.object.reset();
  if (result.object.has_value()) {
    // Decoded objects are in hub form: they carry the preferred version.
    std::visit(
        [&](auto& hub) {
          hub.api_version = std::string(entry->traits->api_versions[0]);
          hub.kind = result.kind;
        },
        *result.object);
  }
  results.push_back(std::move(result));
}

simdjson::dom::parser& ThreadParser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

}  // namespace

std::string DecodeResult::DisplayName() const {
  std::string out = kind.empty() ? std::string("object") : kind;
  if (name.empty()) return out;
  out += ' ';
  if (!namespace_.empty()) {
    out += namespace_;
    out += '/';
  }
  out += name;
  return out;
}

std::vector<DecodeResult> DecodeDocument(std::string_view json,
                                         const DecodeOptions& options) {
  std::vector<DecodeResult> results;
  simdjson::padded_string padded(json);
  JsonElement root;
  simdjson::error_code error = ThreadParser().parse(padded).get(root);
  if (error != simdjson::SUCCESS) {
    DecodeResult failed;
    failed.errors.push_back(DecodeError(
        "", std::string("malformed JSON: ") + simdjson::error_message(error)));
    results.push_back(std::move(failed));
    return results;
  }
  DecodeObjectInto(root, options, results, /*allow_list=*/true);
  return results;
}

std::vector<DecodeResult> DecodeElement(JsonElement root,
                                        const DecodeOptions& options) {
  std::vector<DecodeResult> results;
  DecodeObjectInto(root, options, results, /*allow_list=*/true);
  return results;
}

std::string_view PreferredVersion(const Object& object) {
  return EntryOf(object).traits->api_versions[0];
}

bool IsServed(std::string_view api_version, std::string_view kind) {
  return FindKind(api_version, kind) != nullptr;
}

bool IsServed(std::string_view api_version, const Object& object) {
  const KindEntry& entry = EntryOf(object);
  return HubShaped(entry, api_version) || Converted(entry, api_version);
}

std::vector<std::string_view> ServedVersions(const Object& object) {
  std::vector<std::string_view> out;
  for (std::string_view v : EntryOf(object).traits->api_versions) {
    if (!v.empty()) out.push_back(v);
  }
  return out;
}

std::vector<std::string_view> ServedVersions(std::string_view kind) {
  std::vector<std::string_view> out;
  for (const KindEntry& entry : kKinds) {
    if (entry.traits->kind != kind) continue;
    for (std::string_view v : entry.traits->api_versions) {
      if (!v.empty()) out.push_back(v);
    }
  }
  return out;
}

StatusOr<Json> EncodeObject(const Object& object,
                            std::string_view api_version) {
  const std::string_view kind = KindOf(object);
  if (!IsServed(api_version, object)) {
    return InvalidArgumentError(
        fmt::format("{} is not served in version \"{}\"", kind, api_version));
  }
  if (api_version == kResourceV1beta1) return v1beta1::Encode(object);
  Json body =
      std::visit([](const auto& hub) { return EncodeValue(hub); }, object);
  return WithTypeHeader(std::move(body), api_version, kind);
}

StatusOr<std::string> EncodeObjectText(const Object& object,
                                       std::string_view api_version) {
  const std::string_view kind = KindOf(object);
  if (!IsServed(api_version, object)) {
    return InvalidArgumentError(
        fmt::format("{} is not served in version \"{}\"", kind, api_version));
  }
  if (api_version == kResourceV1beta1) {
    ASSIGN_OR_RETURN(Json tree, v1beta1::Encode(object));
    return tree.dump();
  }
  std::string out;
  out.reserve(1024);
  out += "{\"apiVersion\":";
  AppendJsonString(out, api_version);
  out += ",\"kind\":";
  AppendJsonString(out, kind);
  bool first = false;
  std::visit(
      [&](const auto& hub) {
        AppendJsonMembers(hub, out, first, /*skip_type_meta=*/true);
      },
      object);
  out += '}';
  return out;
}

}  // namespace dralloc::api
