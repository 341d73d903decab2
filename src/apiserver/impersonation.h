// Impersonation: kube-apiserver's impersonation filter
// (k8s.io/apiserver/pkg/endpoints/filters/impersonation.go), which
// `kubectl --as USER --as-group GROUP --as-uid UID` uses.
//
// A request carrying Impersonate-User (and optionally Impersonate-Group,
// Impersonate-Uid and Impersonate-Extra-<key>) acts as that user once the
// authenticated requester is authorized to `impersonate` each part:
//   users/<name> (core group), or serviceaccounts/<name> in <namespace> for
//     system:serviceaccount:<namespace>:<name>;
//   groups/<name> (core group);
//   uids/<uid> and userextras/<key> named <value> (authentication.k8s.io).
// A part the requester may not impersonate is refused with upstream's 403
// (`users "bob" is forbidden: User "alice" cannot impersonate resource
// "users" in API group "" at the cluster scope`). Groups, a uid or extras
// without a user are a malformed request (500, as upstream answers it).
//
// The acting user gets the groups asked for (a service account without
// Impersonate-Group gets its fixed groups) plus system:authenticated, or
// system:unauthenticated when impersonating system:anonymous, unless a
// group asked for already says which.
#ifndef DRALLOC_APISERVER_IMPERSONATION_H_
#define DRALLOC_APISERVER_IMPERSONATION_H_

#include "apiserver/access_control.h"
#include "apiserver/api_error.h"
#include "apiserver/http_server.h"
#include "auth/user_info.h"

namespace dralloc::apiserver {

// The user `request` acts as: `requester` itself when it impersonates
// nobody, else the impersonated user, or the refusal.
ApiOr<auth::UserInfo> ActingUser(const HttpRequest& request,
                                 auth::UserInfo requester,
                                 const AccessControl& access);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_IMPERSONATION_H_
