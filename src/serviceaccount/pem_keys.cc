#include "serviceaccount/pem_keys.h"

#include <fmt/format.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/base64.h"

namespace dralloc::serviceaccount {
namespace {

struct BioDeleter {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using BioPtr = std::unique_ptr<BIO, BioDeleter>;

BioPtr MemoryBio(std::string_view text) {
  return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

// One PEM block: its label ("PUBLIC KEY") and DER body.
struct PemBlock {
  std::string label;
  std::string der;
};

std::vector<PemBlock> ReadPemBlocks(std::string_view pem) {
  std::vector<PemBlock> blocks;
  BioPtr bio = MemoryBio(pem);
  for (;;) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long length = 0;
    if (PEM_read_bio(bio.get(), &name, &header, &data, &length) != 1) break;
    blocks.push_back({name, std::string(reinterpret_cast<char*>(data),
                                        static_cast<size_t>(length))});
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_free(data);
  }
  ERR_clear_error();
  return blocks;
}

bool IsPrivateKeyLabel(std::string_view label) {
  return label == "PRIVATE KEY" || label == "RSA PRIVATE KEY" ||
         label == "EC PRIVATE KEY";
}

PKeyPtr DecodePrivateKey(const PemBlock& block) {
  const auto* der = reinterpret_cast<const unsigned char*>(block.der.data());
  const long size = static_cast<long>(block.der.size());
  if (block.label == "RSA PRIVATE KEY") {
    return PKeyPtr(d2i_PrivateKey(EVP_PKEY_RSA, nullptr, &der, size));
  }
  if (block.label == "EC PRIVATE KEY") {
    return PKeyPtr(d2i_PrivateKey(EVP_PKEY_EC, nullptr, &der, size));
  }
  return PKeyPtr(d2i_AutoPrivateKey(nullptr, &der, size));
}

PKeyPtr DecodePublicKey(const PemBlock& block) {
  const auto* der = reinterpret_cast<const unsigned char*>(block.der.data());
  const long size = static_cast<long>(block.der.size());
  if (block.label == "PUBLIC KEY") {
    return PKeyPtr(d2i_PUBKEY(nullptr, &der, size));
  }
  if (block.label == "RSA PUBLIC KEY") {
    return PKeyPtr(d2i_PublicKey(EVP_PKEY_RSA, nullptr, &der, size));
  }
  if (block.label == "CERTIFICATE") {
    X509* certificate = d2i_X509(nullptr, &der, size);
    if (certificate == nullptr) return nullptr;
    PKeyPtr key(X509_get_pubkey(certificate));
    X509_free(certificate);
    return key;
  }
  if (IsPrivateKeyLabel(block.label)) return DecodePrivateKey(block);
  return nullptr;
}

bool Supported(EVP_PKEY* key) { return JwsAlgorithmFor(key).ok(); }

}  // namespace

PKeyPtr ShareKey(EVP_PKEY* key) {
  EVP_PKEY_up_ref(key);
  return PKeyPtr(key);
}

StatusOr<PKeyPtr> ParsePrivateKeyPem(std::string_view pem) {
  for (const PemBlock& block : ReadPemBlocks(pem)) {
    if (!IsPrivateKeyLabel(block.label)) continue;
    PKeyPtr key = DecodePrivateKey(block);
    ERR_clear_error();
    if (key == nullptr) {
      return InvalidArgumentError(
          fmt::format("the {} block does not parse", block.label));
    }
    if (!Supported(key.get())) {
      return InvalidArgumentError(
          "only RSA and EC (P-256, P-384, P-521) keys can sign tokens");
    }
    return key;
  }
  return InvalidArgumentError(
      "data does not contain a valid RSA or ECDSA "
      "private key");
}

StatusOr<std::vector<PKeyPtr>> ParsePublicKeysPem(std::string_view pem) {
  std::vector<PKeyPtr> keys;
  for (const PemBlock& block : ReadPemBlocks(pem)) {
    PKeyPtr key = DecodePublicKey(block);
    ERR_clear_error();
    if (key != nullptr && Supported(key.get())) keys.push_back(std::move(key));
  }
  if (keys.empty()) {
    return InvalidArgumentError(
        "data does not contain any valid RSA or "
        "ECDSA public keys");
  }
  return keys;
}

StatusOr<std::string> ReadKeyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return NotFoundError(
        fmt::format("cannot read key file {}: {}", path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

StatusOr<std::string> JwsAlgorithmFor(EVP_PKEY* key) {
  switch (EVP_PKEY_base_id(key)) {
    case EVP_PKEY_RSA:
      return std::string("RS256");
    case EVP_PKEY_EC: {
      char curve[64] = {};
      size_t length = 0;
      if (EVP_PKEY_get_utf8_string_param(key, "group", curve, sizeof curve,
                                         &length) != 1) {
        break;
      }
      const std::string_view name(curve, length);
      if (name == "prime256v1" || name == "P-256") return std::string("ES256");
      if (name == "secp384r1" || name == "P-384") return std::string("ES384");
      if (name == "secp521r1" || name == "P-521") return std::string("ES512");
      break;
    }
    default:
      break;
  }
  return InvalidArgumentError(
      "unsupported key type: only RSA and EC keys on "
      "P-256, P-384 or P-521 are supported");
}

std::string KeyIdFor(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int length = i2d_PUBKEY(key, &der);
  if (length <= 0) return "";
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(der, static_cast<size_t>(length), digest);
  OPENSSL_free(der);
  return Base64Encode(
      std::string_view(reinterpret_cast<char*>(digest), sizeof digest),
      Base64Alphabet::kUrl, /*pad=*/false);
}

}  // namespace dralloc::serviceaccount
