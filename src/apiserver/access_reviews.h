// AccessReviews: the create-only review resources that ask the server about
// identities and permissions, answered from AccessControl and never stored:
// authentication.k8s.io SelfSubjectReview (`kubectl auth whoami`),
// authorization.k8s.io SelfSubjectAccessReview and SubjectAccessReview
// (`kubectl auth can-i`), LocalSubjectAccessReview, and
// SelfSubjectRulesReview (`kubectl auth can-i --list`).
#ifndef DRALLOC_APISERVER_ACCESS_REVIEWS_H_
#define DRALLOC_APISERVER_ACCESS_REVIEWS_H_

#include <optional>
#include <string>
#include <string_view>

#include "apiserver/access_control.h"
#include "apiserver/api_error.h"
#include "auth/user_info.h"

namespace dralloc::apiserver {

class AccessReviews {
 public:
  explicit AccessReviews(const AccessControl& access) : access_(access) {}

  // True if `path` is one of the review resources (authorization of the
  // request itself is the caller's: verb create on that resource).
  static bool Handles(std::string_view path);
  // The kind of the review `path` creates ("SelfSubjectAccessReview"), ""
  // when it is none.
  static std::string_view KindOf(std::string_view path);
  // The 201 response body for a POST of `body` to `path` by `user`, or the
  // error (400 for a body that does not parse, 405 for other methods).
  ApiOr<std::string> Create(std::string_view method, std::string_view path,
                            std::string_view body,
                            const auth::UserInfo& user) const;

 private:
  ApiOr<std::string> SelfSubjectReview(std::string_view version,
                                       const auth::UserInfo& user) const;
  ApiOr<std::string> AccessReview(std::string_view kind,
                                  std::string_view version,
                                  std::string_view namespace_,
                                  std::string_view body,
                                  const auth::UserInfo* self) const;
  ApiOr<std::string> RulesReview(std::string_view version,
                                 std::string_view body,
                                 const auth::UserInfo& user) const;

  const AccessControl& access_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_ACCESS_REVIEWS_H_
