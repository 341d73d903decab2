#include "patch/server_side_apply.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

namespace dralloc::patch {
namespace {

Json J(std::string_view text) { return Json::parse(text); }

ApplyOptions Manager(std::string name, bool force = false) {
  return ApplyOptions{std::move(name), force, "resource.k8s.io/v1",
                      "2025-01-02T03:04:05Z", ""};
}

const Json* FindEntry(const Json& object, std::string_view manager,
                      std::string_view operation) {
  for (const Json& entry : object["metadata"]["managedFields"]) {
    if (entry["manager"] == manager && entry["operation"] == operation) {
      return &entry;
    }
  }
  return nullptr;
}

Json Claim(std::string_view spec_and_more) {
  Json claim = J(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
                     "metadata":{"name":"c","namespace":"default"}})");
  const Json extra = J(spec_and_more);
  for (const auto& [key, value] : extra.items()) {
    if (key == "metadata") {
      for (const auto& [k, v] : value.items()) claim["metadata"][k] = v;
    } else {
      claim[key] = value;
    }
  }
  return claim;
}

Json WithoutManagedFields(Json object) {
  object["metadata"].erase("managedFields");
  return object;
}

const PatchSchema& ClaimSchema() { return SchemaForKind("ResourceClaim"); }

TEST(ServerSideApplyTest, CreateRecordsApplyEntry) {
  Json applied = Claim(R"({"metadata":{"labels":{"app":"demo"}},
      "spec":{"devices":{"requests":[{"name":"gpu"}]}}})");
  auto outcome =
      ServerSideApply(Json(), applied, ClaimSchema(), Manager("kubectl"));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_TRUE(outcome->conflicts.empty());
  EXPECT_EQ(WithoutManagedFields(outcome->object), applied);
  const Json& managed = outcome->object["metadata"]["managedFields"];
  ASSERT_EQ(managed.size(), 1u);
  EXPECT_EQ(managed[0], J(R"({"manager":"kubectl","operation":"Apply",
      "apiVersion":"resource.k8s.io/v1","time":"2025-01-02T03:04:05Z",
      "fieldsType":"FieldsV1","fieldsV1":{
        "f:metadata":{"f:labels":{"f:app":{}}},
        "f:spec":{"f:devices":{"f:requests":{}}}}})"));
}

TEST(ServerSideApplyTest, IgnoresServerOwnedMetadataInConfig) {
  Json applied = Claim(R"({"metadata":{"resourceVersion":"5","uid":"u",
      "generation":3,"managedFields":[{"manager":"x"}]},"spec":{"a":1}})");
  auto outcome =
      ServerSideApply(Json(), applied, ClaimSchema(), Manager("kubectl"));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  const Json& metadata = outcome->object["metadata"];
  EXPECT_FALSE(metadata.contains("resourceVersion"));
  EXPECT_FALSE(metadata.contains("uid"));
  EXPECT_FALSE(metadata.contains("generation"));
  ASSERT_EQ(metadata["managedFields"].size(), 1u);
  EXPECT_EQ(metadata["managedFields"][0]["fieldsV1"],
            J(R"({"f:spec":{"f:a":{}}})"));
}

TEST(ServerSideApplyTest, ReapplyWithoutFieldRemovesIt) {
  auto first = ServerSideApply(
      Json(),
      Claim(R"({"metadata":{"labels":{"app":"a","tier":"t"}},"spec":{"x":1}})"),
      ClaimSchema(), Manager("m"));
  ASSERT_TRUE(first.ok());
  auto second = ServerSideApply(first->object,
                                Claim(R"({"metadata":{"labels":{"app":"a"}}})"),
                                ClaimSchema(), Manager("m"));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->conflicts.empty());
  EXPECT_EQ(second->object["metadata"]["labels"], J(R"({"app":"a"})"));
  EXPECT_FALSE(second->object.contains("spec")) << second->object.dump();
  EXPECT_EQ(FindEntry(second->object, "m", "Apply")->at("fieldsV1"),
            J(R"({"f:metadata":{"f:labels":{"f:app":{}}}})"));
}

