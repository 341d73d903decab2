#include "serviceaccount/service_account_authenticator.h"

#include <fmt/format.h>

namespace dralloc::serviceaccount {
namespace {

constexpr char kInvalidated[] = "service account token has been invalidated";

Status Unauthorized(std::string message) {
  return InvalidArgumentError(std::move(message));
}

}  // namespace

auth::AuthenticationResult ServiceAccountAuthenticator::Authenticate(
    const auth::Credentials& credentials) const {
  if (credentials.bearer_token.empty()) return {};
  VerifiedToken verified = verifier_.Verify(credentials.bearer_token);
  switch (verified.outcome) {
    case VerifiedToken::Outcome::kNotMine:
      return {};
    case VerifiedToken::Outcome::kRejected:
      return auth::AuthenticationResult::Rejected(std::move(verified.error));
    case VerifiedToken::Outcome::kVerified:
      break;
  }
  if (Status objects = CheckObjects(verified.claims); !objects.ok()) {
    return auth::AuthenticationResult::Rejected(objects.message());
  }
  auth::AuthenticationResult result =
      auth::AuthenticationResult::Authenticated(UserInfoFor(verified.claims));
  result.audiences = std::move(verified.audiences);
  return result;
}

bool ServiceAccountAuthenticator::DeletedLongAgo(
    const ObjectRecord& record) const {
  return record.deletion_time.has_value() &&
         *record.deletion_time < verifier_.Now() - kClockLeewaySeconds;
}

Status ServiceAccountAuthenticator::CheckObjects(
    const ServiceAccountClaims& claims) const {
  RETURN_IF_ERROR(CheckServiceAccount(claims));
  return CheckBoundObjects(claims);
}

Status ServiceAccountAuthenticator::CheckServiceAccount(
    const ServiceAccountClaims& claims) const {
  const std::string& name = claims.service_account.name;
  std::optional<ObjectRecord> account =
      lookup_.ServiceAccount(claims.namespace_, name);
  if (!account.has_value()) {
    return Unauthorized(fmt::format("serviceaccounts \"{}\" not found", name));
  }
  if (DeletedLongAgo(*account)) {
    return Unauthorized(fmt::format("service account {}/{} has been deleted",
                                    claims.namespace_, name));
  }
  if (account->uid != claims.service_account.uid) {
    return Unauthorized(
        fmt::format("service account UID ({}) does not match claim ({})",
                    account->uid, claims.service_account.uid));
  }
  return OkStatus();
}

Status ServiceAccountAuthenticator::CheckBoundObjects(
    const ServiceAccountClaims& claims) const {
  if (claims.secret.has_value()) {
    std::optional<ObjectRecord> secret =
        lookup_.Secret(claims.namespace_, claims.secret->name);
    if (!secret.has_value() || DeletedLongAgo(*secret)) {
      return Unauthorized(kInvalidated);
    }
    if (secret->uid != claims.secret->uid) {
      return Unauthorized(fmt::format(
          "secret UID ({}) does not match service account secret ref claim "
          "({})",
          secret->uid, claims.secret->uid));
    }
  }
  if (claims.pod.has_value()) {
    std::optional<ObjectRecord> pod =
        lookup_.Pod(claims.namespace_, claims.pod->name);
    if (!pod.has_value() || DeletedLongAgo(*pod)) {
      return Unauthorized(kInvalidated);
    }
    if (pod->uid != claims.pod->uid) {
      return Unauthorized(fmt::format(
          "pod UID ({}) does not match service account pod ref claim ({})",
          pod->uid, claims.pod->uid));
    }
    // The node of a pod-bound token is information only.
    return OkStatus();
  }
  if (claims.node.has_value()) {
    std::optional<ObjectRecord> node = lookup_.Node(claims.node->name);
    if (!node.has_value()) return Unauthorized(kInvalidated);
    if (node->uid != claims.node->uid) {
      return Unauthorized(fmt::format(
          "node UID ({}) does not match service account node ref claim ({})",
          node->uid, claims.node->uid));
    }
  }
  return OkStatus();
}

}  // namespace dralloc::serviceaccount
