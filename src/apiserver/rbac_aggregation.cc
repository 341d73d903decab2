#include "apiserver/rbac_aggregation.h"

#include <vector>

#include "api/resource_registry.h"
#include "common/log.h"
#include "rbac/cluster_role_aggregation.h"

namespace dralloc::apiserver {

size_t RbacAggregation::Reconcile() {
  const std::vector<api::ClusterRole> roles = index_.ClusterRoles();
  const api::ResourceInfo* info = api::FindResourceByKind("ClusterRole");
  size_t written = 0;
  for (const api::ClusterRole& role : roles) {
    if (!role.aggregation_rule) continue;
    std::vector<api::PolicyRule> rules = rbac::AggregatedRules(role, roles);
    if (rules == role.rules) continue;
    api::ClusterRole updated = role;
    updated.rules = std::move(rules);
    RequestScope scope{
        .info = info, .version = "v1", .name = role.metadata.name};
    ApiOr<WriteResult> result =
        storage_.UpdateObject(scope, std::move(updated), WriteOptions{});
    if (result.ok()) {
      ++written;
    } else if (result.error().code != 409) {
      log::Warn("rbac", "aggregating clusterrole {}: {}", role.metadata.name,
                result.error().message);
    }
  }
  return written;
}

}  // namespace dralloc::apiserver
