#include "apiserver/continue_token.h"

#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/base64.h"

namespace dralloc::apiserver {
namespace {

constexpr std::string_view kVersion = "meta.k8s.io/v1";

Status NotValid(std::string_view why) {
  return InvalidArgumentError(
      why.empty() ? std::string("continue key is not valid")
                  : fmt::format("continue key is not valid: {}", why));
}

// True if `path` (starting with '/') is already in the form a lexical
// clean gives it: no empty, "." or ".." segments and no trailing slash
// (except the root).
bool IsClean(std::string_view path) {
  if (path == "/") return true;
  if (path.ends_with('/')) return false;
  size_t at = 1;
  while (at <= path.size()) {
    size_t end = path.find('/', at);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(at, end - at);
    if (segment.empty() || segment == "." || segment == "..") return false;
    at = end + 1;
  }
  return true;
}

}  // namespace

std::string Base64UrlEncode(std::string_view data) {
  return Base64Encode(data, Base64Alphabet::kUrl, /*pad=*/false);
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  return Base64Decode(text, {.alphabet = Base64Alphabet::kUrl,
                             .accept_padding = false,
                             .canonical = true});
}

StatusOr<std::string> ContinueToken::Encode(std::string_view prefix) const {
  if (!std::string_view(start).starts_with(prefix)) {
    return InvalidArgumentError(
        fmt::format("unable to encode next field: the key and key prefix do "
                    "not match {} {}",
                    prefix, start));
  }
  nlohmann::ordered_json token = {
      {"v", kVersion},
      {"rv", revision},
      {"start", std::string_view(start).substr(prefix.size())}};
  return Base64UrlEncode(
      token.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

StatusOr<ContinueToken> ContinueToken::Decode(std::string_view text,
                                              std::string_view prefix) {
  const std::optional<std::string> data = Base64UrlDecode(text);
  if (!data) return NotValid("illegal base64 data");
  const nlohmann::json parsed = nlohmann::json::parse(*data, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return NotValid("malformed JSON");
  }
  const auto version = parsed.find("v");
  if (version == parsed.end() || !version->is_string() ||
      version->get<std::string>() != kVersion) {
    return NotValid(
        fmt::format("server does not recognize this encoded version {}",
                    version != parsed.end() && version->is_string()
                        ? version->get<std::string>()
                        : ""));
  }
  ContinueToken token;
  if (const auto rv = parsed.find("rv"); rv != parsed.end()) {
    if (!rv->is_number_integer()) return NotValid("malformed rv");
    token.revision = rv->get<int64_t>();
  }
  if (token.revision == 0 || token.revision < kLatest) {
    return NotValid(
        "incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  std::string start;
  if (const auto s = parsed.find("start"); s != parsed.end()) {
    if (!s->is_string()) return NotValid("malformed start");
    start = s->get<std::string>();
  }
  if (start.empty()) {
    return NotValid("encoded start key empty (version meta.k8s.io/v1)");
  }
  // The key may not climb out of the collection: it must already be a
  // clean path below the prefix.
  const std::string path = start.starts_with('/') ? start : "/" + start;
  if (!IsClean(path)) return NotValid(start);
  token.start = std::string(prefix) + path.substr(1);
  return token;
}

}  // namespace dralloc::apiserver
