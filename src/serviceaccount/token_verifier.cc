#include "serviceaccount/token_verifier.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "serviceaccount/jws.h"

namespace dralloc::serviceaccount {
namespace {

using Json = nlohmann::json;

// The decoded JSON object of a base64url part, or nullopt.
std::optional<Json> DecodeJsonPart(std::string_view part) {
  std::optional<std::string> text = Base64UrlDecode(part);
  if (!text.has_value()) return std::nullopt;
  Json json = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::nullopt;
  return json;
}

VerifiedToken Rejected(std::string error) {
  VerifiedToken result;
  result.outcome = VerifiedToken::Outcome::kRejected;
  result.error = std::move(error);
  return result;
}

}  // namespace

UnixClock SystemUnixClock() {
  return [] {
    return static_cast<int64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(
            std::chrono::system_clock::now().time_since_epoch())
            .count());
  };
}

TokenVerifier::TokenVerifier(std::vector<PKeyPtr> keys,
                             std::vector<std::string> issuers,
                             std::vector<std::string> api_audiences,
                             UnixClock clock)
    : keys_(std::move(keys)),
      issuers_(std::move(issuers)),
      api_audiences_(std::move(api_audiences)),
      clock_(std::move(clock)) {
  if (api_audiences_.empty() && !issuers_.empty()) {
    api_audiences_ = {issuers_.front()};
  }
}

StatusOr<TokenVerifier> TokenVerifier::FromKeyFiles(
    const std::vector<std::string>& paths, std::vector<std::string> issuers,
    std::vector<std::string> api_audiences, UnixClock clock) {
  if (issuers.empty()) return InvalidArgumentError("no issuer given");
  std::vector<PKeyPtr> keys;
  for (const std::string& path : paths) {
    std::string pem;
    ASSIGN_OR_RETURN(pem, ReadKeyFile(path));
    StatusOr<std::vector<PKeyPtr>> parsed = ParsePublicKeysPem(pem);
    if (!parsed.ok()) {
      return parsed.status().WithPrefix("--service-account-key-file " + path);
    }
    for (PKeyPtr& key : *parsed) keys.push_back(std::move(key));
  }
  if (keys.empty()) return InvalidArgumentError("no verification key given");
  return TokenVerifier(std::move(keys), std::move(issuers),
                       std::move(api_audiences), std::move(clock));
}

bool TokenVerifier::IsOurIssuer(std::string_view issuer) const {
  return std::find(issuers_.begin(), issuers_.end(), issuer) != issuers_.end();
}

std::optional<std::string> TokenVerifier::PeekIssuer(std::string_view token) {
  std::optional<JwsParts> parts = SplitJws(token);
  if (!parts.has_value()) return std::nullopt;
  std::optional<Json> payload = DecodeJsonPart(parts->payload);
  if (!payload.has_value()) return std::nullopt;
  auto issuer = payload->find("iss");
  if (issuer == payload->end() || !issuer->is_string()) return std::nullopt;
  return issuer->get<std::string>();
}

Status TokenVerifier::CheckSignature(std::string_view token) const {
  const JwsParts parts = *SplitJws(token);
  std::optional<Json> header = DecodeJsonPart(parts.header);
  if (!header.has_value() || !header->contains("alg") ||
      !(*header)["alg"].is_string()) {
    return InvalidArgumentError("the token header does not parse");
  }
  const std::string algorithm = (*header)["alg"].get<std::string>();
  std::optional<std::string> signature = Base64UrlDecode(parts.signature);
  if (!signature.has_value()) {
    return InvalidArgumentError("the token signature is not base64url");
  }
  for (const PKeyPtr& key : keys_) {
    if (JwsVerify(key.get(), algorithm, parts.signing_input, *signature)) {
      return OkStatus();
    }
  }
  return InvalidArgumentError(
      "the token signature does not verify with any service account key");
}

Status TokenVerifier::CheckTimes(const ServiceAccountClaims& claims) const {
  const int64_t now = clock_();
  if (claims.expiry != 0 && now - kClockLeewaySeconds > claims.expiry) {
    return InvalidArgumentError("service account token has expired");
  }
  if (claims.not_before != 0 && now + kClockLeewaySeconds < claims.not_before) {
    return InvalidArgumentError("service account token is not valid yet");
  }
  if (claims.issued_at != 0 && now + kClockLeewaySeconds < claims.issued_at) {
    return InvalidArgumentError(
        "service account token is issued in the future");
  }
  return OkStatus();
}

VerifiedToken TokenVerifier::Verify(std::string_view token) const {
  std::optional<std::string> issuer = PeekIssuer(token);
  if (!issuer.has_value() || !IsOurIssuer(*issuer)) return {};
  if (Status signature = CheckSignature(token); !signature.ok()) {
    return Rejected(signature.message());
  }
  std::optional<Json> payload = DecodeJsonPart(SplitJws(token)->payload);
  StatusOr<ServiceAccountClaims> claims =
      ServiceAccountClaims::FromJson(*payload);
  if (!claims.ok()) return Rejected(claims.status().message());
  if (Status times = CheckTimes(*claims); !times.ok()) {
    return Rejected(times.message());
  }
  // A token without audiences is a legacy token, valid for the API
  // server's audiences.
  std::vector<std::string> token_audiences = claims->audiences;
  if (token_audiences.empty()) token_audiences = api_audiences_;
  VerifiedToken result;
  for (const std::string& audience : token_audiences) {
    if (std::find(api_audiences_.begin(), api_audiences_.end(), audience) !=
        api_audiences_.end()) {
      result.audiences.push_back(audience);
    }
  }
  if (result.audiences.empty()) {
    return Rejected(fmt::format(
        "token audiences [\"{}\"] is invalid for the target audiences "
        "[\"{}\"]",
        fmt::join(token_audiences, "\" \""),
        fmt::join(api_audiences_, "\" \"")));
  }
  result.outcome = VerifiedToken::Outcome::kVerified;
  result.claims = std::move(*claims);
  return result;
}

}  // namespace dralloc::serviceaccount
