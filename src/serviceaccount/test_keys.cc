#include "serviceaccount/test_keys.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstring>
#include <stdexcept>

namespace dralloc::serviceaccount::testing {
namespace {

std::string BioText(BIO* bio) {
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio, &data);
  std::string text(data, static_cast<size_t>(length));
  BIO_free(bio);
  return text;
}

}  // namespace

TestKeyPair NewTestKeyPair(const std::string& type) {
  EVP_PKEY* key = type == "RSA"
                      ? EVP_RSA_gen(2048)
                      : EVP_EC_gen(type == "P-384" ? "P-384" : "P-256");
  if (key == nullptr) throw std::runtime_error("key generation failed");
  BIO* private_bio = BIO_new(BIO_s_mem());
  BIO* public_bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(private_bio, key, nullptr, nullptr, 0, nullptr,
                           nullptr);
  PEM_write_bio_PUBKEY(public_bio, key);
  EVP_PKEY_free(key);
  return {BioText(private_bio), BioText(public_bio)};
}

}  // namespace dralloc::serviceaccount::testing
