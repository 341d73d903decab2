// TokenVerifier: checks a service-account token's signature against the
// API server's public keys (--service-account-key-file, any number), its
// issuer (--service-account-issuer, any of them), its audiences against the
// API server's (--api-audiences) and its time claims (exp, nbf, iat, with
// go-jose's one-minute leeway), as upstream's jwtTokenAuthenticator does
// before the service-account lookups (ServiceAccountAuthenticator does
// those).
#ifndef DRALLOC_SERVICEACCOUNT_TOKEN_VERIFIER_H_
#define DRALLOC_SERVICEACCOUNT_TOKEN_VERIFIER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "serviceaccount/pem_keys.h"
#include "serviceaccount/service_account_claims.h"

namespace dralloc::serviceaccount {

// The current time in Unix seconds (injectable for tests).
using UnixClock = std::function<int64_t()>;
UnixClock SystemUnixClock();

// The leeway go-jose grants on exp, nbf and iat.
inline constexpr int64_t kClockLeewaySeconds = 60;

struct VerifiedToken {
  enum class Outcome {
    // Not a JWT, or one of another issuer: another authenticator may know
    // it.
    kNotMine,
    kVerified,
    // A token of ours that fails: bad signature, expired, wrong audience.
    kRejected,
  };
  Outcome outcome = Outcome::kNotMine;
  ServiceAccountClaims claims;
  // The token's audiences that are the API server's (for kVerified).
  std::vector<std::string> audiences;
  std::string error;  // why, for kRejected
};

class TokenVerifier {
 public:
  // `issuers` must not be empty; the first one is what TokenRequests are
  // issued with. `api_audiences` empty means the first issuer (upstream's
  // default for --api-audiences).
  TokenVerifier(std::vector<PKeyPtr> keys, std::vector<std::string> issuers,
                std::vector<std::string> api_audiences,
                UnixClock clock = SystemUnixClock());

  // Reads every public key of every file (PEM; public keys, certificates
  // or private keys).
  static StatusOr<TokenVerifier> FromKeyFiles(
      const std::vector<std::string>& paths, std::vector<std::string> issuers,
      std::vector<std::string> api_audiences,
      UnixClock clock = SystemUnixClock());

  // Thread-safe.
  VerifiedToken Verify(std::string_view token) const;

  const std::vector<std::string>& api_audiences() const {
    return api_audiences_;
  }
  const std::vector<std::string>& issuers() const { return issuers_; }
  int64_t Now() const { return clock_(); }

 private:
  bool IsOurIssuer(std::string_view issuer) const;
  // The `iss` of an unverified token, or nullopt when it is no JWT.
  static std::optional<std::string> PeekIssuer(std::string_view token);
  Status CheckSignature(std::string_view token) const;
  Status CheckTimes(const ServiceAccountClaims& claims) const;

  std::vector<PKeyPtr> keys_;
  std::vector<std::string> issuers_;
  std::vector<std::string> api_audiences_;
  UnixClock clock_;
};

}  // namespace dralloc::serviceaccount

#endif  // DRALLOC_SERVICEACCOUNT_TOKEN_VERIFIER_H_
