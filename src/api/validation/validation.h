// Validation of API objects with upstream Kubernetes' rules and limits.
//
// Every function returns the complete list of problems (never stops at the
// first), each with the field path and type Kubernetes would report. An
// empty list means valid. Validation never modifies the object.
#ifndef DRALLOC_API_VALIDATION_VALIDATION_H_
#define DRALLOC_API_VALIDATION_VALIDATION_H_

#include "api/field_error.h"
#include "api/object.h"

namespace dralloc::api {

// Dispatches on the object's kind.
ErrorList Validate(const Object& object);
// Validate as the API server does on a create: on a copy of `object` with
// its defaults applied (api/defaults.h), so that fields the server fills
// (a v1alpha2 claim's allocationMode) are not reported missing.
ErrorList ValidateDefaulted(const Object& object);

ErrorList ValidateDeviceClass(const DeviceClass& device_class);
ErrorList ValidateResourceSlice(const ResourceSlice& slice);
ErrorList ValidateResourceClaim(const ResourceClaim& claim);
ErrorList ValidateResourceClaimTemplate(
    const ResourceClaimTemplate& claim_template);
ErrorList ValidateDeviceTaintRule(const DeviceTaintRule& rule);
// resource_pool_status_request_validation.cc (KEP-5677)
ErrorList ValidateResourcePoolStatusRequest(
    const ResourcePoolStatusRequest& request);
ErrorList ValidateResourceSlicePatch(const ResourceSlicePatch& patch);
ErrorList ValidateNamespace(const Namespace& ns);
ErrorList ValidateNode(const Node& node);
ErrorList ValidatePod(const Pod& pod);
ErrorList ValidateEvent(const Event& event);
ErrorList ValidateLease(const Lease& lease);  // lease_validation.cc
// resource_quota_validation.cc
ErrorList ValidateResourceQuota(const ResourceQuota& quota);
// rbac_validation.cc
ErrorList ValidateClusterRole(const ClusterRole& role);
ErrorList ValidateRole(const Role& role);
ErrorList ValidateClusterRoleBinding(const ClusterRoleBinding& binding);
ErrorList ValidateRoleBinding(const RoleBinding& binding);
// The roleRef of a binding may not change (Invalid at "roleRef").
ErrorList ValidateRoleRefUpdate(const RoleRef& next, const RoleRef& old);
// service_account_validation.cc, secret_validation.cc, config_map_validation.cc
ErrorList ValidateServiceAccount(const ServiceAccount& service_account);
ErrorList ValidateSecret(const Secret& secret);
ErrorList ValidateConfigMap(const ConfigMap& config_map);
// Update rules: an immutable Secret or ConfigMap keeps its data and stays
// immutable (upstream's ValidateSecretUpdate / ValidateConfigMapUpdate).
ErrorList ValidateSecretUpdate(const Secret& next, const Secret& old);
ErrorList ValidateConfigMapUpdate(const ConfigMap& next, const ConfigMap& old);

}  // namespace dralloc::api

#endif  // DRALLOC_API_VALIDATION_VALIDATION_H_
