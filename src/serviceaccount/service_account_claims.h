// ServiceAccountClaims: the claims of a service-account token, public
// (`iss`, `sub`, `aud`, `exp`, `iat`, `nbf`, `jti`) and private
// (`kubernetes.io`: namespace, serviceaccount, and the pod, secret or node it
// is bound to), as upstream's pkg/serviceaccount/claims.go writes them.
#ifndef DRALLOC_SERVICEACCOUNT_SERVICE_ACCOUNT_CLAIMS_H_
#define DRALLOC_SERVICEACCOUNT_SERVICE_ACCOUNT_CLAIMS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "auth/user_info.h"
#include "common/status.h"

namespace dralloc::serviceaccount {

// Extra keys of a service account's UserInfo (upstream's
// apiserver/pkg/authentication/serviceaccount).
inline constexpr std::string_view kExtraPodName =
    "authentication.kubernetes.io/pod-name";
inline constexpr std::string_view kExtraPodUid =
    "authentication.kubernetes.io/pod-uid";
inline constexpr std::string_view kExtraNodeUid =
    "authentication.kubernetes.io/node-uid";
inline constexpr std::string_view kExtraCredentialId =
    "authentication.kubernetes.io/credential-id";

// A name and uid in the private claims ({"name": ..., "uid": ...}).
struct ObjectRef {
  std::string name;
  std::string uid;
  friend bool operator==(const ObjectRef&, const ObjectRef&) = default;
};

struct ServiceAccountClaims {
  std::string issuer;
  std::vector<std::string> audiences;
  int64_t expiry = 0;      // Unix seconds
  int64_t issued_at = 0;   // Unix seconds
  int64_t not_before = 0;  // Unix seconds
  std::string id;          // jti
  std::string namespace_;
  ObjectRef service_account;
  std::optional<ObjectRef> pod;
  std::optional<ObjectRef> secret;
  // The node a pod-bound token's pod runs on, or the node a token is bound
  // to.
  std::optional<ObjectRef> node;

  // `sub`: system:serviceaccount:<namespace>:<name>.
  std::string Subject() const;
  // The JWT payload.
  nlohmann::json ToJson() const;
  // Reads a payload; kInvalidArgument when a claim has the wrong type or the
  // kubernetes.io claims are missing. `aud` may be a string or a list.
  static StatusOr<ServiceAccountClaims> FromJson(const nlohmann::json& json);

  friend bool operator==(const ServiceAccountClaims&,
                         const ServiceAccountClaims&) = default;
};

// system:serviceaccount:<namespace>:<name>.
std::string ServiceAccountUserName(std::string_view namespace_,
                                   std::string_view name);

// The user a verified token authenticates as (upstream's
// ServiceAccountInfo.UserInfo): the service account's name and uid, groups
// system:serviceaccounts and system:serviceaccounts:<ns>, and extra
// pod-name/pod-uid (both known), node-name/node-uid, credential-id
// ("JTI=<jti>").
auth::UserInfo UserInfoFor(const ServiceAccountClaims& claims);

}  // namespace dralloc::serviceaccount

#endif  // DRALLOC_SERVICEACCOUNT_SERVICE_ACCOUNT_CLAIMS_H_
