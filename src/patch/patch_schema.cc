#include "patch/patch_schema.h"

#include <utility>

namespace dralloc::patch {

void PatchSchema::AddList(std::string path, ListRule rule) {
  lists_.insert_or_assign(std::move(path), std::move(rule));
}

const ListRule* PatchSchema::FindList(std::string_view path) const {
  auto it = lists_.find(path);
  return it == lists_.end() ? nullptr : &it->second;
}

std::string JoinSchemaPath(std::string_view path, std::string_view field) {
  std::string joined(path);
  if (!joined.empty()) joined += '.';
  joined += field;
  return joined;
}

namespace {

ListRule MapList(std::vector<std::string> keys, bool smp_merge) {
  return ListRule{ListKind::kMap, std::move(keys), smp_merge};
}

ListRule SetList(bool smp_merge) {
  return ListRule{ListKind::kSet, {}, smp_merge};
}

// ObjectMeta (k8s.io/apimachinery meta/v1 types.go): finalizers are
// +listType=set with patchStrategy=merge; ownerReferences +listType=map keyed
// by uid with patchMergeKey=uid; managedFields carries no tags (atomic).
PatchSchema CommonSchema() {
  PatchSchema schema;
  schema.AddList("metadata.finalizers", SetList(/*smp_merge=*/true));
  schema.AddList("metadata.ownerReferences", MapList({"uid"}, true));
  schema.AddList("metadata.managedFields", ListRule{});
  return schema;
}

// resource.k8s.io/v1 ResourceClaim: every spec list is atomic. In status,
// reservedFor is a map keyed by uid (patchStrategy=merge), devices is a map
// for apply only (no SMP tag), and each device's conditions merge by type.
PatchSchema ResourceClaimSchema() {
  PatchSchema schema = CommonSchema();
  schema.AddList("status.reservedFor", MapList({"uid"}, true));
  schema.AddList("status.devices",
                 MapList({"driver", "pool", "device", "shareID"}, false));
  schema.AddList("status.devices[].conditions", MapList({"type"}, true));
  return schema;
}

PatchSchema DeviceTaintRuleSchema() {
  PatchSchema schema = CommonSchema();
  schema.AddList("status.conditions", MapList({"type"}, true));
  return schema;
}

// Rules shared by containers, initContainers and ephemeralContainers.
void AddContainerRules(PatchSchema& schema, const std::string& list) {
  schema.AddList(list, MapList({"name"}, true));
  const std::string item = list + "[]";
  schema.AddList(item + ".ports", MapList({"containerPort", "protocol"}, true));
  schema.AddList(item + ".env", MapList({"name"}, true));
  schema.AddList(item + ".volumeMounts", MapList({"mountPath"}, true));
  schema.AddList(item + ".volumeDevices", MapList({"devicePath"}, true));
  schema.AddList(item + ".resources.claims", MapList({"name"}, false));
}

PatchSchema PodSchema() {
  PatchSchema schema = CommonSchema();
  AddContainerRules(schema, "spec.containers");
  AddContainerRules(schema, "spec.initContainers");
  AddContainerRules(schema, "spec.ephemeralContainers");
  schema.AddList("spec.volumes", MapList({"name"}, true));
  schema.AddList("spec.resourceClaims", MapList({"name"}, true));
  schema.AddList("spec.tolerations", ListRule{});
  schema.AddList("spec.imagePullSecrets", MapList({"name"}, true));
  schema.AddList("status.conditions", MapList({"type"}, true));
  schema.AddList("status.resourceClaimStatuses", MapList({"name"}, true));
  return schema;
}

PatchSchema NodeSchema() {
  PatchSchema schema = CommonSchema();
  schema.AddList("spec.taints", ListRule{});
  schema.AddList("spec.podCIDRs", SetList(/*smp_merge=*/true));
  schema.AddList("status.conditions", MapList({"type"}, true));
  schema.AddList("status.addresses", MapList({"type"}, true));
  return schema;
}

}  // namespace

const PatchSchema& SchemaForKind(std::string_view kind) {
  static const auto* const schemas = [] {
    auto* by_kind = new std::map<std::string, PatchSchema, std::less<>>;
    (*by_kind)["ResourceClaim"] = ResourceClaimSchema();
    (*by_kind)["DeviceTaintRule"] = DeviceTaintRuleSchema();
    (*by_kind)["Pod"] = PodSchema();
    (*by_kind)["Node"] = NodeSchema();
    // DeviceClass, ResourceSlice, ResourceClaimTemplate, ResourceSlicePatch,
    // Namespace and Event have only atomic lists besides ObjectMeta's.
    for (const char* plain :
         {"DeviceClass", "ResourceSlice", "ResourceClaimTemplate",
          "ResourceSlicePatch", "Namespace", "Event"}) {
      (*by_kind)[plain] = CommonSchema();
    }
    return by_kind;
  }();
  static const PatchSchema* const common = new PatchSchema(CommonSchema());
  auto it = schemas->find(kind);
  return it == schemas->end() ? *common : it->second;
}

}  // namespace dralloc::patch
