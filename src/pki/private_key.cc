#include "pki/private_key.h"

#include <fmt/format.h>
#include <openssl/pem.h>

namespace dralloc::pki {

StatusOr<PrivateKey> PrivateKey::GenerateP256() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  if (key == nullptr) {
    return InternalError(OpenSslError("generating a P-256 key"));
  }
  return PrivateKey(EvpPkeyPtr(key));
}

StatusOr<PrivateKey> PrivateKey::FromPem(std::string_view pem,
                                         std::string_view source) {
  BioPtr bio = ReadOnlyBio(pem);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr);
  if (key == nullptr) {
    return InvalidArgumentError(
        OpenSslError(fmt::format("{}: no PEM private key", source)));
  }
  return PrivateKey(EvpPkeyPtr(key));
}

StatusOr<std::string> PrivateKey::PrivatePem() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_PrivateKey(bio.get(), key_.get(), nullptr, nullptr, 0,
                               nullptr, nullptr) != 1) {
    return InternalError(OpenSslError("writing a private key"));
  }
  return BioContents(bio.get());
}

StatusOr<std::string> PrivateKey::PublicPem() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_PUBKEY(bio.get(), key_.get()) != 1) {
    return InternalError(OpenSslError("writing a public key"));
  }
  return BioContents(bio.get());
}

}  // namespace dralloc::pki