TEST(ServerSideApplyTest, SameValueIsSharedWithoutConflict) {
  auto first = ServerSideApply(Json(), Claim(R"({"spec":{"x":1,"y":2}})"),
                               ClaimSchema(), Manager("m1"));
  ASSERT_TRUE(first.ok());
  auto second = ServerSideApply(first->object, Claim(R"({"spec":{"x":1}})"),
                                ClaimSchema(), Manager("m2"));
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->conflicts.empty());
  ASSERT_NE(FindEntry(second->object, "m1", "Apply"), nullptr);
  ASSERT_NE(FindEntry(second->object, "m2", "Apply"), nullptr);
  // m1 stops applying x: m2 still owns it, so it stays; y is removed.
  auto third = ServerSideApply(second->object, Claim(R"({"metadata":{}})"),
                               ClaimSchema(), Manager("m1"));
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->object["spec"], J(R"({"x":1})"));
  EXPECT_EQ(FindEntry(third->object, "m1", "Apply"), nullptr);
}

TEST(ServerSideApplyTest, DifferentValueConflicts) {
  auto first = ServerSideApply(
      Json(), Claim(R"({"spec":{"devices":{"requests":[{"name":"a"}]}}})"),
      ClaimSchema(), Manager("other-manager"));
  ASSERT_TRUE(first.ok());
  auto second = ServerSideApply(
      first->object,
      Claim(R"({"spec":{"devices":{"requests":[{"name":"b"}]}}})"),
      ClaimSchema(), Manager("kubectl"));
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_EQ(second->conflicts.size(), 1u);
  EXPECT_EQ(second->conflicts[0].manager, "other-manager");
  EXPECT_EQ(second->conflicts[0].field, ".spec.devices.requests");
  EXPECT_EQ(ConflictMessage(second->conflicts),
            "Apply failed with 1 conflict: conflict with \"other-manager\" "
            "using resource.k8s.io/v1: .spec.devices.requests");
}

TEST(ServerSideApplyTest, ForceTransfersOwnership) {
  auto first = ServerSideApply(Json(), Claim(R"({"spec":{"x":1,"y":2}})"),
                               ClaimSchema(), Manager("m1"));
  ASSERT_TRUE(first.ok());
  auto forced = ServerSideApply(first->object, Claim(R"({"spec":{"x":5}})"),
                                ClaimSchema(), Manager("m2", /*force=*/true));
  ASSERT_TRUE(forced.ok());
  EXPECT_TRUE(forced->conflicts.empty());
  EXPECT_EQ(forced->object["spec"], J(R"({"x":5,"y":2})"));
  EXPECT_EQ(FindEntry(forced->object, "m1", "Apply")->at("fieldsV1"),
            J(R"({"f:spec":{"f:y":{}}})"));
  EXPECT_EQ(FindEntry(forced->object, "m2", "Apply")->at("fieldsV1"),
            J(R"({"f:spec":{"f:x":{}}})"));
  // m1 no longer conflicts on x: re-applying its old config now conflicts
  // with m2 instead.
  auto back =
      ServerSideApply(forced->object, Claim(R"({"spec":{"x":1,"y":2}})"),
                      ClaimSchema(), Manager("m1"));
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->conflicts.size(), 1u);
  EXPECT_EQ(back->conflicts[0].manager, "m2");
}

