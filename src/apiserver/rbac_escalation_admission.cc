#include "apiserver/rbac_escalation_admission.h"

#include <algorithm>
#include <set>
#include <variant>

#include "api/validation/validation.h"
#include "rbac/rule_matching.h"

namespace dralloc::apiserver {

// What the checks need of the object written and of the stored one.
struct RbacWriteTarget {
  bool is_role = false;
  std::string_view plural;  // "roles", "clusterrolebindings", ...
  std::string namespace_;
  std::string name;
  // Roles.
  const std::vector<api::PolicyRule>* rules = nullptr;
  bool aggregated = false;
  // Bindings.
  const api::RoleRef* role_ref = nullptr;
  const std::vector<api::Subject>* subjects = nullptr;
  const api::StringMap* labels = nullptr;
};

namespace {

std::string GoQuoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

std::string GoQuotedList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ' ';
    out += GoQuoted(values[i]);
  }
  return out + "]";
}

ApiError ForbiddenRbac(std::string_view plural, std::string_view name,
                       std::string_view detail) {
  ApiError error =
      Forbidden(std::string(plural) + ".rbac.authorization.k8s.io " +
                GoQuoted(name) + " is forbidden: " + std::string(detail));
  error.details = {
      {"name", name}, {"group", "rbac.authorization.k8s.io"}, {"kind", plural}};
  return error;
}

std::optional<RbacWriteTarget> TargetOf(const api::Object& object) {
  RbacWriteTarget target;
  if (const auto* role = std::get_if<api::Role>(&object)) {
    target.is_role = true;
    target.plural = "roles";
    target.namespace_ = role->metadata.namespace_;
    target.name = role->metadata.name;
    target.rules = &role->rules;
    target.labels = &role->metadata.labels;
  } else if (const auto* role = std::get_if<api::ClusterRole>(&object)) {
    target.is_role = true;
    target.plural = "clusterroles";
    target.name = role->metadata.name;
    target.rules = &role->rules;
    target.aggregated = role->aggregation_rule.has_value();
    target.labels = &role->metadata.labels;
  } else if (const auto* b = std::get_if<api::RoleBinding>(&object)) {
    target.plural = "rolebindings";
    target.namespace_ = b->metadata.namespace_;
    target.name = b->metadata.name;
    target.role_ref = &b->role_ref;
    target.subjects = &b->subjects;
  } else if (const auto* b = std::get_if<api::ClusterRoleBinding>(&object)) {
    target.plural = "clusterrolebindings";
    target.name = b->metadata.name;
    target.role_ref = &b->role_ref;
    target.subjects = &b->subjects;
  } else {
    return std::nullopt;
  }
  return target;
}

// What may grant everything: upstream's fullAuthority, required to set an
// aggregationRule.
const std::vector<api::PolicyRule>& FullAuthority() {
  static const std::vector<api::PolicyRule> rules = {
      {.verbs = {"*"}, .api_groups = {"*"}, .resources = {"*"}},
      {.verbs = {"*"}, .non_resource_urls = {"*"}}};
  return rules;
}

}  // namespace

std::optional<ApiError> RbacEscalationAdmission::Admit(
    const AdmissionRequest& request) {
  if (request.user == nullptr || request.object == nullptr ||
      request.operation == AdmissionOperation::kDelete) {
    return std::nullopt;
  }
  std::optional<RbacWriteTarget> target = TargetOf(*request.object);
  if (!target) return std::nullopt;
  // roleRef immutability applies to every writer.
  if (!target->is_role && request.old_object != nullptr) {
    std::optional<RbacWriteTarget> old = TargetOf(*request.old_object);
    if (old && old->role_ref != nullptr) {
      api::ErrorList errors =
          api::ValidateRoleRefUpdate(*target->role_ref, *old->role_ref);
      if (!errors.empty()) {
        return Invalid(*request.scope.info, target->name, errors);
      }
    }
  }
  if (request.user->InGroup(auth::kSystemMasters)) return std::nullopt;
  return target->is_role ? AdmitRole(request, *target)
                         : AdmitBinding(request, *target);
}

