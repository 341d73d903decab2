// RbacAuthorizer: `--authorization-mode=RBAC` (upstream's
// plugin/pkg/auth/authorizer/rbac): allows a request when a rule of a role
// bound to the user (by a ClusterRoleBinding, or by a RoleBinding in the
// request's namespace) allows it; otherwise has no opinion (RBAC never
// denies). Reads only its PolicyIndex, which the caller keeps current.
#ifndef DRALLOC_RBAC_RBAC_AUTHORIZER_H_
#define DRALLOC_RBAC_RBAC_AUTHORIZER_H_

#include <string_view>

#include "auth/authorizer.h"
#include "rbac/policy_index.h"

namespace dralloc::rbac {

class RbacAuthorizer : public auth::Authorizer {
 public:
  // `index` must outlive the authorizer.
  explicit RbacAuthorizer(const PolicyIndex& index) : index_(index) {}

  // Allow with reason `RBAC: allowed by <binding description>`; NoOpinion
  // with reason "" or `RBAC: <role resolution errors>`.
  auth::AuthorizationResult Authorize(
      const auth::RequestAttributes& attributes) const override;
  void RulesFor(const auth::UserInfo& user, std::string_view namespace_,
                auth::RuleSet& rules) const override;

 private:
  const PolicyIndex& index_;
};

}  // namespace dralloc::rbac

#endif  // DRALLOC_RBAC_RBAC_AUTHORIZER_H_
