// RbacAggregation: upstream's clusterroleaggregation controller inside the
// API server. Every ClusterRole with an aggregationRule gets as `rules` the
// union of the rules of the ClusterRoles its selectors match
// (rbac::AggregatedRules); a role whose rules differ is written through
// ResourceStorage as an in-process writer (no user, so no escalation
// check). Driven by the policy feed: call Reconcile after a ClusterRole
// changed (RbacPolicyFeed's change listener).
#ifndef DRALLOC_APISERVER_RBAC_AGGREGATION_H_
#define DRALLOC_APISERVER_RBAC_AGGREGATION_H_

#include <cstddef>

#include "apiserver/resource_storage.h"
#include "rbac/policy_index.h"

namespace dralloc::apiserver {

class RbacAggregation {
 public:
  // Both must outlive the aggregation.
  RbacAggregation(ResourceStorage& storage, const rbac::PolicyIndex& index)
      : storage_(storage), index_(index) {}

  // Writes the aggregated roles whose rules are out of date; returns how
  // many were written. A write that loses a race is left to the next call
  // (the feed calls again once the newer role arrives).
  size_t Reconcile();

 private:
  ResourceStorage& storage_;
  const rbac::PolicyIndex& index_;
};

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_RBAC_AGGREGATION_H_
