#include "api/defaults.h"

#include <cstdint>
#include <string>
#include <variant>

#include "api/v1alpha2/validation.h"

namespace dralloc::api {
namespace {

void DefaultRequest(std::string& mode, int64_t& count) {
  if (mode.empty()) mode = "ExactCount";
  if (mode == "ExactCount" && count == 0) count = 1;
}

void DefaultClaimSpec(ResourceClaimSpec& spec) {
  for (DeviceRequest& request : spec.devices.requests) {
    if (request.exactly) {
      DefaultRequest(request.exactly->allocation_mode, request.exactly->count);
    }
    for (DeviceSubRequest& sub : request.first_available) {
      DefaultRequest(sub.allocation_mode, sub.count);
    }
  }
}

// rbac/v1 defaults: roleRef.apiGroup and the apiGroup of User and Group
// subjects are rbac.authorization.k8s.io when empty.
void DefaultBinding(RoleRef& role_ref, std::vector<Subject>& subjects) {
  if (role_ref.api_group.empty()) role_ref.api_group = kRbacGroup;
  for (Subject& subject : subjects) {
    if (subject.api_group.empty() &&
        (subject.kind == "User" || subject.kind == "Group")) {
      subject.api_group = kRbacGroup;
    }
  }
}

}  // namespace

void ApplyDefaults(Object& object) {
  if (auto* claim = std::get_if<ResourceClaim>(&object)) {
    DefaultClaimSpec(claim->spec);
  } else if (auto* tmpl = std::get_if<ResourceClaimTemplate>(&object)) {
    DefaultClaimSpec(tmpl->spec.spec);
  } else if (auto* classic = std::get_if<v1alpha2::ResourceClaim>(&object)) {
    v1alpha2::SetDefaults(*classic);
  } else if (auto* classic_template =
                 std::get_if<v1alpha2::ResourceClaimTemplate>(&object)) {
    v1alpha2::SetDefaults(*classic_template);
  } else if (auto* pod = std::get_if<Pod>(&object)) {
    if (pod->status.phase.empty()) pod->status.phase = "Pending";
  } else if (auto* ns = std::get_if<Namespace>(&object)) {
    if (ns->status.phase.empty()) ns->status.phase = "Active";
  } else if (auto* binding = std::get_if<RoleBinding>(&object)) {
    DefaultBinding(binding->role_ref, binding->subjects);
  } else if (auto* cluster_binding = std::get_if<ClusterRoleBinding>(&object)) {
    DefaultBinding(cluster_binding->role_ref, cluster_binding->subjects);
  }
}

}  // namespace dralloc::api
