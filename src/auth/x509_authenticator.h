// X509Authenticator: authenticates TLS client certificates against the
// client CA (--client-ca-file), as upstream's x509 request authenticator
// with CommonNameUserConversion does: user = subject CN, groups = subject
// O values.
#ifndef DRALLOC_AUTH_X509_AUTHENTICATOR_H_
#define DRALLOC_AUTH_X509_AUTHENTICATOR_H_

#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "auth/authenticator.h"
#include "common/mutex.h"
#include "common/status.h"

// OpenSSL's certificate store, kept opaque here.
struct x509_store_st;
struct x509_store_ctx_st;

namespace dralloc::auth {

class X509Authenticator : public Authenticator {
 public:
  // Every certificate of the PEM bundle at `ca_path` is a trust anchor.
  // kNotFound: unreadable file; kInvalidArgument: no certificate in it.
  static StatusOr<std::unique_ptr<X509Authenticator>> FromCaFile(
      const std::string& ca_path);
  // The same from PEM text; `source` names it in errors.
  static StatusOr<std::unique_ptr<X509Authenticator>> FromCaPem(
      std::string_view ca_pem, std::string_view source);
  ~X509Authenticator() override;
  X509Authenticator(const X509Authenticator&) = delete;
  X509Authenticator& operator=(const X509Authenticator&) = delete;

  // No client certificate: kNoCredentials. The leaf (first) certificate is
  // verified for client authentication (extendedKeyUsage clientAuth when
  // present) up to a CA of the bundle, the other certificates serving as
  // intermediates, at the current time. Failure: kRejected "verifying
  // certificate <subject> failed: x509: <reason>" with Go's wording where
  // it has one ("certificate has expired or is not yet valid: ...",
  // "certificate signed by unknown authority"). A verified certificate
  // without a common name is kNoCredentials, as upstream.
  AuthenticationResult Authenticate(
      const Credentials& credentials) const override;

 private:
  explicit X509Authenticator(x509_store_st* store) : store_(store) {}
  // A chain verified earlier: its user while every certificate of the
  // verified path is within its validity period. Verifying a chain costs a
  // signature check per certificate (about a millisecond), and a client
  // presents the same chain on every request; the trust anchors never change
  // after construction, so a verified chain stays verified until a
  // certificate of its path expires.
  struct VerifiedChain {
    UserInfo user;
    bool has_user = false;  // false: verified, but without a common name
    std::time_t not_before = 0;
    std::time_t not_after = 0;
  };
  static VerifiedChain ValidityOf(x509_store_ctx_st* context);
  // The user of a chain verified earlier and still valid at `now`.
  const VerifiedChain* Cached(const std::string& key, std::time_t now) const
      REQUIRES(cache_mu_);
  void Remember(std::string key, VerifiedChain verified) const
      EXCLUDES(cache_mu_);

  x509_store_st* store_;  // owned; X509_STORE is safe for concurrent verify
  // Bounded: emptied when it reaches kMaxCachedChains.
  static constexpr size_t kMaxCachedChains = 4096;
  mutable Mutex cache_mu_;
  mutable std::unordered_map<std::string, VerifiedChain> cache_
      GUARDED_BY(cache_mu_);
};

}  // namespace dralloc::auth

#endif  // DRALLOC_AUTH_X509_AUTHENTICATOR_H_
