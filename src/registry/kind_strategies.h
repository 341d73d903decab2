// The strategies of the kinds with rules of their own (one file each);
// StrategyFor (strategy.cc) dispatches to them.
#ifndef DRALLOC_REGISTRY_KIND_STRATEGIES_H_
#define DRALLOC_REGISTRY_KIND_STRATEGIES_H_

#include "api/validation/validation.h"
#include "registry/strategy.h"

namespace dralloc::registry {

const ResourceStrategy& NamespaceStrategy();      // namespace_strategy.cc
const ResourceStrategy& PodStrategy();            // pod_strategy.cc
const ResourceStrategy& ResourceClaimStrategy();  // resource_claim_strategy.cc
const ResourceStrategy&
ResourceClaimTemplateStrategy();  // resource_claim_template_strategy.cc
const ResourceStrategy& ResourceSliceStrategy();  // resource_slice_strategy.cc
const ResourceStrategy& ResourceQuotaStrategy();  // resource_quota_strategy.cc
// device_taint_rule_strategy.cc
const ResourceStrategy& DeviceTaintRuleStrategy();
// Sets an unset timeAdded to now (upstream's SetDefaults_DeviceTaint).
void DefaultDeviceTaintTimeAdded(api::DeviceTaint& taint);
// secret_strategy.cc
const ResourceStrategy& SecretStrategy();
const ResourceStrategy& ConfigMapStrategy();
// resource_pool_status_request_strategy.cc (KEP-5677)
const ResourceStrategy& ResourcePoolStatusRequestStrategy();
// classic_strategies.cc: resource.k8s.io/v1alpha2 (issue #27)
const ResourceStrategy& ClassicResourceClaimStrategy();
const ResourceStrategy& ClassicResourceClaimTemplateStrategy();
const ResourceStrategy& PodSchedulingContextStrategy();
const ResourceStrategy& ClassicResourceSliceStrategy();

}  // namespace dralloc::registry

#endif  // DRALLOC_REGISTRY_KIND_STRATEGIES_H_
