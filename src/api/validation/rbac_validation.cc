// Validate{Role,ClusterRole,RoleBinding,ClusterRoleBinding}: upstream
// pkg/apis/rbac/validation semantics (names are path segments, rules need
// verbs and either resources or non-resource URLs, roleRef and subjects
// restricted to the RBAC kinds).
#include <string>
#include <string_view>
#include <vector>

#include "api/validation/names.h"
#include "api/validation/validation.h"

namespace dralloc::api {
namespace {

constexpr std::string_view kServiceAccountKind = "ServiceAccount";
constexpr std::string_view kUserKind = "User";
constexpr std::string_view kGroupKind = "Group";

// RBAC names are path segments (upstream ValidateRBACName).
std::vector<std::string> PathSegmentNameErrors(std::string_view name) {
  if (name == ".") return {"may not be '.'"};
  if (name == "..") return {"may not be '..'"};
  std::vector<std::string> errors;
  if (name.find('/') != std::string_view::npos) {
    errors.push_back("may not contain '/'");
  }
  if (name.find('%') != std::string_view::npos) {
    errors.push_back("may not contain '%'");
  }
  return errors;
}

void ValidatePathSegmentName(std::string_view name, const FieldPath& path,
                             ErrorList& errors) {
  for (std::string& message : PathSegmentNameErrors(name)) {
    errors.push_back(Invalid(path, std::string(name), std::move(message)));
  }
}

// ObjectMeta rules with a path-segment name instead of a DNS name.
ErrorList RbacMetaErrors(const ObjectMeta& meta, bool namespaced) {
  ObjectMeta renamed = meta;
  if (!renamed.name.empty()) renamed.name = "x";
  if (!renamed.generate_name.empty()) renamed.generate_name = "x";
  ErrorList errors;
  const FieldPath meta_path("metadata");
  ValidateObjectMeta(renamed, namespaced, NameRule::kDns1123Subdomain,
                     meta_path, errors);
  if (!meta.name.empty()) {
    ValidatePathSegmentName(meta.name, meta_path.Child("name"), errors);
  }
  if (!meta.generate_name.empty()) {
    ValidatePathSegmentName(meta.generate_name, meta_path.Child("generateName"),
                            errors);
  }
  return errors;
}

std::string JoinList(const std::vector<std::string>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ",";
    text += values[i];
  }
  return text + "]";
}

void ValidatePolicyRule(const PolicyRule& rule, bool namespaced,
                        const FieldPath& path, ErrorList& errors) {
  if (rule.verbs.empty()) {
    errors.push_back(
        Required(path.Child("verbs"), "verbs must contain at least one value"));
  }
  if (!rule.non_resource_urls.empty()) {
    const FieldPath urls_path = path.Child("nonResourceURLs");
    if (namespaced) {
      errors.push_back(
          Invalid(urls_path, JoinList(rule.non_resource_urls),
                  "namespaced rules cannot apply to non-resource URLs"));
    }
    if (!rule.api_groups.empty() || !rule.resources.empty()) {
      errors.push_back(Invalid(urls_path, JoinList(rule.non_resource_urls),
                               "rules cannot apply to both regular resources "
                               "and non-resource URLs"));
    }
    return;
  }
  if (rule.api_groups.empty()) {
    errors.push_back(
        Required(path.Child("apiGroups"),
                 "resource rules must supply at least one api group"));
  }
  if (rule.resources.empty()) {
    errors.push_back(Required(path.Child("resources"),
                              "resource rules must supply at least one "
                              "resource"));
  }
}

void ValidateRules(const std::vector<PolicyRule>& rules, bool namespaced,
                   ErrorList& errors) {
  const FieldPath rules_path("rules");
  for (size_t i = 0; i < rules.size(); ++i) {
    ValidatePolicyRule(rules[i], namespaced, rules_path.Index(i), errors);
  }
}

void ValidateSelectorRequirement(const LabelSelectorRequirement& requirement,
                                 const FieldPath& path, ErrorList& errors) {
  const std::string& op = requirement.operator_;
  if (op == "In" || op == "NotIn") {
    if (requirement.values.empty()) {
      errors.push_back(
          Required(path.Child("values"),
                   "must be specified when `operator` is 'In' or 'NotIn'"));
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!requirement.values.empty()) {
      errors.push_back(
          Forbidden(path.Child("values"),
                    "may not be specified when `operator` is 'Exists' or "
                    "'DoesNotExist'"));
    }
  } else {
    errors.push_back(NotSupported(path.Child("operator"), op,
                                  {"In", "NotIn", "Exists", "DoesNotExist"}));
  }
  ValidateQualifiedName(requirement.key, path.Child("key"), errors);
}

void ValidateLabelSelector(const LabelSelector& selector, const FieldPath& path,
                           ErrorList& errors) {
  const FieldPath expressions = path.Child("matchExpressions");
  for (size_t i = 0; i < selector.match_expressions.size(); ++i) {
    ValidateSelectorRequirement(selector.match_expressions[i],
                                expressions.Index(i), errors);
  }
  ValidateLabels(selector.match_labels, path.Child("matchLabels"), errors);
}

void ValidateAggregationRule(const AggregationRule& rule, ErrorList& errors) {
  const FieldPath rule_path("aggregationRule");
  const FieldPath selectors_path = rule_path.Child("clusterRoleSelectors");
  if (rule.cluster_role_selectors.empty()) {
    errors.push_back(Required(selectors_path,
                              "at least one clusterRoleSelector required if "
                              "aggregationRule is non-nil"));
  }
  for (size_t i = 0; i < rule.cluster_role_selectors.size(); ++i) {
    ValidateLabelSelector(rule.cluster_role_selectors[i],
                          selectors_path.Index(i), errors);
  }
}

void ValidateRoleRef(const RoleRef& ref, bool cluster_binding,
                     ErrorList& errors) {
  const FieldPath path("roleRef");
  if (ref.api_group != kRbacGroup) {
    errors.push_back(
        NotSupported(path.Child("apiGroup"), ref.api_group, {kRbacGroup}));
  }
  if (cluster_binding) {
    if (ref.kind != "ClusterRole") {
      errors.push_back(
          NotSupported(path.Child("kind"), ref.kind, {"ClusterRole"}));
    }
  } else if (ref.kind != "Role" && ref.kind != "ClusterRole") {
    errors.push_back(
        NotSupported(path.Child("kind"), ref.kind, {"Role", "ClusterRole"}));
  }
  if (ref.name.empty()) {
    errors.push_back(Required(path.Child("name")));
  } else {
    ValidatePathSegmentName(ref.name, path.Child("name"), errors);
  }
}

void ValidateSubject(const Subject& subject, bool namespaced,
                     const FieldPath& path, ErrorList& errors) {
  if (subject.name.empty()) errors.push_back(Required(path.Child("name")));
  if (subject.kind == kServiceAccountKind) {
    if (!subject.name.empty()) {
      ValidateDns1123Subdomain(subject.name, path.Child("name"), errors);
    }
    if (!subject.api_group.empty()) {
      errors.push_back(
          NotSupported(path.Child("apiGroup"), subject.api_group, {""}));
    }
    if (!namespaced && subject.namespace_.empty()) {
      errors.push_back(Required(path.Child("namespace")));
    }
  } else if (subject.kind == kUserKind || subject.kind == kGroupKind) {
    if (subject.api_group != kRbacGroup) {
      errors.push_back(NotSupported(path.Child("apiGroup"), subject.api_group,
                                    {kRbacGroup}));
    }
  } else {
    errors.push_back(
        NotSupported(path.Child("kind"), subject.kind,
                     {kServiceAccountKind, kUserKind, kGroupKind}));
  }
}

void ValidateSubjects(const std::vector<Subject>& subjects, bool namespaced,
                      ErrorList& errors) {
  const FieldPath subjects_path("subjects");
  for (size_t i = 0; i < subjects.size(); ++i) {
    ValidateSubject(subjects[i], namespaced, subjects_path.Index(i), errors);
  }
}

}  // namespace