TEST(ServerSideApplyTest, RecordUpdateThenApplyConflicts) {
  Json created = RecordUpdate(
      Json(), Claim(R"({"metadata":{"labels":{"a":"1"}},"spec":{"x":1}})"),
      ClaimSchema(), Manager("kubectl-create"));
  const Json* update = FindEntry(created, "kubectl-create", "Update");
  ASSERT_NE(update, nullptr) << created.dump();
  EXPECT_EQ(update->at("fieldsV1"),
            J(R"({"f:metadata":{"f:labels":{".":{},"f:a":{}}},
                  "f:spec":{".":{},"f:x":{}}})"));
  auto applied = ServerSideApply(created, Claim(R"({"spec":{"x":2}})"),
                                 ClaimSchema(), Manager("kubectl"));
  ASSERT_TRUE(applied.ok());
  ASSERT_EQ(applied->conflicts.size(), 1u);
  EXPECT_EQ(applied->conflicts[0].field, ".spec.x");
  EXPECT_EQ(ConflictMessage(applied->conflicts),
            "Apply failed with 1 conflict: conflict with \"kubectl-create\" "
            "using resource.k8s.io/v1: .spec.x");
}

// Creates of alike objects reuse the first one's field set (a per-thread
// cache keyed by structure); values do not matter, members and list items do.
TEST(ServerSideApplyTest, CreatesOfAlikeObjectsRecordTheSameFields) {
  const Json expected = J(R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},
            "f:spec":{".":{},"f:x":{}}})");
  for (std::string_view value : {"1", "2", "3"}) {
    Json claim = Claim(fmt::format(
        R"({{"metadata":{{"name":"c{}","labels":{{"app":"v{}"}}}},
            "spec":{{"x":{}}}}})",
        value, value, value));
    ApplyOptions options = Manager("creator");
    options.now = fmt::format("2026-01-0{}T00:00:00Z", value);
    Json created = RecordUpdate(Json(), claim, ClaimSchema(), options);
    const Json* entry = FindEntry(created, "creator", "Update");
    ASSERT_NE(entry, nullptr) << created.dump();
    EXPECT_EQ(entry->at("fieldsV1"), expected) << value;
    EXPECT_EQ(entry->at("time"), options.now);
    EXPECT_EQ(created["metadata"]["name"], fmt::format("c{}", value));
  }
  // Another label key, and a list whose items differ: new sets.
  Json other = RecordUpdate(
      Json(), Claim(R"({"metadata":{"labels":{"tier":"a"}},"spec":{"x":1}})"),
      ClaimSchema(), Manager("creator"));
  EXPECT_EQ(FindEntry(other, "creator", "Update")->at("fieldsV1"),
            J(R"({"f:metadata":{"f:labels":{".":{},"f:tier":{}}},
                  "f:spec":{".":{},"f:x":{}}})"));
  for (std::string_view name : {"a", "b"}) {
    Json pod = J(fmt::format(
        R"({{"kind":"Pod","metadata":{{"name":"p"}},
            "spec":{{"containers":[{{"name":"{}","image":"i"}}]}}}})",
        name));
    Json created =
        RecordUpdate(Json(), pod, SchemaForKind("Pod"), Manager("creator"));
    EXPECT_EQ(FindEntry(created, "creator", "Update")->at("fieldsV1"),
              J(fmt::format(R"({{"f:spec":{{".":{{}},"f:containers":{{
                  "k:{{\"name\":\"{}\"}}":{{".":{{}},"f:image":{{}},
                  "f:name":{{}}}}}}}}}})",
                            name)))
        << name;
  }
}

TEST(ServerSideApplyTest, UpdateTakesOwnershipFromAppliers) {
  auto applied = ServerSideApply(Json(), Claim(R"({"spec":{"x":1,"y":1}})"),
                                 ClaimSchema(), Manager("m1"));
  ASSERT_TRUE(applied.ok());
  Json edited = applied->object;
  edited["spec"]["x"] = 2;
  Json updated =
      RecordUpdate(applied->object, edited, ClaimSchema(), Manager("editor"));
  EXPECT_EQ(FindEntry(updated, "m1", "Apply")->at("fieldsV1"),
            J(R"({"f:spec":{"f:y":{}}})"));
  EXPECT_EQ(FindEntry(updated, "editor", "Update")->at("fieldsV1"),
            J(R"({"f:spec":{"f:x":{}}})"));
  // Apply entries sort before Update entries.
  EXPECT_EQ(updated["metadata"]["managedFields"][0]["operation"], "Apply");
}

