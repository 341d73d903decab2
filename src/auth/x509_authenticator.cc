#include "auth/x509_authenticator.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace dralloc::auth {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* handle) const { Free(handle); }
};
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using StoreCtxPtr =
    std::unique_ptr<X509_STORE_CTX,
                    Deleter<X509_STORE_CTX, X509_STORE_CTX_free>>;
void FreeCertificateStack(STACK_OF(X509) * stack) {
  sk_X509_pop_free(stack, X509_free);
}
using X509StackPtr =
    std::unique_ptr<STACK_OF(X509),
                    Deleter<STACK_OF(X509), FreeCertificateStack>>;

X509Ptr ParseDer(const std::string& der) {
  const unsigned char* data =
      reinterpret_cast<const unsigned char*>(der.data());
  return X509Ptr(d2i_X509(nullptr, &data, static_cast<long>(der.size())));
}

// Every entry of `nid` in `name`, UTF-8, in order.
std::vector<std::string> NameEntries(const X509_NAME* name, int nid) {
  std::vector<std::string> values;
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(name, nid, i)) {
    const ASN1_STRING* data =
        X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
    unsigned char* utf8 = nullptr;
    const int size = ASN1_STRING_to_UTF8(&utf8, data);
    if (size < 0) continue;
    values.emplace_back(reinterpret_cast<char*>(utf8),
                        static_cast<size_t>(size));
    OPENSSL_free(utf8);
  }
  return values;
}

// RFC 3339 UTC, as Go prints times in x509 errors.
std::string FormatTime(const ASN1_TIME* time) {
  std::tm tm{};
  if (time == nullptr || ASN1_TIME_to_tm(time, &tm) != 1) return "?";
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string Now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

// Go's crypto/x509 wording for the failures it names, OpenSSL's otherwise.
std::string VerifyErrorText(int error, X509* failed) {
  switch (error) {
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return fmt::format(
          "certificate has expired or is not yet valid: current time {} is "
          "after {}",
          Now(), FormatTime(X509_get0_notAfter(failed)));
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return fmt::format(
          "certificate has expired or is not yet valid: current time {} is "
          "before {}",
          Now(), FormatTime(X509_get0_notBefore(failed)));
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:
      return fmt::format("certificate signed by unknown authority ({})",
                         X509_verify_cert_error_string(error));
    case X509_V_ERR_INVALID_PURPOSE:
      return "certificate specifies an incompatible key usage";
    default:
      return X509_verify_cert_error_string(error);
  }
}

// "SN=<serial>, CN=<name>" of `certificate`, naming it in errors.
std::string Describe(X509* certificate) {
  std::string serial = "?";
  if (BIGNUM* number =
          ASN1_INTEGER_to_BN(X509_get0_serialNumber(certificate), nullptr)) {
    if (char* decimal = BN_bn2dec(number)) {
      serial = decimal;
      OPENSSL_free(decimal);
    }
    BN_free(number);
  }
  const std::vector<std::string> names =
      NameEntries(X509_get_subject_name(certificate), NID_commonName);
  return fmt::format("SN={}, CN={}", serial, names.empty() ? "" : names.back());
}

// Seconds since the epoch of an ASN.1 time; 0 when it does not convert.
std::time_t EpochOf(const ASN1_TIME* time) {
  std::tm tm{};
  if (time == nullptr || ASN1_TIME_to_tm(time, &tm) != 1) return 0;
  return timegm(&tm);
}

}  // namespace

X509Authenticator::~X509Authenticator() { X509_STORE_free(store_); }

StatusOr<std::unique_ptr<X509Authenticator>> X509Authenticator::FromCaFile(
    const std::string& ca_path) {
  std::ifstream in(ca_path, std::ios::binary);
  if (!in) {
    return NotFoundError(
        fmt::format("--client-ca-file: cannot read {}", ca_path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return FromCaPem(text.str(), ca_path);
}

StatusOr<std::unique_ptr<X509Authenticator>> X509Authenticator::FromCaPem(
    std::string_view ca_pem, std::string_view source) {
  std::unique_ptr<X509Authenticator> authenticator(
      new X509Authenticator(X509_STORE_new()));
  BioPtr bio(BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size())));
  int count = 0;
  while (X509Ptr ca =
             X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr))) {
    if (X509_STORE_add_cert(authenticator->store_, ca.get()) != 1) {
      ERR_clear_error();
      continue;  // the same CA twice
    }
    ++count;
  }
  ERR_clear_error();  // the end of the bundle reads as an error
  if (count == 0) {
    return InvalidArgumentError(
        fmt::format("--client-ca-file: {} holds no PEM certificate", source));
  }
  return authenticator;
}