ErrorList ValidateRole(const Role& role) {
  ErrorList errors = RbacMetaErrors(role.metadata, /*namespaced=*/true);
  ValidateRules(role.rules, /*namespaced=*/true, errors);
  return errors;
}

ErrorList ValidateClusterRole(const ClusterRole& role) {
  ErrorList errors = RbacMetaErrors(role.metadata, /*namespaced=*/false);
  ValidateRules(role.rules, /*namespaced=*/false, errors);
  if (role.aggregation_rule.has_value()) {
    ValidateAggregationRule(*role.aggregation_rule, errors);
  }
  return errors;
}

ErrorList ValidateRoleBinding(const RoleBinding& binding) {
  ErrorList errors = RbacMetaErrors(binding.metadata, /*namespaced=*/true);
  ValidateRoleRef(binding.role_ref, /*cluster_binding=*/false, errors);
  ValidateSubjects(binding.subjects, /*namespaced=*/true, errors);
  return errors;
}

ErrorList ValidateClusterRoleBinding(const ClusterRoleBinding& binding) {
  ErrorList errors = RbacMetaErrors(binding.metadata, /*namespaced=*/false);
  ValidateRoleRef(binding.role_ref, /*cluster_binding=*/true, errors);
  ValidateSubjects(binding.subjects, /*namespaced=*/false, errors);
  return errors;
}

ErrorList ValidateRoleRefUpdate(const RoleRef& next, const RoleRef& old) {
  if (next == old) return {};
  return {Invalid(FieldPath("roleRef"), next.kind + "/" + next.name,
                  "cannot change roleRef")};
}

}  // namespace dralloc::api
