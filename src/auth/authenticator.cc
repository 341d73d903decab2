#include "auth/authenticator.h"

#include <algorithm>

namespace dralloc::auth {

AuthenticationResult UnionAuthenticator::Authenticate(
    const Credentials& credentials) const {
  std::string errors;
  bool rejected = false;
  for (const auto& authenticator : chain_) {
    AuthenticationResult result = authenticator->Authenticate(credentials);
    using Outcome = AuthenticationResult::Outcome;
    if (result.outcome == Outcome::kAuthenticated) {
      std::vector<std::string>& groups = result.user.groups;
      const bool anonymous = result.user.name == kAnonymousUser;
      if (!anonymous && std::find(groups.begin(), groups.end(),
                                  kAllAuthenticated) == groups.end()) {
        groups.emplace_back(kAllAuthenticated);
      }
      return result;
    }
    if (result.outcome == Outcome::kRejected) {
      rejected = true;
      if (!errors.empty()) errors += "; ";
      errors += result.error;
    }
  }
  const bool presented = credentials.has_authorization_header ||
                         !credentials.client_certificates_der.empty();
  if (!rejected && allow_anonymous_) {
    return AuthenticationResult::Authenticated(
        UserInfo{.name = std::string(kAnonymousUser),
                 .uid = "",
                 .groups = {std::string(kAllUnauthenticated)},
                 .extra = {}});
  }
  if (!rejected) {
    errors = presented ? "credentials not recognised" : "no credentials";
  }
  return AuthenticationResult::Rejected(errors);
}

}  // namespace dralloc::auth
