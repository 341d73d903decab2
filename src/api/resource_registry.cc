#include "api/resource_registry.h"

#include <algorithm>

namespace dralloc::api {
namespace {

const std::vector<ResourceInfo>& Table() {
  static const std::vector<ResourceInfo> table = {
      {"",
       "Namespace",
       "namespaces",
       "namespace",
       false,
       true,
       {"ns"},
       {"v1"},
       {"status.phase"}},
      {"",
       "Node",
       "nodes",
       "node",
       false,
       true,
       {"no"},
       {"v1"},
       {"spec.unschedulable"}},
      {"",
       "Pod",
       "pods",
       "pod",
       true,
       true,
       {"po"},
       {"v1"},
       {"spec.nodeName", "spec.schedulerName", "status.phase",
        "status.nominatedNodeName"}},
      {"",
       "Event",
       "events",
       "event",
       true,
       false,
       {"ev"},
       {"v1"},
       {"involvedObject.kind", "involvedObject.namespace",
        "involvedObject.name", "involvedObject.uid",
        "involvedObject.apiVersion", "involvedObject.resourceVersion",
        "involvedObject.fieldPath", "reason", "reportingComponent", "source",
        "type"}},
      {"resource.k8s.io",
       "DeviceClass",
       "deviceclasses",
       "deviceclass",
       false,
       false,
       {},
       {"v1", "v1beta2", "v1beta1"},
       {}},
      {"resource.k8s.io",
       "ResourceClaim",
       "resourceclaims",
       "resourceclaim",
       true,
       true,
       {},
       {"v1", "v1beta2", "v1beta1"},
       {}},
      {"resource.k8s.io",
       "ResourceClaimTemplate",
       "resourceclaimtemplates",
       "resourceclaimtemplate",
       true,
       false,
       {},
       {"v1", "v1beta2", "v1beta1"},
       {}},
      {"resource.k8s.io",
       "ResourceSlice",
       "resourceslices",
       "resourceslice",
       false,
       false,
       {},
       {"v1", "v1beta2", "v1beta1"},
       {"spec.nodeName", "spec.driver", "spec.pool.name"}},
      {"resource.k8s.io",
       "DeviceTaintRule",
       "devicetaintrules",
       "devicetaintrule",
       false,
       false,
       {},
       {"v1", "v1beta2", "v1alpha3"},
       {}},
      {"resource.k8s.io",
       "ResourceSlicePatch",
       "resourceslicepatches",
       "resourceslicepatch",
       false,
       false,
       {},
       {"v1alpha3"},
       {}},
  };
  return table;
}

}  // namespace

std::string ResourceInfo::QualifiedResource() const {
  std::string out(plural);
  if (!group.empty()) {
    out += '.';
    out += group;
  }
  return out;
}

std::string ResourceInfo::GroupVersion(std::string_view version) const {
  if (group.empty()) return std::string(version);
  std::string out(group);
  out += '/';
  out += version;
  return out;
}

std::span<const ResourceInfo> AllResources() { return Table(); }

const ResourceInfo* FindResource(std::string_view group,
                                 std::string_view version,
                                 std::string_view plural) {
  for (const ResourceInfo& info : Table()) {
    if (info.group != group || info.plural != plural) continue;
    if (std::find(info.versions.begin(), info.versions.end(), version) !=
        info.versions.end()) {
      return &info;
    }
  }
  return nullptr;
}

const ResourceInfo* FindResourceByKind(std::string_view kind) {
  for (const ResourceInfo& info : Table()) {
    if (info.kind == kind) return &info;
  }
  return nullptr;
}

std::vector<std::string_view> ServedGroups() { return {"", "resource.k8s.io"}; }

std::vector<std::string_view> GroupVersions(std::string_view group) {
  if (group.empty()) return {"v1"};
  if (group == "resource.k8s.io")
    return {"v1", "v1beta2", "v1beta1", "v1alpha3"};
  return {};
}

}  // namespace dralloc::api