TEST(ServerSideApplyTest, UpdateWithoutChangesKeepsEntries) {
  auto applied = ServerSideApply(Json(), Claim(R"({"spec":{"x":1}})"),
                                 ClaimSchema(), Manager("m1"));
  ASSERT_TRUE(applied.ok());
  Json same = RecordUpdate(applied->object, applied->object, ClaimSchema(),
                           Manager("noop"));
  EXPECT_EQ(same["metadata"]["managedFields"],
            applied->object["metadata"]["managedFields"]);
}

TEST(ServerSideApplyTest, ResetManagedFieldsWithSingleEmptyEntry) {
  auto applied = ServerSideApply(Json(), Claim(R"({"spec":{"x":1}})"),
                                 ClaimSchema(), Manager("m1"));
  ASSERT_TRUE(applied.ok());
  Json reset = applied->object;
  reset["metadata"]["managedFields"] = J("[{}]");
  Json result =
      RecordUpdate(applied->object, reset, ClaimSchema(), Manager("m2"));
  EXPECT_FALSE(result["metadata"].contains("managedFields"));
}

TEST(ServerSideApplyTest, ResetThenRecordsTheWritersChanges) {
  auto applied = ServerSideApply(Json(), Claim(R"({"spec":{"x":1,"y":1}})"),
                                 ClaimSchema(), Manager("m1"));
  ASSERT_TRUE(applied.ok());
  Json reset = applied->object;
  reset["metadata"]["managedFields"] = J("[{}]");
  reset["spec"]["x"] = 2;
  Json result =
      RecordUpdate(applied->object, reset, ClaimSchema(), Manager("m2"));
  ASSERT_EQ(result["metadata"]["managedFields"].size(), 1u);
  EXPECT_EQ(FindEntry(result, "m2", "Update")->at("fieldsV1"),
            J(R"({"f:spec":{"f:x":{}}})"));
}

// The managedFields entries of `object`, one compact JSON text each.
std::vector<std::string> EntryTexts(const Json& object) {
  std::vector<std::string> texts;
  if (object.contains("metadata") &&
      object["metadata"].contains("managedFields")) {
    for (const Json& entry : object["metadata"]["managedFields"]) {
      texts.push_back(entry.dump());
    }
  }
  return texts;
}

TEST(ServerSideApplyTest, RecordUpdateEntriesMatchesRecordUpdate) {
  auto applied = ServerSideApply(Json(), Claim(R"({"spec":{"x":1,"y":1}})"),
                                 ClaimSchema(), Manager("m1"));
  ASSERT_TRUE(applied.ok());
  const Json live =
      RecordUpdate(applied->object, Claim(R"({"spec":{"x":1,"y":1,"z":1}})"),
                   ClaimSchema(), Manager("m3"));
  struct Case {
    std::string name;
    Json next;
    std::string manager;
    std::string subresource;
  };
  std::vector<Case> cases;
  auto with = [&](std::string name, auto edit, std::string manager,
                  std::string subresource = "") {
    Json next = live;
    edit(next);
    cases.push_back({std::move(name), std::move(next), std::move(manager),
                     std::move(subresource)});
  };
  with(
      "takes a field from an applier", [](Json& o) { o["spec"]["x"] = 2; },
      "editor");
  with(
      "changes nothing", [](Json&) {}, "editor");
  with(
      "changes only its own field", [](Json& o) { o["spec"]["z"] = 5; }, "m3");
  with(
      "removes a field", [](Json& o) { o["spec"].erase("y"); }, "editor");
  with(
      "resets", [](Json& o) { o["metadata"]["managedFields"] = J("[{}]"); },
      "editor");
  with(
      "resets and changes",
      [](Json& o) {
        o["metadata"]["managedFields"] = J("[{}]");
        o["spec"]["x"] = 3;
      },
      "editor");
  with(
      "sends no entries",
      [](Json& o) {
        o["metadata"].erase("managedFields");
        o["spec"]["x"] = 3;
      },
      "editor");
  with(
      "sends fewer entries",
      [](Json& o) {
        o["metadata"]["managedFields"].erase(0);
        o["spec"]["y"] = 3;
      },
      "editor");
  with(
      "sends malformed entries",
      [](Json& o) {
        o["metadata"]["managedFields"] = J(R"([1, {"manager":"x"}])");
        o["spec"]["y"] = 3;
      },
      "editor");
  with(
      "writes status", [](Json& o) { o["status"] = J(R"({"s":1})"); },
      "status-writer", "status");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ApplyOptions options = Manager(c.manager);
    options.subresource = c.subresource;
    const Json expected = RecordUpdate(live, c.next, ClaimSchema(), options);
    Json old_clean = live;
    old_clean["metadata"].erase("managedFields");
    Json new_clean = c.next;
    new_clean["metadata"].erase("managedFields");
    // Twice: the second call decodes the entries from the cache.
    for (int round = 0; round < 2; ++round) {
      EXPECT_EQ(RecordUpdateEntries(old_clean, new_clean, EntryTexts(c.next),
                                    EntryTexts(live), ClaimSchema(), options),
                EntryTexts(expected));
    }
  }
}

