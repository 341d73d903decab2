#include "apiserver/store_object_lookup.h"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "registry/write_rules.h"

namespace dralloc::apiserver {
namespace {

std::string StringAt(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>()
                                               : std::string();
}

}  // namespace

std::optional<serviceaccount::ObjectRecord> StoreObjectLookup::Read(
    const std::string& key, bool pod) const {
  auto kv = store_.Get(key);
  if (!kv) return std::nullopt;
  const nlohmann::json object =
      nlohmann::json::parse(*kv->value, nullptr, false);
  if (!object.is_object()) return std::nullopt;
  serviceaccount::ObjectRecord record;
  const nlohmann::json& meta = object.value("metadata", nlohmann::json());
  record.uid = StringAt(meta, "uid");
  const std::string deleted = StringAt(meta, "deletionTimestamp");
  if (!deleted.empty()) {
    if (auto t = registry::ParseRfc3339(deleted)) {
      record.deletion_time = std::chrono::duration_cast<std::chrono::seconds>(
                                 t->time_since_epoch())
                                 .count();
    }
  }
  if (pod) {
    const nlohmann::json& spec = object.value("spec", nlohmann::json());
    record.service_account_name = StringAt(spec, "serviceAccountName");
    if (record.service_account_name.empty()) {
      record.service_account_name = "default";
    }
    record.node_name = StringAt(spec, "nodeName");
  }
  return record;
}

std::optional<serviceaccount::ObjectRecord> StoreObjectLookup::ServiceAccount(
    std::string_view namespace_, std::string_view name) const {
  return Read(fmt::format("/serviceaccounts/{}/{}", namespace_, name), false);
}

std::optional<serviceaccount::ObjectRecord> StoreObjectLookup::Pod(
    std::string_view namespace_, std::string_view name) const {
  return Read(fmt::format("/pods/{}/{}", namespace_, name), true);
}

std::optional<serviceaccount::ObjectRecord> StoreObjectLookup::Secret(
    std::string_view namespace_, std::string_view name) const {
  return Read(fmt::format("/secrets/{}/{}", namespace_, name), false);
}

std::optional<serviceaccount::ObjectRecord> StoreObjectLookup::Node(
    std::string_view name) const {
  return Read(fmt::format("/nodes/{}", name), false);
}

}  // namespace dralloc::apiserver
