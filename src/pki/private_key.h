// PrivateKey: an ECDSA P-256 key pair (the key type of every certificate
// and of the service-account signing key dralloc_pki makes), and PEM in
// and out.
//
// P-256 rather than kubeadm's RSA 2048: a P-256 signature costs the server
// a small fraction of an RSA 2048 one in every TLS handshake, keys are
// generated instantly, and Go's TLS stack (kubectl), OpenSSL and
// upstream's service-account token code (ES256) all accept it.
#ifndef DRALLOC_PKI_PRIVATE_KEY_H_
#define DRALLOC_PKI_PRIVATE_KEY_H_

#include <string>
#include <string_view>

#include "common/status.h"
#include "pki/openssl_handles.h"

namespace dralloc::pki {

class PrivateKey {
 public:
  static StatusOr<PrivateKey> GenerateP256();
  // Any key OpenSSL reads from PEM (PKCS#8, SEC1 "EC PRIVATE KEY",
  // PKCS#1 RSA); `source` names it in errors.
  static StatusOr<PrivateKey> FromPem(std::string_view pem,
                                      std::string_view source);

  // PKCS#8 "PRIVATE KEY" PEM.
  StatusOr<std::string> PrivatePem() const;
  // SubjectPublicKeyInfo "PUBLIC KEY" PEM.
  StatusOr<std::string> PublicPem() const;

  EVP_PKEY* get() const { return key_.get(); }

 private:
  explicit PrivateKey(EvpPkeyPtr key) : key_(std::move(key)) {}
  EvpPkeyPtr key_;
};

}  // namespace dralloc::pki

#endif  // DRALLOC_PKI_PRIVATE_KEY_H_