// The window in which every certificate of the verified path is valid.
X509Authenticator::VerifiedChain X509Authenticator::ValidityOf(
    x509_store_ctx_st* context) {
  VerifiedChain verified;
  verified.not_after = std::numeric_limits<std::time_t>::max();
  STACK_OF(X509)* path = X509_STORE_CTX_get0_chain(context);
  const int length = path != nullptr ? sk_X509_num(path) : 0;
  if (length == 0) verified.not_after = 0;  // nothing to trust: no caching
  for (int i = 0; i < length; ++i) {
    const X509* certificate = sk_X509_value(path, i);
    verified.not_before = std::max(verified.not_before,
                                   EpochOf(X509_get0_notBefore(certificate)));
    verified.not_after =
        std::min(verified.not_after, EpochOf(X509_get0_notAfter(certificate)));
  }
  return verified;
}

const X509Authenticator::VerifiedChain* X509Authenticator::Cached(
    const std::string& key, std::time_t now) const {
  auto it = cache_.find(key);
  if (it == cache_.end()) return nullptr;
  if (now < it->second.not_before || now > it->second.not_after) {
    cache_.erase(it);
    return nullptr;
  }
  return &it->second;
}

void X509Authenticator::Remember(std::string key,
                                 VerifiedChain verified) const {
  MutexLock lock(cache_mu_);
  if (cache_.size() >= kMaxCachedChains) cache_.clear();
  cache_.insert_or_assign(std::move(key), std::move(verified));
}

AuthenticationResult X509Authenticator::Authenticate(
    const Credentials& credentials) const {
  const std::vector<std::string>& chain = credentials.client_certificates_der;
  if (chain.empty()) return AuthenticationResult();
  std::string key;
  for (const std::string& der : chain) {
    key += std::to_string(der.size());
    key += ':';
    key += der;
  }
  const std::time_t now = std::time(nullptr);
  {
    MutexLock lock(cache_mu_);
    if (const VerifiedChain* verified = Cached(key, now)) {
      if (!verified->has_user) return AuthenticationResult();
      return AuthenticationResult::Authenticated(verified->user);
    }
  }
  X509Ptr leaf = ParseDer(chain.front());
  if (!leaf) {
    ERR_clear_error();
    return AuthenticationResult::Rejected(
        "verifying certificate failed: x509: malformed certificate");
  }
  X509StackPtr intermediates(sk_X509_new_null());
  for (size_t i = 1; i < chain.size(); ++i) {
    X509Ptr intermediate = ParseDer(chain[i]);
    if (intermediate && sk_X509_push(intermediates.get(), intermediate.get())) {
      intermediate.release();
    }
  }
  ERR_clear_error();
  StoreCtxPtr context(X509_STORE_CTX_new());
  if (!context || X509_STORE_CTX_init(context.get(), store_, leaf.get(),
                                      intermediates.get()) != 1) {
    ERR_clear_error();
    return AuthenticationResult::Rejected(
        "verifying certificate failed: cannot start verification");
  }
  X509_STORE_CTX_set_purpose(context.get(), X509_PURPOSE_SSL_CLIENT);
  if (X509_verify_cert(context.get()) != 1) {
    const int error = X509_STORE_CTX_get_error(context.get());
    X509* failed = X509_STORE_CTX_get_current_cert(context.get());
    ERR_clear_error();
    return AuthenticationResult::Rejected(fmt::format(
        "verifying certificate {} failed: x509: {}", Describe(leaf.get()),
        VerifyErrorText(error, failed != nullptr ? failed : leaf.get())));
  }
  VerifiedChain verified = ValidityOf(context.get());
  const X509_NAME* subject = X509_get_subject_name(leaf.get());
  std::vector<std::string> common_names = NameEntries(subject, NID_commonName);
  verified.has_user = !common_names.empty() && !common_names.back().empty();
  if (verified.has_user) {
    verified.user =
        UserInfo{.name = common_names.back(),
                 .uid = "",
                 .groups = NameEntries(subject, NID_organizationName),
                 .extra = {}};
  }
  AuthenticationResult result =
      verified.has_user ? AuthenticationResult::Authenticated(verified.user)
                        : AuthenticationResult();
  Remember(std::move(key), std::move(verified));
  return result;
}

}  // namespace dralloc::auth
