// Parity of the two ApiClient implementations that share the registry's
// write rules: the same writes sent to InProcessApiClient (ResourceStorage
// over a MemoryStore) and to client::MemoryApiClient (validating) give the
// same objects and the same errors. The writes are a case file of steps,
// tests/registry/parity_writes.jsonl (its header describes the format).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/resource_registry.h"
#include "apiserver/in_process_api_client.h"
#include "apiserver/resource_storage.h"
#include "client/memory_api_client.h"
#include "patch/merge_patch.h"
#include "store/memory_store.h"

namespace dralloc::apiserver {
namespace {

constexpr std::string_view kCaseFile = "tests/registry/parity_writes.jsonl";

// What may differ between the two: uids, resourceVersions, timestamps,
// generated name suffixes, managedFields; a deletionTimestamp only counts
// as set.
void Scrub(Json& json) {
  if (json.is_array()) {
    for (Json& item : json) Scrub(item);
    return;
  }
  if (!json.is_object()) return;
  for (const char* key : {"uid", "resourceVersion", "creationTimestamp",
                          "managedFields", "lastTransitionTime"}) {
    json.erase(key);
  }
  if (json.contains("deletionTimestamp")) json["deletionTimestamp"] = "set";
  if (json.contains("generateName") && json.contains("name")) {
    json["name"] = json["generateName"].get<std::string>() + "*";
  }
  for (auto& [key, value] : json.items()) Scrub(value);
}

std::string Describe(const api::Object& object) {
  auto text = api::EncodeObjectText(object, api::PreferredVersion(object));
  if (!text.ok()) return "unencodable: " + text.status().ToString();
  Json json = Json::parse(*text);
  Scrub(json);
  return json.dump();
}

std::string Describe(const Status& status) {
  static const std::regex kUid(
      "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  return fmt::format(
      "error {}: {}", StatusCodeName(status.code()),
      std::regex_replace(std::string(status.message()), kUid, "<uid>"));
}

std::string Describe(const StatusOr<client::ObjectPtr>& result) {
  if (!result.ok()) return Describe(result.status());
  return "ok " + Describe(**result);
}

StatusOr<api::Object> ObjectOf(const Json& json) {
  return DecodeObject(json.dump());
}

// One step of the case file on `api`, described for comparison.
std::string RunStep(client::ApiClient& api, const Json& step) {
  const std::string op = step.at("op");
  if (op == "create") {
    auto object = ObjectOf(step.at("object"));
    if (!object.ok()) return "bad case: " + object.status().ToString();
    return Describe(api.Create(std::move(*object)));
  }
  const api::ResourceInfo* info =
      api::FindResourceByKind(step.value("kind", std::string("Pod")));
  if (info == nullptr) return "bad case: unknown kind";
  const std::string ns = step.value("namespace", std::string());
  const std::string name = step.at("name");
  if (op == "delete") {
    client::DeleteOptions options;
    if (auto grace = step.find("gracePeriodSeconds"); grace != step.end()) {
      options.grace_period_seconds = grace->get<int64_t>();
    }
    Status deleted = api.Delete(*info, ns, name, options);
    return deleted.ok() ? "ok" : Describe(deleted);
  }
  if (op == "bind") {
    Status bound = api.Bind(ns, name, "", step.at("node").get<std::string>());
    return bound.ok() ? "ok" : Describe(bound);
  }
  auto current = api.Get(*info, ns, name);
  if (op == "get" || !current.ok()) return Describe(current);
  auto text =
      api::EncodeObjectText(**current, api::PreferredVersion(**current));
  if (!text.ok()) return "bad case: " + text.status().ToString();
  auto merged = patch::ApplyMergePatch(Json::parse(*text), step.at("merge"));
  if (!merged.ok()) return "bad case: " + merged.status().ToString();
  auto next = ObjectOf(*merged);
  if (!next.ok()) return "bad case: " + next.status().ToString();
  if (op == "update") return Describe(api.Update(std::move(*next)));
  if (op == "updateStatus") return Describe(api.UpdateStatus(std::move(*next)));
  if (op == "updateWithStatus") {
    return Describe(api.UpdateWithStatus(std::move(*next)));
  }
  return "bad case: unknown op " + op;
}

std::vector<std::string> Everything(client::ApiClient& api) {
  std::vector<std::string> out;
  for (const api::ResourceInfo& info : api::AllResources()) {
    auto list = api.List(info);
    if (!list.ok()) {
      out.push_back(Describe(list.status()));
      continue;
    }
    for (const client::ObjectPtr& object : list->items) {
      out.push_back(Describe(*object));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RegistryParityTest, ServerAndMemoryApiAgreeOnEveryWrite) {
  store::MemoryStore store;
  ResourceStorage storage(store);
  InProcessApiClient server(storage, "parity");
  client::MemoryApiClient memory({.validate = true});
  std::ifstream in{std::string(kCaseFile)};
  ASSERT_TRUE(in) << kCaseFile;
  std::string line;
  int line_number = 0, steps = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t") == std::string::npos || line[0] == '#') {
      continue;
    }
    const Json step = Json::parse(line, nullptr, false);
    ASSERT_FALSE(step.is_discarded()) << kCaseFile << ":" << line_number;
    const std::string from_server = RunStep(server, step);
    const std::string from_memory = RunStep(memory, step);
    SCOPED_TRACE(fmt::format("{}:{}", kCaseFile, line_number));
    EXPECT_EQ(from_server, from_memory);
    const std::string expect = step.value("expect", std::string());
    EXPECT_NE(from_server.find(expect), std::string::npos)
        << "expected \"" << expect << "\" in " << from_server;
    EXPECT_EQ(from_server.find("bad case"), std::string::npos) << from_server;
    ++steps;
  }
  EXPECT_GT(steps, 30);
  EXPECT_EQ(Everything(server), Everything(memory));
}

}  // namespace
}  // namespace dralloc::apiserver