// Each write's entries feed the next, so entries remembered from an
// earlier write's encoding are decoded from the cache.
TEST(ServerSideApplyTest, ChainedRecordUpdateEntriesMatchRecordUpdate) {
  auto applied = ServerSideApply(Json(), Claim(R"({"spec":{"x":1,"y":1}})"),
                                 ClaimSchema(), Manager("m1"));
  ASSERT_TRUE(applied.ok());
  Json expected = applied->object;
  Json clean = WithoutManagedFields(expected);
  std::vector<std::string> entries = EntryTexts(expected);
  const std::vector<std::pair<std::string, std::string>> writes = {
      {"editor", R"({"x":2})"},
      {"editor", R"({"x":3,"z":1})"},
      {"other", R"({"x":4})"},
      {"editor", R"({"x":4,"w":[1,2]})"},
      {"editor", R"({"w":[2]})"}};
  int step = 0;
  for (const auto& [manager, spec] : writes) {
    SCOPED_TRACE(spec);
    ApplyOptions options = Manager(manager);
    options.now = fmt::format("2026-01-01T00:00:0{}Z", step++);
    Json next = expected;
    next["spec"] = J(spec);
    expected = RecordUpdate(expected, next, ClaimSchema(), options);
    const Json next_clean = WithoutManagedFields(next);
    entries = RecordUpdateEntries(clean, next_clean, entries, entries,
                                  ClaimSchema(), options);
    EXPECT_EQ(entries, EntryTexts(expected));
    clean = next_clean;
  }
}

TEST(ServerSideApplyTest, RecordCreateEntriesMatchesRecordUpdate) {
  const PatchSchema& schema = SchemaForKind("Pod");
  // Alike pods share a cache entry; values with quotes, brackets and
  // escapes must not confuse the structure scanner.
  const std::vector<std::string> pods = {
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}],"priority":1}})",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"b\"]}{","labels":{"app":"y,z"}},"spec":{"containers":[{"name":"c","image":"i"}],"priority":-25}})",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"c","labels":{"app":"x","tier":"t"}},"spec":{"containers":[{"name":"c","image":"i"}],"priority":1}})",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"d"},"spec":{"containers":[{"name":"other","image":"i"}],"priority":1}})",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"e","labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}],"priority":true}})",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"owns-nothing"}})",
  };
  for (int round = 0; round < 2; ++round) {
    for (const std::string& text : pods) {
      SCOPED_TRACE(text);
      ApplyOptions options = Manager("creator");
      options.now =
          round == 0 ? "2026-01-01T00:00:00Z" : "2026-01-02T03:04:05Z";
      int trees = 0;
      const std::vector<std::string> entries = RecordCreateEntries(
          text,
          [&] {
            ++trees;
            return J(text);
          },
          schema, options);
      EXPECT_EQ(entries,
                EntryTexts(RecordUpdate(Json(), J(text), schema, options)));
      // The second pod has the first's structure; the second round finds
      // every structure cached.
      const bool cached = round == 1 || text == pods[1];
      EXPECT_EQ(trees, cached ? 0 : 1);
    }
  }
}

