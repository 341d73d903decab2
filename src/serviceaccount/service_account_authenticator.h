// ServiceAccountAuthenticator: authenticates bearer service-account tokens
// (upstream's jwtTokenAuthenticator with the service-account validator).
//
// A token that is no JWT, or a JWT of another issuer, is kNoCredentials, so
// that the next authenticator (the token file) may know it. A token of ours
// is kRejected when its signature, audience or times fail, or when the
// ServiceAccount it names, or the pod, secret or node it is bound to, no
// longer exists with the uid in the token (or was deleted more than the
// one-minute leeway ago); else the service account's user is authenticated
// (see UserInfoFor).
#ifndef DRALLOC_SERVICEACCOUNT_SERVICE_ACCOUNT_AUTHENTICATOR_H_
#define DRALLOC_SERVICEACCOUNT_SERVICE_ACCOUNT_AUTHENTICATOR_H_

#include <memory>

#include "auth/authenticator.h"
#include "serviceaccount/object_lookup.h"
#include "serviceaccount/token_verifier.h"

namespace dralloc::serviceaccount {

class ServiceAccountAuthenticator : public auth::Authenticator {
 public:
  // `verifier` and `lookup` must outlive this authenticator.
  ServiceAccountAuthenticator(const TokenVerifier& verifier,
                              const ObjectLookup& lookup)
      : verifier_(verifier), lookup_(lookup) {}

  auth::AuthenticationResult Authenticate(
      const auth::Credentials& credentials) const override;

 private:
  // Why the objects of `claims` no longer back the token; OK when they do.
  Status CheckObjects(const ServiceAccountClaims& claims) const;
  Status CheckServiceAccount(const ServiceAccountClaims& claims) const;
  Status CheckBoundObjects(const ServiceAccountClaims& claims) const;
  bool DeletedLongAgo(const ObjectRecord& record) const;

  const TokenVerifier& verifier_;
  const ObjectLookup& lookup_;
};

}  // namespace dralloc::serviceaccount

#endif  // DRALLOC_SERVICEACCOUNT_SERVICE_ACCOUNT_AUTHENTICATOR_H_
