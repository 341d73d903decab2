#include "patch/patch_schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace dralloc::patch {
namespace {

TEST(PatchSchemaTest, FindsAddedRulesOnly) {
  PatchSchema schema;
  schema.AddList("spec.items", ListRule{ListKind::kMap, {"name"}, true});
  const ListRule* rule = schema.FindList("spec.items");
  ASSERT_NE(rule, nullptr);
  EXPECT_EQ(rule->kind, ListKind::kMap);
  EXPECT_EQ(rule->keys, std::vector<std::string>{"name"});
  EXPECT_TRUE(rule->smp_merge);
  EXPECT_EQ(schema.FindList("spec"), nullptr);
  EXPECT_EQ(schema.FindList("spec.items[]"), nullptr);
}

TEST(PatchSchemaTest, EveryKindHasObjectMetaRules) {
  for (const char* kind :
       {"DeviceClass", "ResourceSlice", "ResourceClaim",
        "ResourceClaimTemplate", "DeviceTaintRule", "ResourceSlicePatch",
        "Namespace", "Node", "Pod", "Event", "SomethingUnknown"}) {
    const PatchSchema& schema = SchemaForKind(kind);
    const ListRule* finalizers = schema.FindList("metadata.finalizers");
    ASSERT_NE(finalizers, nullptr) << kind;
    EXPECT_EQ(finalizers->kind, ListKind::kSet) << kind;
    EXPECT_TRUE(finalizers->smp_merge) << kind;
    const ListRule* owners = schema.FindList("metadata.ownerReferences");
    ASSERT_NE(owners, nullptr) << kind;
    EXPECT_EQ(owners->keys, std::vector<std::string>{"uid"}) << kind;
    const ListRule* managed = schema.FindList("metadata.managedFields");
    ASSERT_NE(managed, nullptr) << kind;
    EXPECT_EQ(managed->kind, ListKind::kAtomic) << kind;
  }
}

TEST(PatchSchemaTest, ResourceClaimStatusLists) {
  const PatchSchema& schema = SchemaForKind("ResourceClaim");
  const ListRule* reserved = schema.FindList("status.reservedFor");
  ASSERT_NE(reserved, nullptr);
  EXPECT_EQ(reserved->keys, std::vector<std::string>{"uid"});
  EXPECT_TRUE(reserved->smp_merge);
  const ListRule* devices = schema.FindList("status.devices");
  ASSERT_NE(devices, nullptr);
  EXPECT_EQ(devices->kind, ListKind::kMap);
  EXPECT_EQ(devices->keys,
            (std::vector<std::string>{"driver", "pool", "device", "shareID"}));
  EXPECT_FALSE(devices->smp_merge);
  const ListRule* conditions = schema.FindList("status.devices[].conditions");
  ASSERT_NE(conditions, nullptr);
  EXPECT_EQ(conditions->keys, std::vector<std::string>{"type"});
  // DRA spec lists are atomic.
  EXPECT_EQ(schema.FindList("spec.devices.requests"), nullptr);
  EXPECT_EQ(SchemaForKind("ResourceSlice").FindList("spec.devices"), nullptr);
}

TEST(PatchSchemaTest, PodAndNodeLists) {
  const PatchSchema& pod = SchemaForKind("Pod");
  ASSERT_NE(pod.FindList("spec.containers"), nullptr);
  EXPECT_EQ(pod.FindList("spec.containers")->keys[0], "name");
  ASSERT_NE(pod.FindList("spec.containers[].ports"), nullptr);
  EXPECT_EQ(pod.FindList("spec.containers[].ports")->keys[0], "containerPort");
  EXPECT_EQ(pod.FindList("spec.initContainers[].env")->keys[0], "name");
  EXPECT_EQ(pod.FindList("spec.containers[].volumeMounts")->keys[0],
            "mountPath");
  EXPECT_EQ(pod.FindList("spec.tolerations")->kind, ListKind::kAtomic);
  EXPECT_EQ(pod.FindList("status.resourceClaimStatuses")->keys[0], "name");
  const PatchSchema& node = SchemaForKind("Node");
  EXPECT_EQ(node.FindList("spec.taints")->kind, ListKind::kAtomic);
  EXPECT_EQ(node.FindList("status.addresses")->keys[0], "type");
  EXPECT_EQ(node.FindList("status.conditions")->keys[0], "type");
}

// Every rule of every kind, as "path kind keys merge": the field tables
// (api/types) state exactly these.
std::vector<std::string> Describe(const PatchSchema& schema) {
  std::vector<std::string> out;
  for (const auto& [path, rule] : schema.lists()) {
    std::string line = path + " " + std::to_string(static_cast<int>(rule.kind));
    for (const std::string& key : rule.keys) line += " " + key;
    line += rule.smp_merge ? " merge" : " replace";
    out.push_back(line);
  }
  return out;
}

TEST(PatchSchemaTest, RulesPerKind) {
  const std::vector<std::string> meta = {
      "metadata.finalizers 1 merge", "metadata.managedFields 0 replace",
      "metadata.ownerReferences 2 uid merge"};
  for (const char* kind : {"DeviceClass", "ResourceSlicePatch", "Namespace",
                           "Event", "SomethingUnknown"}) {
    EXPECT_EQ(Describe(SchemaForKind(kind)), meta) << kind;
  }
  // derivedAttributes: a map keyed by name for apply, replaced by
  // strategic merge (no patchStrategy upstream).
  std::vector<std::string> claim_template = meta;
  claim_template.push_back(
      "spec.spec.devices.requests[].exactly.derivedAttributes 2 name replace");
  EXPECT_EQ(Describe(SchemaForKind("ResourceClaimTemplate")), claim_template);
  std::vector<std::string> slice = meta;
  slice.push_back("spec.skipNodeOperations 1 replace");
  EXPECT_EQ(Describe(SchemaForKind("ResourceSlice")), slice);
  std::vector<std::string> claim = meta;
  claim.insert(claim.end(),
               {"spec.devices.requests[].exactly.derivedAttributes 2 name "
                "replace",
                "status.allocation.devices.results[].skipNodeOperations 1 "
                "replace",
                "status.devices 2 driver pool device shareID replace",
                "status.devices[].conditions 2 type merge",
                "status.reservedFor 2 uid merge"});
  EXPECT_EQ(Describe(SchemaForKind("ResourceClaim")), claim);
  std::vector<std::string> rule = meta;
  rule.push_back("status.conditions 2 type merge");
  EXPECT_EQ(Describe(SchemaForKind("DeviceTaintRule")), rule);
  std::vector<std::string> node = meta;
  node.insert(node.end(), {"spec.podCIDRs 1 merge", "spec.taints 0 replace",
                           "status.addresses 2 type merge",
                           "status.conditions 2 type merge",
                           "status.declaredFeatures 0 replace"});
  EXPECT_EQ(Describe(SchemaForKind("Node")), node);
  std::vector<std::string> pod = meta;
  for (const char* list :
       {"spec.containers", "spec.ephemeralContainers", "spec.initContainers"}) {
    const std::string item = std::string(list) + "[]";
    pod.insert(pod.end(),
               {std::string(list) + " 2 name merge", item + ".env 2 name merge",
                item + ".ports 2 containerPort protocol merge",
                item + ".resources.claims 2 name replace",
                item + ".volumeDevices 2 devicePath merge",
                item + ".volumeMounts 2 mountPath merge"});
  }
  pod.insert(
      pod.end(),
      {"spec.imagePullSecrets 2 name merge", "spec.resourceClaims 2 name merge",
       "spec.resources.claims 2 name replace", "spec.tolerations 0 replace",
       "spec.volumes 2 name merge", "status.conditions 2 type merge",
       "status.extendedResourceClaimStatus.requestMappings 0 replace",
       "status.nodeAllocatableResourceClaimStatuses 2 "
       "resourceClaimName merge",
       "status.nodeAllocatableResourceClaimStatuses[].mapping 2 name "
       "merge",
       "status.nodeAllocatableResourceClaimStatuses[].overhead 2 name "
       "merge",
       "status.resourceClaimStatuses 2 name merge"});
  std::sort(pod.begin(), pod.end());
  // The scheduling constraints (affinity terms, label selectors, spread
  // constraints) bring many atomic lists: checked apart, by example.
  std::vector<std::string> scheduling;
  std::vector<std::string> rest;
  for (std::string& entry : Describe(SchemaForKind("Pod"))) {
    const bool constraint = entry.starts_with("spec.affinity.") ||
                            entry.starts_with("spec.topologySpreadConstraints");
    (constraint ? scheduling : rest).push_back(std::move(entry));
  }
  EXPECT_EQ(rest, pod);
  for (const char* expected :
       {"spec.affinity.nodeAffinity."
        "preferredDuringSchedulingIgnoredDuringExecution 0 replace",
        "spec.affinity.podAntiAffinity."
        "requiredDuringSchedulingIgnoredDuringExecution 0 replace",
        "spec.affinity.podAffinity."
        "requiredDuringSchedulingIgnoredDuringExecution[].labelSelector."
        "matchExpressions 0 replace",
        "spec.topologySpreadConstraints 2 topologyKey whenUnsatisfiable "
        "merge",
        "spec.topologySpreadConstraints[].matchLabelKeys 0 replace"}) {
    EXPECT_NE(std::find(scheduling.begin(), scheduling.end(), expected),
              scheduling.end())
        << expected;
  }
}

TEST(PatchSchemaTest, JoinSchemaPath) {
  EXPECT_EQ(JoinSchemaPath("", "spec"), "spec");
  EXPECT_EQ(JoinSchemaPath("spec", "devices"), "spec.devices");
  EXPECT_EQ(JoinSchemaPath("status.devices[]", "conditions"),
            "status.devices[].conditions");
}

}  // namespace
}  // namespace dralloc::patch
