#include "api/kind_traits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "api/codec.h"
#include "api/resource_registry.h"
#include "api/struct_codec.h"

namespace dralloc::api {
namespace {

TEST(KindTraitsTest, EveryKindIsDescribedOnce) {
  std::set<std::pair<std::string_view, std::string_view>> kinds;
  std::set<int> listings;
  ForEachKind([&]<typename T>(const KindTraits& traits) {
    EXPECT_EQ(KindName<T>(), traits.kind);
    EXPECT_TRUE(kinds.insert({traits.api_versions[0], traits.kind}).second)
        << traits.kind;
    EXPECT_TRUE(listings.insert(traits.listing).second) << traits.kind;
    EXPECT_FALSE(traits.plural.empty()) << traits.kind;
    EXPECT_FALSE(traits.api_versions[0].empty()) << traits.kind;
    EXPECT_NE(traits.api_versions[0], traits.converted_version);
    if (!traits.converted_version.empty()) {
      EXPECT_NE(std::find(traits.api_versions.begin(),
                          traits.api_versions.end(), traits.converted_version),
                traits.api_versions.end())
          << traits.kind;
    }
    for (std::string_view version : traits.api_versions) {
      if (version.empty()) continue;
      EXPECT_EQ(FindKindTraits(version, traits.kind), &traits) << version;
      EXPECT_EQ(FindResourceByKind(version, traits.kind),
                &ResourceInfoFor<T>());
    }
    EXPECT_EQ(ResourceInfoFor<T>().listing, traits.listing);
    EXPECT_EQ(&TraitsOf(Object(std::in_place_type<T>)), &traits);
    EXPECT_EQ(&ResourceInfoOf(Object(std::in_place_type<T>)),
              &ResourceInfoFor<T>());
    EXPECT_EQ(FindResourceByKind(traits.kind)->plural, traits.plural);
  });
  EXPECT_EQ(kinds.size(), kKindCount);
  // Listing positions are 0..N-1.
  EXPECT_EQ(*listings.begin(), 0);
  EXPECT_EQ(*listings.rbegin(), static_cast<int>(kKindCount) - 1);
  EXPECT_EQ(FindKindTraits("List"), nullptr);
}

TEST(KindTraitsTest, RegistryOrderAndVersions) {
  std::vector<std::string_view> kinds;
  for (const ResourceInfo& info : AllResources()) kinds.push_back(info.kind);
  EXPECT_EQ(kinds, (std::vector<std::string_view>{"Namespace",
                                                  "Node",
                                                  "Pod",
                                                  "Event",
                                                  "DeviceClass",
                                                  "ResourceClaim",
                                                  "ResourceClaimTemplate",
                                                  "ResourceSlice",
                                                  "DeviceTaintRule",
                                                  "ResourceSlicePatch",
                                                  "Lease",
                                                  "ClusterRole",
                                                  "Role",
                                                  "ClusterRoleBinding",
                                                  "RoleBinding",
                                                  "ResourceQuota",
                                                  "ServiceAccount",
                                                  "Secret",
                                                  "ConfigMap",
                                                  "ResourcePoolStatusRequest",
                                                  "ResourceClass",
                                                  "ResourceClaim",
                                                  "ResourceClaimTemplate",
                                                  "PodSchedulingContext",
                                                  "ResourceSlice",
                                                  "ResourceClaimParameters",
                                                  "ResourceClassParameters"}));
  EXPECT_EQ(ServedGroups(), (std::vector<std::string_view>{
                                "", "resource.k8s.io", "coordination.k8s.io",
                                "rbac.authorization.k8s.io"}));
  EXPECT_EQ(GroupVersions("coordination.k8s.io"),
            std::vector<std::string_view>{"v1"});
  EXPECT_EQ(GroupVersions(""), std::vector<std::string_view>{"v1"});
  EXPECT_EQ(GroupVersions("resource.k8s.io"),
            (std::vector<std::string_view>{"v1", "v1beta2", "v1beta1",
                                           "v1alpha3", "v1alpha2"}));
  EXPECT_TRUE(GroupVersions("apps").empty());
  EXPECT_EQ(FindResourceByKind("ResourceClaim")->versions,
            (std::vector<std::string_view>{"v1", "v1beta2", "v1beta1"}));
  EXPECT_EQ(FindResourceByKind("Pod")->short_names,
            std::vector<std::string_view>{"po"});
  EXPECT_EQ(FindResourceByKind("Event")->field_labels.size(), 11u);
  EXPECT_TRUE(FindResourceByKind("DeviceClass")->short_names.empty());
}

// docs/classic-dra.md, section 3: the shared resources are two entries, one
// per family, each with its own store keys, linked to each other.
TEST(KindTraitsTest, SharedResourcesAreOneEntryPerFamily) {
  const ResourceInfo& structured = ResourceInfoFor<ResourceClaim>();
  const ResourceInfo& classic = ResourceInfoFor<v1alpha2::ResourceClaim>();
  EXPECT_EQ(structured.sibling, &classic);
  EXPECT_EQ(classic.sibling, &structured);
  EXPECT_EQ(structured.store_prefix, "resourceclaims");
  EXPECT_EQ(classic.store_prefix, "v1alpha2/resourceclaims");
  EXPECT_FALSE(structured.IsClassic());
  EXPECT_TRUE(classic.IsClassic());
  EXPECT_EQ(classic.versions, std::vector<std::string_view>{"v1alpha2"});
  EXPECT_EQ(FindResource("resource.k8s.io", "v1alpha2", "resourceclaims"),
            &classic);
  EXPECT_EQ(FindResource("resource.k8s.io", "v1", "resourceclaims"),
            &structured);
  EXPECT_EQ(FindResourceByKind("ResourceClaim"), &structured);
  EXPECT_EQ(FindResourceByKind(kResourceV1alpha2, "ResourceClaim"), &classic);
  EXPECT_EQ(FindResourceByKind(kResourceV1beta1, "ResourceClaim"), &structured);
  EXPECT_EQ(FindResourceByKind(kResourceV1alpha2, "DeviceClass"), nullptr);
  EXPECT_EQ(ResourceInfoFor<v1alpha2::ResourceSlice>().field_labels,
            (std::vector<std::string_view>{"nodeName", "driverName"}));
  // Kinds of one family only have no sibling.
  EXPECT_EQ(ResourceInfoFor<v1alpha2::ResourceClass>().sibling, nullptr);
  EXPECT_EQ(ResourceInfoFor<DeviceClass>().sibling, nullptr);
  EXPECT_EQ(ResourceInfoFor<Pod>().store_prefix, "pods");
}

TEST(KindTraitsTest, CodecVersionsFollowTraits) {
  EXPECT_EQ(ServedVersions("DeviceTaintRule"),
            (std::vector<std::string_view>{kResourceV1, kResourceV1beta2,
                                           kResourceV1alpha3}));
  EXPECT_EQ(
      ServedVersions("ResourceSlice"),
      (std::vector<std::string_view>{kResourceV1, kResourceV1beta2,
                                     kResourceV1beta1, kResourceV1alpha2}));
  EXPECT_EQ(ServedVersions(Object(v1alpha2::ResourceSlice{})),
            std::vector<std::string_view>{kResourceV1alpha2});
  EXPECT_TRUE(IsServed(kResourceV1alpha2, "ResourceClaim"));
  EXPECT_FALSE(IsServed(kResourceV1, Object(v1alpha2::ResourceClaim{})));
  EXPECT_TRUE(IsServed(kResourceV1alpha2, Object(v1alpha2::ResourceClaim{})));
  EXPECT_FALSE(IsServed(kResourceV1alpha2, Object(ResourceClaim{})));
  EXPECT_EQ(PreferredVersion(Object(v1alpha2::ResourceClaim{})),
            kResourceV1alpha2);
  EXPECT_EQ(PreferredVersion(Object(ResourceClaim{})), kResourceV1);
  EXPECT_EQ(ServedVersions("ResourceSlicePatch"),
            std::vector<std::string_view>{kResourceV1alpha3});
  EXPECT_TRUE(IsServed(kResourceV1beta1, "ResourceClaim"));
  EXPECT_FALSE(IsServed(kResourceV1beta1, "DeviceTaintRule"));
  EXPECT_FALSE(IsServed(kResourceV1, "Pod"));
  EXPECT_TRUE(ServedVersions("Unknown").empty());
}

TEST(KindTraitsTest, CreationRanks) {
  std::vector<std::string_view> by_rank(kKindCount);
  ForEachKind([&]<typename T>(const KindTraits& traits) {
    by_rank.at(static_cast<size_t>(traits.creation_rank)) = traits.kind;
  });
  EXPECT_EQ(by_rank,
            (std::vector<std::string_view>{"Namespace",
                                           "Node",
                                           "DeviceClass",
                                           "ResourceClass",
                                           "ResourceSlice",
                                           "ResourceSlice",
                                           "ResourceSlicePatch",
                                           "DeviceTaintRule",
                                           "ResourceClassParameters",
                                           "ResourceClaimParameters",
                                           "ResourceClaimTemplate",
                                           "ResourceClaimTemplate",
                                           "ResourceClaim",
                                           "ResourceClaim",
                                           "Pod",
                                           "PodSchedulingContext",
                                           "Event",
                                           "Lease",
                                           "ClusterRole",
                                           "Role",
                                           "ClusterRoleBinding",
                                           "RoleBinding",
                                           "ResourceQuota",
                                           "ServiceAccount",
                                           "Secret",
                                           "ConfigMap",
                                           "ResourcePoolStatusRequest"}));
  EXPECT_EQ(CreationRank("Pod"), 14);
  EXPECT_EQ(CreationRank("Unknown"), 27);
  EXPECT_EQ(CreationRank(Object(v1alpha2::ResourceClaim{})), 13);
  EXPECT_EQ(CreationRank(Object(ResourceClaim{})), 12);
}

// Field-table checks over every type reachable from a kind.
template <typename T>
void CheckStruct(std::set<std::string>& problems);

template <typename V>
void CheckValue(std::set<std::string>& problems) {
  if constexpr (IsOptional<V>::value || IsVector<V>::value) {
    CheckValue<typename V::value_type>(problems);
  } else if constexpr (Reflected<V> || HasKeptFields<V>) {
    CheckStruct<V>(problems);
  }
}

template <typename Item>
bool HasField(std::string_view name) {
  bool found = false;
  ForEachField<Item>([&](const auto& field) { found |= field.name == name; });
  return found;
}

// A list rule sits on a list, and a map list's keys are fields of its items.
template <typename Shape, typename Field>
void CheckListRule(const Field& field, std::set<std::string>& problems) {
  const std::string name(field.name);
  if (field.list.type != ListType::kUnstated && !IsVector<Shape>::value) {
    problems.insert(name + ": a list rule on a non-list");
  }
  if (field.list.type == ListType::kMap && field.list.KeyCount() == 0) {
    problems.insert(name + ": a map list without keys");
  }
  if constexpr (IsVector<Shape>::value) {
    using Item = typename Shape::value_type;
    if constexpr (Reflected<Item>) {
      for (size_t i = 0; i < field.list.KeyCount(); ++i) {
        if (!HasField<Item>(field.list.keys[i])) {
          problems.insert(name + ": no key field " +
                          std::string(field.list.keys[i]));
        }
      }
    }
  }
}

// Besides list rules: protobuf numbers are unique within a message, and a
// message that has them has them on every field (but an object's apiVersion
// and kind, which the envelope carries), so protobuf bodies see every
// modelled field.
template <typename T>
void CheckStruct(std::set<std::string>& problems) {
  std::set<uint32_t> numbers;
  size_t fields = 0;
  size_t numbered = 0;
  auto check = [&]<typename Shape>(const auto& field, const Shape*) {
    CheckListRule<Shape>(field, problems);
    if (field.proto != 0) {
      ++numbered;
      if (!numbers.insert(field.proto).second) {
        problems.insert(std::string(field.name) + ": duplicate number " +
                        std::to_string(field.proto));
      }
    }
    CheckValue<Shape>(problems);
  };
  if constexpr (Reflected<T>) {
    ForEachField<T>([&](const auto& field) {
      using Shape = typename std::decay_t<decltype(field)>::ShapeType;
      const bool type_meta = field.name == "apiVersion" || field.name == "kind";
      if (field.proto != 0 || !type_meta) ++fields;
      check(field, static_cast<const Shape*>(nullptr));
    });
  }
  ForEachKeptField<T>([&](const auto& field) {
    using Value = typename std::decay_t<decltype(field)>::ValueType;
    if (field.proto != 0) ++fields;  // kept fields need no number
    check(field, static_cast<const Value*>(nullptr));
  });
  if (numbered != 0 && numbered != fields) {
    problems.insert(std::to_string(numbered) + " of " + std::to_string(fields) +
                    " fields have protobuf numbers in a message with " +
                    std::to_string(*numbers.begin()));
  }
}

TEST(KindTraitsTest, FieldTablesAreConsistent) {
  std::set<std::string> problems;
  ForEachKind([&]<typename T>(const KindTraits&) { CheckStruct<T>(problems); });
  EXPECT_TRUE(problems.empty()) << *problems.begin();
}

// Which kinds have protobuf numbers: the core/v1 and coordination.k8s.io
// ones, whose typed clients (kubectl, client-go's leader election) send
// protobuf bodies.
TEST(KindTraitsTest, CoreKindsHaveProtobufNumbers) {
  ForEachKind([&]<typename T>(const KindTraits& traits) {
    bool numbered = false;
    ForEachField<T>([&](const auto& field) { numbered |= field.proto != 0; });
    EXPECT_EQ(numbered, traits.group.empty() ||
                            traits.group == "coordination.k8s.io" ||
                            traits.group == "rbac.authorization.k8s.io")
        << traits.kind;
  });
}

}  // namespace
}  // namespace dralloc::api
