#include "rbac/rbac_authorizer.h"

#include <string>
#include <vector>

#include "rbac/rule_matching.h"

namespace dralloc::rbac {

auth::AuthorizationResult RbacAuthorizer::Authorize(
    const auth::RequestAttributes& attributes) const {
  auth::AuthorizationResult result;
  std::vector<std::string> errors;
  index_.VisitRulesFor(
      attributes.user, attributes.namespace_,
      [&](const RuleSource& source, const api::PolicyRule& rule) {
        if (!RuleAllows(attributes, rule)) return true;
        result.decision = auth::Decision::kAllow;
        result.reason = "RBAC: allowed by " + source.Describe();
        return false;
      },
      &errors);
  if (result.decision == auth::Decision::kAllow || errors.empty()) {
    return result;
  }
  // upstream formats the aggregate of errors: one, or "[a, b]".
  std::string joined;
  for (const std::string& error : errors) {
    if (!joined.empty()) joined += ", ";
    joined += error;
  }
  result.reason = "RBAC: " + (errors.size() == 1 ? joined : "[" + joined + "]");
  return result;
}

void RbacAuthorizer::RulesFor(const auth::UserInfo& user,
                              std::string_view namespace_,
                              auth::RuleSet& rules) const {
  std::vector<std::string> errors;
  for (api::PolicyRule& rule : index_.RulesFor(user, namespace_, &errors)) {
    if (!rule.non_resource_urls.empty()) {
      rules.non_resource_rules.push_back(
          {std::move(rule.verbs), std::move(rule.non_resource_urls)});
      continue;
    }
    rules.resource_rules.push_back(
        {std::move(rule.verbs), std::move(rule.api_groups),
         std::move(rule.resources), std::move(rule.resource_names)});
  }
  if (!errors.empty()) {
    rules.incomplete = true;
    for (const std::string& error : errors) {
      if (!rules.evaluation_error.empty()) rules.evaluation_error += ", ";
      rules.evaluation_error += error;
    }
  }
}

}  // namespace dralloc::rbac
