#include "rbac/rule_matching.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>

namespace dralloc::rbac {
namespace {

constexpr std::string_view kAll = "*";

bool Contains(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

bool MatchesOrAll(const std::vector<std::string>& values,
                  std::string_view value) {
  return Contains(values, kAll) || Contains(values, value);
}

bool ResourceMatches(const std::vector<std::string>& resources,
                     std::string_view combined, std::string_view subresource) {
  for (const std::string& resource : resources) {
    if (resource == kAll || resource == combined) return true;
    if (!subresource.empty() && resource.starts_with("*/") &&
        std::string_view(resource).substr(2) == subresource) {
      return true;
    }
  }
  return false;
}

bool NonResourceUrlMatches(const std::vector<std::string>& urls,
                           std::string_view path) {
  for (const std::string& url : urls) {
    if (url == kAll || url == path) return true;
    if (url.ends_with('*') &&
        path.starts_with(std::string_view(url).substr(0, url.size() - 1))) {
      return true;
    }
  }
  return false;
}

// One verb on one (group, resource, name) or on one URL.
std::vector<api::PolicyRule> Atoms(const api::PolicyRule& rule) {
  std::vector<api::PolicyRule> atoms;
  for (const std::string& verb : rule.verbs) {
    for (const std::string& url : rule.non_resource_urls) {
      atoms.push_back({.verbs = {verb}, .non_resource_urls = {url}});
    }
    for (const std::string& group : rule.api_groups) {
      for (const std::string& resource : rule.resources) {
        if (rule.resource_names.empty()) {
          atoms.push_back({.verbs = {verb},
                           .api_groups = {group},
                           .resources = {resource}});
        }
        for (const std::string& name : rule.resource_names) {
          atoms.push_back({.verbs = {verb},
                           .api_groups = {group},
                           .resources = {resource},
                           .resource_names = {name}});
        }
      }
    }
  }
  return atoms;
}

// Whether `owner` covers the single-valued `atom` (upstream ruleCovers).
bool Covers(const api::PolicyRule& owner, const api::PolicyRule& atom) {
  if (!MatchesOrAll(owner.verbs, atom.verbs[0])) return false;
  if (!atom.non_resource_urls.empty()) {
    return NonResourceUrlMatches(owner.non_resource_urls,
                                 atom.non_resource_urls[0]);
  }
  if (!MatchesOrAll(owner.api_groups, atom.api_groups[0])) return false;
  const std::string& resource = atom.resources[0];
  const size_t slash = resource.find('/');
  const std::string_view subresource =
      slash == std::string::npos ? std::string_view()
                                 : std::string_view(resource).substr(slash + 1);
  if (!ResourceMatches(owner.resources, resource, subresource)) return false;
  if (owner.resource_names.empty()) return true;
  return !atom.resource_names.empty() &&
         Contains(owner.resource_names, atom.resource_names[0]);
}

void AppendQuoted(std::string& out, std::string_view field,
                  const std::vector<std::string>& values) {
  if (values.empty()) return;
  if (out.size() > 1) out += ", ";
  out += field;
  out += ":[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ' ';
    out += '"' + values[i] + '"';
  }
  out += ']';
}

}  // namespace

bool RuleAllows(const auth::RequestAttributes& request,
                const api::PolicyRule& rule) {
  if (!MatchesOrAll(rule.verbs, request.verb)) return false;
  if (!request.resource_request) {
    return NonResourceUrlMatches(rule.non_resource_urls, request.path);
  }
  if (!MatchesOrAll(rule.api_groups, request.api_group)) return false;
  const std::string combined =
      request.subresource.empty()
          ? request.resource
          : request.resource + "/" + request.subresource;
  if (!ResourceMatches(rule.resources, combined, request.subresource)) {
    return false;
  }
  return rule.resource_names.empty() ||
         Contains(rule.resource_names, request.name);
}

std::vector<api::PolicyRule> UncoveredRules(
    const std::vector<api::PolicyRule>& owned,
    const std::vector<api::PolicyRule>& requested) {
  // Missing atoms grouped by target, verbs merged (upstream CompactRules).
  using Target = std::tuple<std::vector<std::string>, std::vector<std::string>,
                            std::vector<std::string>, std::vector<std::string>>;
  std::map<Target, std::vector<std::string>> missing;
  for (const api::PolicyRule& rule : requested) {
    for (api::PolicyRule& atom : Atoms(rule)) {
      const bool covered =
          std::any_of(owned.begin(), owned.end(),
                      [&](const auto& owner) { return Covers(owner, atom); });
      if (covered) continue;
      std::vector<std::string>& verbs =
          missing[Target{atom.api_groups, atom.resources, atom.resource_names,
                         atom.non_resource_urls}];
      if (!Contains(verbs, atom.verbs[0])) verbs.push_back(atom.verbs[0]);
    }
  }
  std::vector<api::PolicyRule> rules;
  for (auto& [target, verbs] : missing) {
    rules.push_back({.verbs = verbs,
                     .api_groups = std::get<0>(target),
                     .resources = std::get<1>(target),
                     .resource_names = std::get<2>(target),
                     .non_resource_urls = std::get<3>(target)});
  }
  return rules;
}

std::string CompactString(const api::PolicyRule& rule) {
  std::string out = "{";
  AppendQuoted(out, "APIGroups", rule.api_groups);
  AppendQuoted(out, "Resources", rule.resources);
  AppendQuoted(out, "NonResourceURLs", rule.non_resource_urls);
  AppendQuoted(out, "ResourceNames", rule.resource_names);
  AppendQuoted(out, "Verbs", rule.verbs);
  return out + "}";
}

}  // namespace dralloc::rbac
