#include "apiserver/request_body.h"

#include <fmt/format.h>

#include <utility>

#include "api/codec.h"
#include "encoding/document_reader.h"

namespace dralloc::apiserver {

ApiOr<RequestBody> DecodeBody(const RequestScope& scope, std::string_view body,
                              FieldValidation validation) {
  const RequestScope& s = scope;
  const std::string expected_version = s.info->GroupVersion(s.version);
  const size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return BadRequest("the request body is empty");
  }
  std::string text(body);
  if (body[first] != '{') {
    auto documents = encoding::ReadDocuments(body, "request body");
    if (!documents.ok()) return BadRequest(documents.status().message());
    if (documents->size() != 1) {
      return BadRequest("the request body must hold exactly one object");
    }
    text = std::move((*documents)[0].json);
  }
  const bool strict = validation == FieldValidation::kStrict;
  auto results = api::DecodeDocument(text, {.strict = strict});
  if (results.size() == 1 &&
      (results[0].api_version.empty() || results[0].kind.empty())) {
    // Kubernetes fills a missing apiVersion or kind from the URL.
    Json json = Json::parse(text, nullptr, false);
    if (json.is_object()) {
      if (!json.contains("apiVersion") || json["apiVersion"] == "") {
        json["apiVersion"] = expected_version;
      }
      if (!json.contains("kind") || json["kind"] == "") {
        json["kind"] = s.info->kind;
      }
      results = api::DecodeDocument(json.dump(), {.strict = strict});
    }
  }
  const bool is_object = text[text.find_first_not_of(" \t\r\n")] == '{';
  if (results.size() != 1 || !is_object) {
    return BadRequest(fmt::format(
        "{} in version \"{}\" cannot be handled as a {}: the body is not "
        "one JSON object",
        s.info->kind, s.version, s.info->kind));
  }
  if (results[0].api_version != expected_version) {
    if (results[0].api_version.empty() && results[0].kind.empty()) {
      return BadRequest(fmt::format(
          "{} in version \"{}\" cannot be handled as a {}: {}", s.info->kind,
          s.version, s.info->kind,
          results[0].errors.empty() ? std::string("malformed object")
                                    : results[0].errors[0].ToString()));
    }
    return BadRequest(fmt::format(
        "the API version in the data ({}) does not match the expected API "
        "version ({})",
        results[0].api_version, expected_version));
  }
  if (results[0].kind != s.info->kind) {
    return BadRequest(fmt::format(
        "the kind in the data ({}) does not match the expected kind ({})",
        results[0].kind, s.info->kind));
  }
  api::DecodeResult& result = results[0];
  if (!result.errors.empty()) {
    std::string detail;
    bool only_unknown = true;
    for (const api::FieldError& error : result.errors) {
      if (!detail.empty()) detail += ", ";
      if (error.type == api::FieldErrorType::kUnknownField) {
        detail += fmt::format("unknown field \"{}\"", error.field);
      } else if (error.type == api::FieldErrorType::kDuplicate) {
        detail += fmt::format("duplicate field \"{}\"", error.field);
      } else {
        only_unknown = false;
        detail += error.ToString();
      }
    }
    return BadRequest(
        fmt::format("{} in version \"{}\" cannot be handled as a {}: {}{}",
                    s.info->kind, s.version, s.info->kind,
                    only_unknown ? "strict decoding error: " : "", detail));
  }
  RequestBody decoded{std::move(*result.object), {}};
  if (validation == FieldValidation::kWarn) {
    for (const api::FieldError& warning : result.warnings) {
      decoded.warnings.push_back(
          warning.type == api::FieldErrorType::kDuplicate
              ? fmt::format("duplicate field \"{}\"", warning.field)
              : fmt::format("unknown field \"{}\"", warning.field));
    }
  }
  return decoded;
}

}  // namespace dralloc::apiserver
