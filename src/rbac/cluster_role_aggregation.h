// The rules of an aggregated ClusterRole (upstream's clusterroleaggregation
// controller): the union, without duplicates, of the rules of every other
// ClusterRole matching one of its aggregationRule.clusterRoleSelectors,
// taken in name order.
#ifndef DRALLOC_RBAC_CLUSTER_ROLE_AGGREGATION_H_
#define DRALLOC_RBAC_CLUSTER_ROLE_AGGREGATION_H_

#include <vector>

#include "api/types/rbac.h"

namespace dralloc::rbac {

// True if `labels` satisfy `selector` (matchLabels and matchExpressions
// ANDed; an empty selector matches everything).
bool SelectorMatches(const api::LabelSelector& selector,
                     const api::StringMap& labels);

// The rules `role` aggregates from `all` (which may include `role` itself,
// skipped). `role` must have an aggregationRule.
std::vector<api::PolicyRule> AggregatedRules(
    const api::ClusterRole& role, const std::vector<api::ClusterRole>& all);

}  // namespace dralloc::rbac

#endif  // DRALLOC_RBAC_CLUSTER_ROLE_AGGREGATION_H_
