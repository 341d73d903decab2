// Authenticator: establishes who sent a request from its credentials
// (upstream's authenticator.Request), and UnionAuthenticator, the chain of
// the configured authenticators.
#ifndef DRALLOC_AUTH_AUTHENTICATOR_H_
#define DRALLOC_AUTH_AUTHENTICATOR_H_

#include <memory>
#include <string>
#include <vector>

#include "auth/user_info.h"

namespace dralloc::auth {

// The credentials a request carries.
struct Credentials {
  // The token of an "Authorization: Bearer <token>" header, as sent
  // (whitespace and case untouched: a token that only matches after
  // trimming does not match). Empty without that header.
  std::string bearer_token;
  bool has_authorization_header = false;
  // The client's certificate chain from the TLS handshake, DER, leaf
  // first; not yet verified (the x509 authenticator verifies it against
  // the client CA, so that a bad certificate is a 401, as upstream).
  std::vector<std::string> client_certificates_der;
};

struct AuthenticationResult {
  enum class Outcome {
    kNoCredentials,  // nothing this authenticator understands
    kAuthenticated,
    kRejected,  // credentials it understands but refuses (401)
  };
  Outcome outcome = Outcome::kNoCredentials;
  UserInfo user;
  // The audiences a token was issued for (SelfSubjectReview shows none).
  std::vector<std::string> audiences;
  // Why credentials were rejected (logged, never sent to the client:
  // upstream answers "Unauthorized" alone).
  std::string error;

  static AuthenticationResult Authenticated(UserInfo user) {
    AuthenticationResult result;
    result.outcome = Outcome::kAuthenticated;
    result.user = std::move(user);
    return result;
  }
  static AuthenticationResult Rejected(std::string error) {
    AuthenticationResult result;
    result.outcome = Outcome::kRejected;
    result.error = std::move(error);
    return result;
  }
};

class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // Thread-safe: called from every request thread.
  virtual AuthenticationResult Authenticate(
      const Credentials& credentials) const = 0;
};

// Asks each authenticator in order; the first kAuthenticated wins. A
// request some authenticator rejected and none authenticated is rejected
// (401), even with anonymous access on (upstream's FailOnError). A request
// with no credentials is `system:anonymous` in `system:unauthenticated` when
// anonymous access is on, else rejected. Every authenticated user gets the
// group system:authenticated added, as upstream does.
class UnionAuthenticator : public Authenticator {
 public:
  UnionAuthenticator(std::vector<std::unique_ptr<Authenticator>> chain,
                     bool allow_anonymous)
      : chain_(std::move(chain)), allow_anonymous_(allow_anonymous) {}
  AuthenticationResult Authenticate(
      const Credentials& credentials) const override;

 private:
  std::vector<std::unique_ptr<Authenticator>> chain_;
  bool allow_anonymous_;
};

}  // namespace dralloc::auth

#endif  // DRALLOC_AUTH_AUTHENTICATOR_H_
