// AccessControl: who a request is from (authentication) and whether it may
// do what it asks (authorization), with the 401 and 403 answers
// kube-apiserver gives.
#ifndef DRALLOC_APISERVER_ACCESS_CONTROL_H_
#define DRALLOC_APISERVER_ACCESS_CONTROL_H_

#include <memory>
#include <optional>
#include <string_view>

#include "apiserver/api_error.h"
#include "apiserver/http_server.h"
#include "auth/authenticator.h"
#include "auth/authorizer.h"
#include "auth/request_attributes.h"

namespace dralloc::apiserver {

class AccessControl {
 public:
  // nullptr authenticator: every request is auth::LoopbackUser() (the
  // plain-HTTP development port). nullptr authorizer: everything allowed.
  AccessControl(std::shared_ptr<const auth::Authenticator> authenticator,
                std::shared_ptr<const auth::Authorizer> authorizer)
      : authenticator_(std::move(authenticator)),
        authorizer_(std::move(authorizer)) {}

  // The user of `request`, or 401 Unauthorized.
  ApiOr<auth::UserInfo> Authenticate(const HttpRequest& request) const;
  // nullopt when allowed; else 403 Forbidden with upstream's message
  // (`<resource>.<group> "<name>" is forbidden: User "<u>" cannot <verb>
  // resource ...`).
  std::optional<ApiError> Authorize(
      const auth::RequestAttributes& attributes) const;
  // The decision alone (SubjectAccessReview).
  auth::AuthorizationResult Decide(
      const auth::RequestAttributes& attributes) const;
  // The rules of `user` in `namespace_` (SelfSubjectRulesReview).
  auth::RuleSet RulesFor(const auth::UserInfo& user,
                         std::string_view namespace_) const;

  bool authenticates() const { return authenticator_ != nullptr; }
  const auth::Authenticator* authenticator() const {
    return authenticator_.get();
  }

  static ApiError Unauthorized();
  static ApiError ForbiddenFor(const auth::RequestAttributes& attributes,
                               std::string_view reason);

 private:
  std::shared_ptr<const auth::Authenticator> authenticator_;
  std::shared_ptr<const auth::Authorizer> authorizer_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_ACCESS_CONTROL_H_
