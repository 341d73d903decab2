#include "serviceaccount/jws.h"

#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>

#include <memory>

#include "common/base64.h"
#include "serviceaccount/pem_keys.h"

namespace dralloc::serviceaccount {
namespace {

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxDeleter>;

struct EcdsaSigDeleter {
  void operator()(ECDSA_SIG* sig) const { ECDSA_SIG_free(sig); }
};
using EcdsaSigPtr = std::unique_ptr<ECDSA_SIG, EcdsaSigDeleter>;

const EVP_MD* DigestFor(std::string_view algorithm) {
  if (algorithm == "RS256" || algorithm == "ES256") return EVP_sha256();
  if (algorithm == "ES384") return EVP_sha384();
  if (algorithm == "ES512") return EVP_sha512();
  return nullptr;
}

// Bytes of each of R and S in a JWS EC signature.
size_t EcCoordinateSize(std::string_view algorithm) {
  if (algorithm == "ES256") return 32;
  if (algorithm == "ES384") return 48;
  return 66;  // ES512 (P-521)
}

bool IsEc(std::string_view algorithm) { return algorithm.starts_with("ES"); }

std::optional<std::string> DerToRaw(std::string_view der, size_t size) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(der.data());
  EcdsaSigPtr sig(
      d2i_ECDSA_SIG(nullptr, &bytes, static_cast<long>(der.size())));
  if (sig == nullptr) return std::nullopt;
  std::string raw(2 * size, '\0');
  auto* out = reinterpret_cast<unsigned char*>(raw.data());
  if (BN_bn2binpad(ECDSA_SIG_get0_r(sig.get()), out, static_cast<int>(size)) <
          0 ||
      BN_bn2binpad(ECDSA_SIG_get0_s(sig.get()), out + size,
                   static_cast<int>(size)) < 0) {
    return std::nullopt;
  }
  return raw;
}

std::optional<std::string> RawToDer(std::string_view raw, size_t size) {
  if (raw.size() != 2 * size) return std::nullopt;
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  BIGNUM* r = BN_bin2bn(bytes, static_cast<int>(size), nullptr);
  BIGNUM* s = BN_bin2bn(bytes + size, static_cast<int>(size), nullptr);
  EcdsaSigPtr sig(ECDSA_SIG_new());
  if (r == nullptr || s == nullptr || sig == nullptr ||
      ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return std::nullopt;
  }
  unsigned char* der = nullptr;
  const int length = i2d_ECDSA_SIG(sig.get(), &der);
  if (length <= 0) return std::nullopt;
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(length));
  OPENSSL_free(der);
  return out;
}

bool AlgorithmFitsKey(EVP_PKEY* key, std::string_view algorithm) {
  StatusOr<std::string> expected = JwsAlgorithmFor(key);
  return expected.ok() && *expected == algorithm;
}

}  // namespace

StatusOr<std::string> JwsSign(EVP_PKEY* key, std::string_view algorithm,
                              std::string_view signing_input) {
  const EVP_MD* digest = DigestFor(algorithm);
  if (digest == nullptr || !AlgorithmFitsKey(key, algorithm)) {
    return InvalidArgumentError("the signing key does not fit the algorithm");
  }
  MdCtxPtr ctx(EVP_MD_CTX_new());
  size_t length = 0;
  if (ctx == nullptr ||
      EVP_DigestSignInit(ctx.get(), nullptr, digest, nullptr, key) != 1 ||
      EVP_DigestSign(
          ctx.get(), nullptr, &length,
          reinterpret_cast<const unsigned char*>(signing_input.data()),
          signing_input.size()) != 1) {
    ERR_clear_error();
    return InternalError("cannot sign the token");
  }
  std::string signature(length, '\0');
  if (EVP_DigestSign(
          ctx.get(), reinterpret_cast<unsigned char*>(signature.data()),
          &length, reinterpret_cast<const unsigned char*>(signing_input.data()),
          signing_input.size()) != 1) {
    ERR_clear_error();
    return InternalError("cannot sign the token");
  }
  signature.resize(length);
  if (!IsEc(algorithm)) return signature;
  std::optional<std::string> raw =
      DerToRaw(signature, EcCoordinateSize(algorithm));
  if (!raw.has_value()) return InternalError("cannot encode the signature");
  return *raw;
}

bool JwsVerify(EVP_PKEY* key, std::string_view algorithm,
               std::string_view signing_input, std::string_view signature) {
  const EVP_MD* digest = DigestFor(algorithm);
  if (digest == nullptr || !AlgorithmFitsKey(key, algorithm)) return false;
  std::string der(signature);
  if (IsEc(algorithm)) {
    std::optional<std::string> converted =
        RawToDer(signature, EcCoordinateSize(algorithm));
    if (!converted.has_value()) return false;
    der = std::move(*converted);
  }
  MdCtxPtr ctx(EVP_MD_CTX_new());
  const bool ok =
      ctx != nullptr &&
      EVP_DigestVerifyInit(ctx.get(), nullptr, digest, nullptr, key) == 1 &&
      EVP_DigestVerify(
          ctx.get(), reinterpret_cast<const unsigned char*>(der.data()),
          der.size(),
          reinterpret_cast<const unsigned char*>(signing_input.data()),
          signing_input.size()) == 1;
  ERR_clear_error();
  return ok;
}

std::optional<JwsParts> SplitJws(std::string_view token) {
  const size_t first = token.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const size_t second = token.find('.', first + 1);
  if (second == std::string_view::npos ||
      token.find('.', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  JwsParts parts{.header = token.substr(0, first),
                 .payload = token.substr(first + 1, second - first - 1),
                 .signature = token.substr(second + 1),
                 .signing_input = token.substr(0, second)};
  if (parts.header.empty() || parts.payload.empty() ||
      parts.signature.empty()) {
    return std::nullopt;
  }
  return parts;
}

std::string Base64UrlEncode(std::string_view data) {
  return Base64Encode(data, Base64Alphabet::kUrl, /*pad=*/false);
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  return Base64Decode(text, {.alphabet = Base64Alphabet::kUrl,
                             .accept_padding = false,
                             .ignore_newlines = false,
                             .canonical = false});
}

}  // namespace dralloc::serviceaccount
