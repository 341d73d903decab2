// TokenSigner: issues service-account tokens, compact JWS (JWT) signed with
// the API server's private key (--service-account-signing-key-file): ES256,
// ES384 or ES512 for EC keys, RS256 for RSA keys, with the key id upstream
// writes (see pem_keys.h), as upstream's pkg/serviceaccount/jwt.go.
#ifndef DRALLOC_SERVICEACCOUNT_TOKEN_SIGNER_H_
#define DRALLOC_SERVICEACCOUNT_TOKEN_SIGNER_H_

#include <string>
#include <string_view>

#include "common/status.h"
#include "serviceaccount/pem_keys.h"
#include "serviceaccount/service_account_claims.h"

namespace dralloc::serviceaccount {

// The issuer when --service-account-issuer is not given.
inline constexpr std::string_view kDefaultIssuer =
    "https://kubernetes.default.svc.cluster.local";

class TokenSigner {
 public:
  // `key` must be an RSA or supported EC private key.
  static StatusOr<TokenSigner> Create(PKeyPtr key, std::string issuer);
  // Reads the private key from a PEM file.
  static StatusOr<TokenSigner> FromKeyFile(const std::string& path,
                                           std::string issuer);

  // The signed token of `claims`, with `iss` set to this signer's issuer.
  // Thread-safe.
  StatusOr<std::string> Sign(ServiceAccountClaims claims) const;

  const std::string& issuer() const { return issuer_; }
  const std::string& algorithm() const { return algorithm_; }
  // The private key (its public half verifies what this signer signs).
  EVP_PKEY* key() const { return key_.get(); }

 private:
  TokenSigner(PKeyPtr key, std::string issuer, std::string algorithm);

  PKeyPtr key_;
  std::string issuer_;
  std::string algorithm_;
  std::string key_id_;
};

}  // namespace dralloc::serviceaccount

#endif  // DRALLOC_SERVICEACCOUNT_TOKEN_SIGNER_H_
