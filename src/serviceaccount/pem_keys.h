// PEM keys for service-account tokens: the private key that signs them
// (--service-account-signing-key-file) and the public keys that verify them
// (--service-account-key-file), as upstream's keyutil reads them.
#ifndef DRALLOC_SERVICEACCOUNT_PEM_KEYS_H_
#define DRALLOC_SERVICEACCOUNT_PEM_KEYS_H_

#include <openssl/evp.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dralloc::serviceaccount {

struct PKeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using PKeyPtr = std::unique_ptr<EVP_PKEY, PKeyDeleter>;

// Shares ownership of `key` (one more reference to the same key).
PKeyPtr ShareKey(EVP_PKEY* key);

// The first private key (PKCS#8, PKCS#1 RSA or SEC1 EC) of `pem`.
// kInvalidArgument when it has none, or an unsupported one.
StatusOr<PKeyPtr> ParsePrivateKeyPem(std::string_view pem);

// Every key of `pem` usable for verification: public keys (PKIX or PKCS#1),
// the public halves of private keys, and the keys of certificates.
// kInvalidArgument when it has none.
StatusOr<std::vector<PKeyPtr>> ParsePublicKeysPem(std::string_view pem);

// The whole of the file at `path`; kNotFound/kInvalidArgument naming it.
StatusOr<std::string> ReadKeyFile(const std::string& path);

// The JWS algorithm for signing with `key`: RS256 for RSA, ES256/ES384/
// ES512 for EC keys on P-256/P-384/P-521. kInvalidArgument for other keys.
StatusOr<std::string> JwsAlgorithmFor(EVP_PKEY* key);

// The key id upstream puts in the JWT header: base64url (unpadded) of the
// SHA-256 of the public key's PKIX DER encoding.
std::string KeyIdFor(EVP_PKEY* key);

}  // namespace dralloc::serviceaccount

#endif  // DRALLOC_SERVICEACCOUNT_PEM_KEYS_H_
