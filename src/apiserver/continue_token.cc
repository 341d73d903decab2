#include "apiserver/continue_token.h"

#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>
#include <optional>

namespace dralloc::apiserver {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
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
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    const uint32_t n = (static_cast<uint8_t>(data[i]) << 16) |
                       (static_cast<uint8_t>(data[i + 1]) << 8) |
                       static_cast<uint8_t>(data[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  const size_t rest = data.size() - i;
  if (rest > 0) {
    uint32_t n = static_cast<uint8_t>(data[i]) << 16;
    if (rest == 2) n |= static_cast<uint8_t>(data[i + 1]) << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    if (rest == 2) out += kAlphabet[(n >> 6) & 63];
  }
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  std::array<int, 256> value;
  value.fill(-1);
  for (size_t i = 0; i < kAlphabet.size(); ++i) {
    value[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int>(i);
  }
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    const int v = value[static_cast<uint8_t>(c)];
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  // The unused low bits of the last character must be zero (canonical).
  if ((bits & ((1u << count) - 1)) != 0) return std::nullopt;
  return out;
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
