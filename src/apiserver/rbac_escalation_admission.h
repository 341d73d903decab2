// RbacEscalationAdmission: RBAC's privilege-escalation prevention
// (upstream's pkg/registry/rbac/*/policybased/storage.go), as an admission
// plugin of the four RBAC kinds:
//  - a Role or ClusterRole may only be written with rules the writer holds
//    (in the role's namespace), unless the writer may `escalate` it; a
//    ClusterRole with an aggregationRule needs the rights of cluster-admin;
//  - a binding may only be written when the writer holds every rule of the
//    referenced role, or may `bind` it; a binding to a role that does not
//    exist is refused (403, the role's NotFound text) unless the writer may
//    `bind` it;
//  - a binding's roleRef may not change (422 "cannot change roleRef").
// Writers in system:masters and in-process writers (user nullptr) skip it.
#ifndef DRALLOC_APISERVER_RBAC_ESCALATION_ADMISSION_H_
#define DRALLOC_APISERVER_RBAC_ESCALATION_ADMISSION_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/admission_plugin.h"
#include "auth/authorizer.h"
#include "rbac/policy_index.h"

namespace dralloc::apiserver {

// The RBAC object a write stores, whatever its kind (defined in the .cc).
struct RbacWriteTarget;

class RbacEscalationAdmission : public AdmissionPlugin {
 public:
  // `index` resolves the writer's rules; `authorizer` (the server's whole
  // chain) answers the `bind` and `escalate` checks. Both must outlive the
  // plugin.
  RbacEscalationAdmission(const rbac::PolicyIndex& index,
                          const auth::Authorizer& authorizer)
      : index_(index), authorizer_(authorizer) {}

  std::optional<ApiError> Admit(const AdmissionRequest& request) override;

 private:
  std::optional<ApiError> AdmitRole(const AdmissionRequest& request,
                                    const RbacWriteTarget& target) const;
  std::optional<ApiError> AdmitBinding(const AdmissionRequest& request,
                                       const RbacWriteTarget& target) const;
  // True when the authorizer allows `verb` on the role `role_name` of
  // `resource` ("roles"/"clusterroles") in `namespace_`.
  bool Authorized(const auth::UserInfo& user, std::string_view verb,
                  std::string_view resource, std::string_view namespace_,
                  std::string_view role_name) const;
  // upstream ConfirmNoEscalation: the text of what `user` lacks of
  // `rules` in `namespace_`, nullopt when it holds them all.
  std::optional<std::string> MissingRights(
      const auth::UserInfo& user, std::string_view namespace_,
      const std::vector<api::PolicyRule>& rules) const;

  const rbac::PolicyIndex& index_;
  const auth::Authorizer& authorizer_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_RBAC_ESCALATION_ADMISSION_H_
