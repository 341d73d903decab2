#include "patch/patch_schema.h"

#include <gtest/gtest.h>

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

TEST(PatchSchemaTest, JoinSchemaPath) {
  EXPECT_EQ(JoinSchemaPath("", "spec"), "spec");
  EXPECT_EQ(JoinSchemaPath("spec", "devices"), "spec.devices");
  EXPECT_EQ(JoinSchemaPath("status.devices[]", "conditions"),
            "status.devices[].conditions");
}

}  // namespace
}  // namespace dralloc::patch
