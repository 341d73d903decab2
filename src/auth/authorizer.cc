#include "auth/authorizer.h"

namespace dralloc::auth {

AuthorizationResult UnionAuthorizer::Authorize(
    const RequestAttributes& attributes) const {
  if (attributes.user.InGroup(kSystemMasters)) {
    return {Decision::kAllow, ""};
  }
  std::string reasons;
  for (const auto& authorizer : chain_) {
    AuthorizationResult result = authorizer->Authorize(attributes);
    if (result.decision != Decision::kNoOpinion) return result;
    if (!result.reason.empty()) {
      if (!reasons.empty()) reasons += ", ";
      reasons += result.reason;
    }
  }
  return {Decision::kNoOpinion, reasons};
}

void UnionAuthorizer::RulesFor(const UserInfo& user,
                               std::string_view namespace_,
                               RuleSet& rules) const {
  if (user.InGroup(kSystemMasters)) {
    rules.resource_rules.push_back({{"*"}, {"*"}, {"*"}, {}});
    rules.non_resource_rules.push_back({{"*"}, {"*"}});
    return;
  }
  for (const auto& authorizer : chain_) {
    authorizer->RulesFor(user, namespace_, rules);
  }
}

}  // namespace dralloc::auth
