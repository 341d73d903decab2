#include "api/struct_codec.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>

namespace dralloc::api {

bool operator==(const RawJson& a, const RawJson& b) {
  if (a.json == b.json) return true;
  // Canonical texts are the dump of their values: different texts are
  // different values (up to the spelling of numbers, 1 against 1.0).
  if (a.canonical && b.canonical) return false;
  Json left = Json::parse(a.json, nullptr, /*allow_exceptions=*/false);
  Json right = Json::parse(b.json, nullptr, /*allow_exceptions=*/false);
  return !left.is_discarded() && left == right;
}

std::string DescribeJson(JsonElement e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY:
      return "array";
    case simdjson::dom::element_type::OBJECT:
      return "object";
    case simdjson::dom::element_type::INT64:
    case simdjson::dom::element_type::UINT64:
    case simdjson::dom::element_type::DOUBLE:
      return "number " + std::string(simdjson::minify(e));
    case simdjson::dom::element_type::STRING: {
      std::string_view s = e.get_string().value_unsafe();
      if (s.size() > 64) return "string " + QuoteValue(s.substr(0, 64)) + "...";
      return "string " + QuoteValue(s);
    }
    case simdjson::dom::element_type::BOOL:
      return e.get_bool().value_unsafe() ? "boolean true" : "boolean false";
    case simdjson::dom::element_type::NULL_VALUE:
      return "null";
  }
  return "value";
}

void DecodeContext::TypeMismatch(const FieldPath& path,
                                 std::string_view expected, JsonElement got) {
  errors_.push_back(
      {FieldErrorType::kTypeInvalid, path.ToString(), "",
       fmt::format("expected {}, got {}", expected, DescribeJson(got))});
}

void DecodeContext::BadValue(const FieldPath& path, JsonElement got,
                             std::string detail) {
  errors_.push_back({FieldErrorType::kInvalid, path.ToString(),
                     DescribeJson(got), std::move(detail)});
}

void DecodeContext::UnknownField(const FieldPath& path) {
  FieldError error{FieldErrorType::kUnknownField, path.ToString(), "", ""};
  (options_.strict ? errors_ : warnings_).push_back(std::move(error));
}

void DecodeContext::DuplicateField(const FieldPath& path) {
  FieldError error{FieldErrorType::kDuplicate, path.ToString(), "",
                   "duplicate field"};
  (options_.strict ? errors_ : warnings_).push_back(std::move(error));
}

namespace codec_internal {

void DecodeString(JsonElement e, std::string& out, const FieldPath& path,
                  DecodeContext& ctx) {
  std::string_view s;
  if (e.get_string().get(s) != simdjson::SUCCESS) {
    ctx.TypeMismatch(path, "string", e);
    return;
  }
  out.assign(s);
}

void DecodeBool(JsonElement e, bool& out, const FieldPath& path,
                DecodeContext& ctx) {
  if (e.get_bool().get(out) != simdjson::SUCCESS)
    ctx.TypeMismatch(path, "boolean", e);
}

void DecodeInt64(JsonElement e, int64_t& out, const FieldPath& path,
                 DecodeContext& ctx) {
  if (e.get_int64().get(out) != simdjson::SUCCESS)
    ctx.TypeMismatch(path, "integer", e);
}

void DecodeInt32(JsonElement e, int32_t& out, const FieldPath& path,
                 DecodeContext& ctx) {
  int64_t wide = 0;
  if (e.get_int64().get(wide) != simdjson::SUCCESS) {
    ctx.TypeMismatch(path, "integer", e);
    return;
  }
  if (wide < std::numeric_limits<int32_t>::min() ||
      wide > std::numeric_limits<int32_t>::max()) {
    ctx.BadValue(path, e, "must fit in a 32-bit integer");
    return;
  }
  out = static_cast<int32_t>(wide);
}

void DecodeQuantity(JsonElement e, Quantity& out, const FieldPath& path,
                    DecodeContext& ctx) {
  std::string text;
  std::string_view s;
  if (e.get_string().get(s) == simdjson::SUCCESS) {
    text.assign(s);
  } else if (e.is_number()) {
    text =
        std::string(simdjson::minify(e));  // Numbers keep their JSON spelling.
  } else {
    ctx.TypeMismatch(path, "quantity (string or number)", e);
    return;
  }
  StatusOr<Quantity> parsed = Quantity::Parse(text);
  if (!parsed.ok()) {
    ctx.BadValue(path, e, parsed.status().message());
    return;
  }
  out = *std::move(parsed);
}

namespace {

// `e` as nlohmann::json::dump() would print it.
void AppendCanonical(JsonElement e, std::string& out) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      out += '{';
      bool first = true;
      for (auto [key, value] : simdjson::dom::object(e)) {
        if (!first) out += ',';
        first = false;
        AppendJsonString(out, key);
        out += ':';
        AppendCanonical(value, out);
      }
      out += '}';
      return;
    }
    case simdjson::dom::element_type::ARRAY: {
      out += '[';
      bool first = true;
      for (JsonElement item : simdjson::dom::array(e)) {
        if (!first) out += ',';
        first = false;
        AppendCanonical(item, out);
      }
      out += ']';
      return;
    }
    case simdjson::dom::element_type::STRING:
      AppendJsonString(out, std::string_view(e));
      return;
    case simdjson::dom::element_type::INT64:
      AppendInteger(int64_t(e), out);
      return;
    case simdjson::dom::element_type::UINT64:
      AppendUnsigned(uint64_t(e), out);
      return;
    case simdjson::dom::element_type::DOUBLE:
      out += Json(double(e)).dump();
      return;
    case simdjson::dom::element_type::BOOL:
      out += bool(e) ? "true" : "false";
      return;
    case simdjson::dom::element_type::NULL_VALUE:
      out += "null";
      return;
  }
}

}  // namespace

void DecodeRaw(JsonElement e, RawJson& out) {
  out.json.clear();
  AppendCanonical(e, out.json);
  out.canonical = true;
}

void AppendRaw(const RawJson& raw, std::string& out) {
  if (raw.canonical) {
    out += raw.json;
  } else {
    out += EncodeRaw(raw).dump();
  }
}

void AppendInteger(int64_t value, std::string& out) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, end);
}

void AppendUnsigned(uint64_t value, std::string& out) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, end);
}

Json EncodeRaw(const RawJson& raw) {
  if (raw.json.empty()) return Json(nullptr);
  Json value = Json::parse(raw.json, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? Json(raw.json) : value;
}

}  // namespace codec_internal

Json WithTypeHeader(Json body, std::string_view api_version,
                    std::string_view kind) {
  Json out = Json::object();
  out["apiVersion"] = std::string(api_version);
  out["kind"] = std::string(kind);
  for (auto& [key, value] : body.items()) {
    if (key != "apiVersion" && key != "kind") out[key] = std::move(value);
  }
  return out;
}

}  // namespace dralloc::api
