#include "patch/strategic_merge_patch.h"

#include <gtest/gtest.h>

#include <string>

namespace dralloc::patch {
namespace {

Json J(std::string_view text) { return Json::parse(text); }

struct SmpCase {
  std::string name;
  std::string kind;
  std::string original;
  std::string patch;
  std::string expected;  // "" means kInvalidArgument
};

class StrategicMergePatchTest : public testing::TestWithParam<SmpCase> {};

TEST_P(StrategicMergePatchTest, Applies) {
  const SmpCase& c = GetParam();
  StatusOr<Json> result = ApplyStrategicMergePatch(J(c.original), J(c.patch),
                                                   SchemaForKind(c.kind));
  if (c.expected.empty()) {
    ASSERT_FALSE(result.ok()) << result->dump();
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument)
        << result.status();
    return;
  }
  ASSERT_TRUE(result.ok()) << result.status();
  // Exact comparison: list order matters, and no directive may remain.
  EXPECT_TRUE(JsonEqual(*result, J(c.expected)))
      << result->dump() << "\n!= " << J(c.expected).dump();
  EXPECT_EQ(result->dump().find("\"$"), std::string::npos) << result->dump();
}

INSTANTIATE_TEST_SUITE_P(
    MergePatchBehaviour, StrategicMergePatchTest,
    testing::Values(
        SmpCase{"NullDeletes", "ResourceClaim",
                R"({"metadata":{"labels":{"a":"1","b":"2"}}})",
                R"({"metadata":{"labels":{"a":null}}})",
                R"({"metadata":{"labels":{"b":"2"}}})"},
        SmpCase{"UnmatchedNullIgnored", "ResourceClaim", R"({"spec":{}})",
                R"({"spec":{"x":null},"status":{"y":null}})",
                R"({"spec":{},"status":{}})"},
        SmpCase{
            "AtomicSpecListReplaced", "ResourceClaim",
            R"({"spec":{"devices":{"requests":[{"name":"a"},{"name":"b"}]}}})",
            R"({"spec":{"devices":{"requests":[{"name":"c"}]}}})",
            R"({"spec":{"devices":{"requests":[{"name":"c"}]}}})"},
        SmpCase{"SliceDevicesAtomic", "ResourceSlice",
                R"({"spec":{"devices":[{"name":"d1"},{"name":"d2"}]}})",
                R"({"spec":{"devices":[{"name":"d3"}]}})",
                R"({"spec":{"devices":[{"name":"d3"}]}})"},
        SmpCase{
            "ClaimStatusDevicesAtomicForSmp", "ResourceClaim",
            R"({"status":{"devices":[{"driver":"x","pool":"p","device":"a"}]}})",
            R"({"status":{"devices":[{"driver":"x","pool":"p","device":"b"}]}})",
            R"({"status":{"devices":[{"driver":"x","pool":"p","device":"b"}]}})"},
        SmpCase{"TypeChangeReplaces", "Pod", R"({"spec":{"a":{"b":1}}})",
                R"({"spec":{"a":[1,2]}})", R"({"spec":{"a":[1,2]}})"}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    MergeByKey, StrategicMergePatchTest,
    testing::Values(
        SmpCase{
            "UpdatesMatchingContainer", "Pod",
            R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}})",
            R"({"spec":{"containers":[{"name":"b","image":"z"}]}})",
            R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"z"}]}})"},
        SmpCase{
            "AppendsNewContainer", "Pod",
            R"({"spec":{"containers":[{"name":"a","image":"x"}]}})",
            R"({"spec":{"containers":[{"name":"c","image":"q"}]}})",
            R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"c","image":"q"}]}})"},
        SmpCase{
            "NestedPortsMergeByContainerPort", "Pod",
            R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"}]}]}})",
            R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":443}]}]}})",
            R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http","protocol":"TCP"},{"containerPort":443}]}]}})"},
        SmpCase{"DeleteDirectiveRemovesItem", "Pod",
                R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
                R"({"spec":{"containers":[{"name":"a","$patch":"delete"}]}})",
                R"({"spec":{"containers":[{"name":"b"}]}})"},
        SmpCase{
            "ReplaceDirectiveReplacesList", "Pod",
            R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
            R"({"spec":{"containers":[{"name":"c"},{"$patch":"replace"}]}})",
            R"({"spec":{"containers":[{"name":"c"}]}})"},
        SmpCase{
            "ReservedForByUid", "ResourceClaim",
            R"({"status":{"reservedFor":[{"resource":"pods","name":"p1","uid":"1"}]}})",
            R"({"status":{"reservedFor":[{"resource":"pods","name":"p2","uid":"2"}]}})",
            R"({"status":{"reservedFor":[{"resource":"pods","name":"p1","uid":"1"},{"resource":"pods","name":"p2","uid":"2"}]}})"},
        SmpCase{
            "ReservedForDeleteByUid", "ResourceClaim",
            R"({"status":{"reservedFor":[{"name":"p1","uid":"1"},{"name":"p2","uid":"2"}]}})",
            R"({"status":{"reservedFor":[{"uid":"1","$patch":"delete"}]}})",
            R"({"status":{"reservedFor":[{"name":"p2","uid":"2"}]}})"},
        SmpCase{
            "PodConditionsByType", "Pod",
            R"({"status":{"conditions":[{"type":"Ready","status":"False"},{"type":"PodScheduled","status":"True"}]}})",
            R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})",
            R"({"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"PodScheduled","status":"True"}]}})"},
        SmpCase{
            "NullInsideMergedItemDeletes", "Pod",
            R"({"spec":{"containers":[{"name":"a","image":"x","args":["1"]}]}})",
            R"({"spec":{"containers":[{"name":"a","args":null}]}})",
            R"({"spec":{"containers":[{"name":"a","image":"x"}]}})"},
        SmpCase{
            "OwnerReferencesByUid", "ResourceClaim",
            R"({"metadata":{"ownerReferences":[{"uid":"u1","name":"a"}]}})",
            R"({"metadata":{"ownerReferences":[{"uid":"u1","name":"b"}]}})",
            R"({"metadata":{"ownerReferences":[{"uid":"u1","name":"b"}]}})"},
        SmpCase{"MergeListCreatedWhenAbsent", "Pod", R"({"spec":{}})",
                R"({"spec":{"volumes":[{"name":"v","emptyDir":{"x":null}}]}})",
                R"({"spec":{"volumes":[{"name":"v","emptyDir":{}}]}})"},
        SmpCase{"NodeTaintsAtomic", "Node",
                R"({"spec":{"taints":[{"key":"a","effect":"NoSchedule"}]}})",
                R"({"spec":{"taints":[{"key":"b","effect":"NoSchedule"}]}})",
                R"({"spec":{"taints":[{"key":"b","effect":"NoSchedule"}]}})"}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    PrimitiveLists, StrategicMergePatchTest,
    testing::Values(
        SmpCase{"FinalizersUnion", "ResourceClaim",
                R"({"metadata":{"finalizers":["a","b"]}})",
                R"({"metadata":{"finalizers":["c"]}})",
                R"({"metadata":{"finalizers":["a","b","c"]}})"},
        // Like upstream, the values the patch names take the patch's order.
        SmpCase{"FinalizersNoDuplicates", "ResourceClaim",
                R"({"metadata":{"finalizers":["a","b"]}})",
                R"({"metadata":{"finalizers":["b","a"]}})",
                R"({"metadata":{"finalizers":["b","a"]}})"},
        SmpCase{"FinalizersKeepUnnamedOriginalPositions", "ResourceClaim",
                R"({"metadata":{"finalizers":["a","b","c"]}})",
                R"({"metadata":{"finalizers":["c","d"]}})",
                R"({"metadata":{"finalizers":["a","b","c","d"]}})"},
        SmpCase{"FinalizersCreated", "ResourceClaim", R"({"metadata":{}})",
                R"({"metadata":{"finalizers":["x"]}})",
                R"({"metadata":{"finalizers":["x"]}})"},
        SmpCase{"DeleteFromPrimitiveList", "ResourceClaim",
                R"({"metadata":{"finalizers":["a","b","c"]}})",
                R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}})",
                R"({"metadata":{"finalizers":["a","c"]}})"},
        SmpCase{
            "DeleteAndAdd", "ResourceClaim",
            R"({"metadata":{"finalizers":["a","b"]}})",
            R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"finalizers":["d"]}})",
            R"({"metadata":{"finalizers":["b","d"]}})"},
        SmpCase{"FinalizersNullDeletesList", "ResourceClaim",
                R"({"metadata":{"finalizers":["a"],"name":"n"}})",
                R"({"metadata":{"finalizers":null}})",
                R"({"metadata":{"name":"n"}})"}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Directives, StrategicMergePatchTest,
    testing::Values(
        SmpCase{"ReplaceMap", "ResourceClaim",
                R"({"metadata":{"labels":{"a":"1","b":"2"}}})",
                R"({"metadata":{"labels":{"$patch":"replace","c":"3"}}})",
                R"({"metadata":{"labels":{"c":"3"}}})"},
        SmpCase{"DeleteMap", "ResourceClaim",
                R"({"metadata":{"name":"n","annotations":{"a":"1"}}})",
                R"({"metadata":{"annotations":{"$patch":"delete"}}})",
                R"({"metadata":{"name":"n"}})"},
        SmpCase{"MergeMapIsDefault", "ResourceClaim",
                R"({"metadata":{"labels":{"a":"1"}}})",
                R"({"metadata":{"labels":{"$patch":"merge","b":"2"}}})",
                R"({"metadata":{"labels":{"a":"1","b":"2"}}})"},
        SmpCase{
            "RetainKeys", "Pod",
            R"({"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}})",
            R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})",
            R"({"spec":{"strategy":{"type":"Recreate"}}})"},
        SmpCase{
            "SetElementOrderWithPatch", "Pod",
            R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
            R"({"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"a","image":"i"}]}})",
            R"({"spec":{"containers":[{"name":"b"},{"name":"a","image":"i"}]}})"},
        SmpCase{"SetElementOrderAlone", "ResourceClaim",
                R"({"metadata":{"finalizers":["a","b","c"]}})",
                R"({"metadata":{"$setElementOrder/finalizers":["c","b","a"]}})",
                R"({"metadata":{"finalizers":["c","b","a"]}})"},
        SmpCase{"RootReplace", "ResourceClaim", R"({"a":1,"b":2})",
                R"({"$patch":"replace","c":3})", R"({"c":3})"}),
    [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Errors, StrategicMergePatchTest,
    testing::Values(
        SmpCase{"PatchIsArray", "Pod", R"({})", R"([1])", ""},
        SmpCase{"PatchIsString", "Pod", R"({})", R"("x")", ""},
        SmpCase{"PatchIsNull", "Pod", R"({})", R"(null)", ""},
        SmpCase{"UnknownMapDirective", "Pod", R"({})",
                R"({"spec":{"$patch":"explode"}})", ""},
        SmpCase{"DirectiveNotString", "Pod", R"({})",
                R"({"spec":{"$patch":1}})", ""},
        SmpCase{"ItemWithoutMergeKey", "Pod",
                R"({"spec":{"containers":[{"name":"a"}]}})",
                R"({"spec":{"containers":[{"image":"x"}]}})", ""},
        SmpCase{"DeleteWithoutMergeKey", "Pod",
                R"({"spec":{"containers":[{"name":"a"}]}})",
                R"({"spec":{"containers":[{"$patch":"delete"}]}})", ""},
        SmpCase{"MergeDirectiveInList", "Pod",
                R"({"spec":{"containers":[{"name":"a"}]}})",
                R"({"spec":{"containers":[{"$patch":"merge"}]}})", ""},
        SmpCase{"UnknownListDirective", "Pod",
                R"({"spec":{"containers":[{"name":"a"}]}})",
                R"({"spec":{"containers":[{"$patch":"nope","name":"a"}]}})",
                ""},
        SmpCase{"MixedItemTypes", "Pod", R"({})",
                R"({"spec":{"containers":[{"name":"a"},"b"]}})", ""},
        SmpCase{"ListOfLists", "ResourceClaim", R"({})",
                R"({"metadata":{"finalizers":[["a"]]}})", ""},
        SmpCase{"RetainKeysNotList", "Pod", R"({})",
                R"({"spec":{"$retainKeys":"a"}})", ""},
        SmpCase{"RetainKeysNotStrings", "Pod", R"({})",
                R"({"spec":{"$retainKeys":[1]}})", ""},
        SmpCase{"SetElementOrderNotList", "Pod", R"({"spec":{}})",
                R"({"spec":{"$setElementOrder/containers":{}}})", ""},
        SmpCase{"DeleteFromPrimitiveListNotList", "ResourceClaim",
                R"({"metadata":{"finalizers":["a"]}})",
                R"({"metadata":{"$deleteFromPrimitiveList/finalizers":"a"}})",
                ""}),
    [](const auto& info) { return info.param.name; });

TEST(StrategicMergePatchLimitsTest, DeepNestingIsRefused) {
  Json patch = Json::object();
  for (int i = 0; i < 1000; ++i) patch = Json{{"spec", std::move(patch)}};
  auto result = ApplyStrategicMergePatch(J("{}"), patch, SchemaForKind("Pod"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
}

TEST(StrategicMergePatchTest, WrongOriginalShapesDoNotCrash) {
  // The original's list holds scalars where the patch has objects, and a
  // scalar where the patch has a map: the patch value wins.
  auto result = ApplyStrategicMergePatch(
      J(R"({"spec":{"containers":["x",1],"volumes":7}})"),
      J(R"({"spec":{"containers":[{"name":"a"}],"volumes":[{"name":"v"}]}})"),
      SchemaForKind("Pod"));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)["spec"]["volumes"], J(R"([{"name":"v"}])"));
  EXPECT_EQ((*result)["spec"]["containers"].size(), 3u);
}

}  // namespace
}  // namespace dralloc::patch