TEST(ServerSideApplyTest, MapListsMergeByKeyAndEncodeSortedKeys) {
  const PatchSchema& schema = ClaimSchema();
  auto first = ServerSideApply(Json(), Claim(R"({"status":{"devices":[
      {"driver":"d","pool":"p","device":"a","data":{"x":1}}]}})"),
                               schema, Manager("driver-a"));
  ASSERT_TRUE(first.ok());
  auto second = ServerSideApply(first->object, Claim(R"({"status":{"devices":[
      {"driver":"d","pool":"p","device":"b"}]}})"),
                                schema, Manager("driver-b"));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->conflicts.empty());
  EXPECT_EQ(second->object["status"]["devices"],
            J(R"([{"driver":"d","pool":"p","device":"a","data":{"x":1}},
                  {"driver":"d","pool":"p","device":"b"}])"));
  EXPECT_EQ(FindEntry(second->object, "driver-a", "Apply")->at("fieldsV1"),
            J(R"({"f:status":{"f:devices":{
              "k:{\"device\":\"a\",\"driver\":\"d\",\"pool\":\"p\"}":{
                ".":{},"f:data":{"f:x":{}},"f:device":{},"f:driver":{},
                "f:pool":{}}}}})"));
  // driver-a changes b's data: conflict path names the item by its keys.
  auto third = ServerSideApply(second->object, Claim(R"({"status":{"devices":[
      {"driver":"d","pool":"p","device":"a","data":{"x":1}},
      {"driver":"d","pool":"p","device":"b","data":{"y":1}}]}})"),
                               schema, Manager("driver-a"));
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(third->conflicts.empty());  // data.y is new, nobody owns it
  // Removing device a from driver-a's config removes the item.
  auto fourth = ServerSideApply(third->object, Claim(R"({"status":{"devices":[
      {"driver":"d","pool":"p","device":"b","data":{"y":1}}]}})"),
                                schema, Manager("driver-a"));
  ASSERT_TRUE(fourth.ok());
  EXPECT_EQ(fourth->object["status"]["devices"],
            J(R"([{"driver":"d","pool":"p","device":"b","data":{"y":1}}])"));
}

TEST(ServerSideApplyTest, ConflictPathNamesListItemByKey) {
  const PatchSchema& schema = SchemaForKind("Pod");
  Json pod = J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
      "spec":{"containers":[{"name":"c","image":"one"}]}})");
  auto first = ServerSideApply(Json(), pod, schema, Manager("a"));
  ASSERT_TRUE(first.ok());
  pod["spec"]["containers"][0]["image"] = "two";
  auto second = ServerSideApply(first->object, pod, schema, Manager("b"));
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->conflicts.size(), 1u);
  EXPECT_EQ(second->conflicts[0].field, ".spec.containers[name=\"c\"].image");
}

TEST(ServerSideApplyTest, SetListsUnionAndEncodeValues) {
  auto first =
      ServerSideApply(Json(), Claim(R"({"metadata":{"finalizers":["a"]}})"),
                      ClaimSchema(), Manager("m1"));
  ASSERT_TRUE(first.ok());
  auto second = ServerSideApply(first->object,
                                Claim(R"({"metadata":{"finalizers":["b"]}})"),
                                ClaimSchema(), Manager("m2"));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->object["metadata"]["finalizers"], J(R"(["a","b"])"));
  EXPECT_EQ(FindEntry(second->object, "m2", "Apply")->at("fieldsV1"),
            J(R"({"f:metadata":{"f:finalizers":{"v:\"b\"":{}}}})"));
}

