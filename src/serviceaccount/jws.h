// The JWS compact serialization primitives shared by TokenSigner and
// TokenVerifier: signing and verifying "<header>.<payload>" with RS256 and
// ES256/384/512 (EC signatures in the raw R||S form JWS prescribes, not
// DER), and splitting a token into its parts.
#ifndef DRALLOC_SERVICEACCOUNT_JWS_H_
#define DRALLOC_SERVICEACCOUNT_JWS_H_

#include <openssl/evp.h>

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dralloc::serviceaccount {

// The signature of `signing_input` with private `key` under `algorithm`
// (as JwsAlgorithmFor names it), not yet base64url-encoded.
StatusOr<std::string> JwsSign(EVP_PKEY* key, std::string_view algorithm,
                              std::string_view signing_input);

// True if `signature` (decoded) is `key`'s signature of `signing_input`
// under `algorithm`. False for any mismatch, including an algorithm that
// does not fit the key.
bool JwsVerify(EVP_PKEY* key, std::string_view algorithm,
               std::string_view signing_input, std::string_view signature);

// The three dot-separated parts of a compact JWS, still encoded.
struct JwsParts {
  std::string_view header;
  std::string_view payload;
  std::string_view signature;
  // "<header>.<payload>": what the signature covers.
  std::string_view signing_input;
};

// nullopt unless `token` is three non-empty base64url parts.
std::optional<JwsParts> SplitJws(std::string_view token);

// base64url without padding (RFC 7515), as JWS uses it.
std::string Base64UrlEncode(std::string_view data);
std::optional<std::string> Base64UrlDecode(std::string_view text);

}  // namespace dralloc::serviceaccount

#endif  // DRALLOC_SERVICEACCOUNT_JWS_H_
