// TokenRequestHandler: the `token` subresource of ServiceAccounts
// (POST /api/v1/namespaces/NS/serviceaccounts/NAME/token, an
// authentication.k8s.io/v1 TokenRequest; `kubectl create token`), as
// upstream's pkg/registry/core/serviceaccount/storage/token.go:
//
//   - spec.audiences defaults to the API server's audiences,
//     spec.expirationSeconds to 3600; less than 600 or more than 2^32 is
//     invalid (422); more than the configured maximum is shortened to it;
//   - spec.boundObjectRef may name a Pod (running as this service account),
//     a Secret or a Node; another kind is a 400, a missing object a 404, a
//     uid that differs from the stored one a 409;
//   - a pod-bound token also names the pod's node (its uid when the node
//     exists), as upstream's ServiceAccountTokenPodNodeInfo does.
#ifndef DRALLOC_SERVICEACCOUNT_TOKEN_REQUEST_HANDLER_H_
#define DRALLOC_SERVICEACCOUNT_TOKEN_REQUEST_HANDLER_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "serviceaccount/object_lookup.h"
#include "serviceaccount/token_signer.h"
#include "serviceaccount/token_verifier.h"

namespace dralloc::serviceaccount {

// The HTTP answer: 201 with the TokenRequest, or an error code with a
// meta/v1 Status body (kind Status, reason, message, details), shaped as
// upstream's.
struct TokenRequestResponse {
  int code = 201;
  nlohmann::ordered_json body;
};

struct TokenRequestOptions {
  // The API server's audiences (--api-audiences; the issuer when unset).
  std::vector<std::string> api_audiences;
  // --service-account-max-token-expiration in seconds; 0: no maximum.
  int64_t max_expiration_seconds = 0;
  UnixClock clock = SystemUnixClock();
  // The `jti` of each token (a random UUID by default).
  std::function<std::string()> new_token_id;
};

class TokenRequestHandler {
 public:
  // `signer` and `lookup` must outlive the handler.
  TokenRequestHandler(const TokenSigner& signer, const ObjectLookup& lookup,
                      TokenRequestOptions options);

  // `body` is the request's JSON (an authentication.k8s.io/v1
  // TokenRequest); `namespace_` and `name` come from the URL. Thread-safe.
  TokenRequestResponse Handle(std::string_view namespace_,
                              std::string_view name,
                              std::string_view body) const;

 private:
  const TokenSigner& signer_;
  const ObjectLookup& lookup_;
  TokenRequestOptions options_;
};

}  // namespace dralloc::serviceaccount

#endif  // DRALLOC_SERVICEACCOUNT_TOKEN_REQUEST_HANDLER_H_