TEST(ServerSideApplyTest, StatusSubresourceIsRecorded) {
  ApplyOptions options = Manager("driver");
  options.subresource = "status";
  auto outcome = ServerSideApply(Json(), Claim(R"({"status":{"a":1}})"),
                                 ClaimSchema(), options);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->object["metadata"]["managedFields"][0]["subresource"],
            "status");
}

TEST(ConflictMessageTest, Formats) {
  EXPECT_EQ(ConflictMessage({}), "");
  std::vector<FieldConflict> conflicts = {
      {"b", ".spec.x", "v1", ""},
      {"a", ".spec.y", "v1", ""},
      {"b", ".spec.z", "v1", ""},
  };
  EXPECT_EQ(ConflictMessage(conflicts),
            "Apply failed with 3 conflicts: conflicts with \"a\" using v1:\n"
            "- .spec.y\n"
            "conflicts with \"b\" using v1:\n"
            "- .spec.x\n"
            "- .spec.z");
}

TEST(ServerSideApplyErrorsTest, RejectsGarbage) {
  const PatchSchema& schema = SchemaForKind("Pod");
  for (const char* applied :
       {"[1]", "\"x\"", "null", "7",
        R"({"spec":{"containers":[{"image":"no-name"}]}})",
        R"({"spec":{"containers":["scalar"]}})",
        R"({"spec":{"containers":[{"name":"a"},{"name":"a"}]}})",
        R"({"metadata":{"finalizers":[{"not":"scalar"}]}})"}) {
    auto outcome = ServerSideApply(Json(), J(applied), schema, Manager("m"));
    ASSERT_FALSE(outcome.ok()) << applied;
    EXPECT_EQ(outcome.status().code(), StatusCode::kInvalidArgument) << applied;
  }
  auto no_manager = ServerSideApply(Json(), J("{}"), schema, Manager(""));
  EXPECT_EQ(no_manager.status().code(), StatusCode::kInvalidArgument);
  Json deep = Json::object();
  for (int i = 0; i < 1000; ++i) deep = Json{{"spec", std::move(deep)}};
  auto too_deep = ServerSideApply(Json(), deep, schema, Manager("m"));
  EXPECT_EQ(too_deep.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(RecordUpdate(Json(), deep, schema, Manager("m")) == deep);
}

TEST(ServerSideApplyErrorsTest, ToleratesGarbageManagedFields) {
  for (const char* managed :
       {R"("junk")", R"([1,"x",null])",
        R"([{"manager":"m","operation":"Apply","fieldsV1":"no"}])",
        R"([{"manager":7,"operation":"Update","fieldsV1":{"f:spec":5}}])",
        R"([{"operation":"Apply","fieldsV1":{"k:bad":{"f:x":{}}}}])"}) {
    Json live = Claim(R"({"spec":{"x":1}})");
    live["metadata"]["managedFields"] = J(managed);
    auto outcome = ServerSideApply(live, Claim(R"({"spec":{"x":2}})"),
                                   ClaimSchema(), Manager("m"));
    ASSERT_TRUE(outcome.ok()) << managed << " " << outcome.status();
    Json updated = RecordUpdate(live, live, ClaimSchema(), Manager("u"));
    EXPECT_TRUE(updated.is_object());
  }
}

TEST(ServerSideApplyErrorsTest, LiveObjectWithUnkeyedItemsDoesNotFail) {
  Json live = J(R"({"kind":"Pod","metadata":{"name":"p"},
      "spec":{"containers":[{"image":"no-name"},"weird",{"name":"a"}]}})");
  auto outcome = ServerSideApply(
      live, J(R"({"spec":{"containers":[{"name":"a","image":"x"}]}})"),
      SchemaForKind("Pod"), Manager("m"));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->object["spec"]["containers"].size(), 3u);
  Json updated = RecordUpdate(Json(), live, SchemaForKind("Pod"), Manager("u"));
  EXPECT_NE(FindEntry(updated, "u", "Update"), nullptr);
}

}  // namespace
}  // namespace dralloc::patch