std::optional<ApiError> RbacEscalationAdmission::AdmitRole(
    const AdmissionRequest& request, const RbacWriteTarget& target) const {
  if (request.old_object != nullptr) {
    // Only what grants (rules, aggregation, the labels aggregation selects
    // by) needs the check; other metadata changes are free.
    std::optional<RbacWriteTarget> old = TargetOf(*request.old_object);
    if (old && *old->rules == *target.rules &&
        old->aggregated == target.aggregated &&
        *old->labels == *target.labels) {
      return std::nullopt;
    }
  }
  const auth::UserInfo& user = *request.user;
  if (Authorized(user, "escalate", target.plural, target.namespace_,
                 target.name)) {
    return std::nullopt;
  }
  if (auto missing = MissingRights(user, target.namespace_, *target.rules)) {
    return ForbiddenRbac(target.plural, target.name, *missing);
  }
  if (target.aggregated && MissingRights(user, "", FullAuthority())) {
    return ForbiddenRbac(
        target.plural, target.name,
        "must have cluster-admin privileges to use the aggregationRule");
  }
  return std::nullopt;
}

std::optional<ApiError> RbacEscalationAdmission::AdmitBinding(
    const AdmissionRequest& request, const RbacWriteTarget& target) const {
  if (request.old_object != nullptr) {
    std::optional<RbacWriteTarget> old = TargetOf(*request.old_object);
    if (old && *old->subjects == *target.subjects) return std::nullopt;
  }
  const auth::UserInfo& user = *request.user;
  const api::RoleRef& ref = *target.role_ref;
  const std::string_view role_plural =
      ref.kind == "Role" ? "roles" : "clusterroles";
  if (Authorized(user, "bind", role_plural, target.namespace_, ref.name)) {
    return std::nullopt;
  }
  std::optional<std::vector<api::PolicyRule>> rules =
      index_.RoleRefRules(ref, target.namespace_);
  if (!rules) {
    return ForbiddenRbac(target.plural, target.name,
                         std::string(role_plural) +
                             ".rbac.authorization.k8s.io " +
                             GoQuoted(ref.name) + " not found");
  }
  if (auto missing = MissingRights(user, target.namespace_, *rules)) {
    return ForbiddenRbac(target.plural, target.name, *missing);
  }
  return std::nullopt;
}

bool RbacEscalationAdmission::Authorized(const auth::UserInfo& user,
                                         std::string_view verb,
                                         std::string_view resource,
                                         std::string_view namespace_,
                                         std::string_view role_name) const {
  auth::RequestAttributes attributes;
  attributes.user = user;
  attributes.verb = verb;
  attributes.api_group = api::kRbacGroup;
  attributes.api_version = "v1";
  attributes.resource = resource;
  attributes.namespace_ = namespace_;
  attributes.name = role_name;
  return authorizer_.Authorize(attributes).decision == auth::Decision::kAllow;
}

std::optional<std::string> RbacEscalationAdmission::MissingRights(
    const auth::UserInfo& user, std::string_view namespace_,
    const std::vector<api::PolicyRule>& rules) const {
  std::vector<std::string> errors;
  const std::vector<api::PolicyRule> owned =
      index_.RulesFor(user, namespace_, &errors);
  const std::vector<api::PolicyRule> missing =
      rbac::UncoveredRules(owned, rules);
  if (missing.empty()) return std::nullopt;
  std::set<std::string> descriptions;
  for (const api::PolicyRule& rule : missing) {
    descriptions.insert(rbac::CompactString(rule));
  }
  std::string text = "user " + GoQuoted(user.name) +
                     " (groups=" + GoQuotedList(user.groups) +
                     ") is attempting to grant RBAC permissions not "
                     "currently held:";
  for (const std::string& description : descriptions) {
    text += "\n" + description;
  }
  if (!errors.empty()) {
    std::string joined;
    for (const std::string& error : errors) {
      joined += (joined.empty() ? "" : " ") + error;
    }
    text += "; resolution errors: [" + joined + "]";
  }
  return text;
}

}  // namespace dralloc::apiserver
