// Rule matching of RBAC (upstream's rbac RuleAllows and the escalation
// check's Covers): whether a PolicyRule allows a request, and which parts of
// requested rules a set of owned rules does not cover.
#ifndef DRALLOC_RBAC_RULE_MATCHING_H_
#define DRALLOC_RBAC_RULE_MATCHING_H_

#include <string>
#include <vector>

#include "api/types/rbac.h"
#include "auth/request_attributes.h"

namespace dralloc::rbac {

// True if `rule` allows the request: verb, API group, resource
// ("resource/subresource", "*", "*/subresource"), resourceNames (empty: any)
// for resource requests; verb and nonResourceURLs (exact, "*", or a prefix
// ending in "*") for non-resource requests. "*" matches everything.
bool RuleAllows(const auth::RequestAttributes& request,
                const api::PolicyRule& rule);

// The parts of `requested` no rule of `owned` covers, each a rule of one
// verb on one group/resource/name (or one verb on one URL), with verbs of
// equal targets merged again. Empty when `owned` covers everything.
std::vector<api::PolicyRule> UncoveredRules(
    const std::vector<api::PolicyRule>& owned,
    const std::vector<api::PolicyRule>& requested);

// Upstream's CompactString of a rule:
// {APIGroups:["g"], Resources:["r"], ResourceNames:["n"], Verbs:["get"]}.
std::string CompactString(const api::PolicyRule& rule);

}  // namespace dralloc::rbac

#endif  // DRALLOC_RBAC_RULE_MATCHING_H_
