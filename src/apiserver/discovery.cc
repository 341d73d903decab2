#include "apiserver/discovery.h"

#include <algorithm>

#include "api/resource_registry.h"

namespace dralloc::apiserver {
namespace {

Json Verbs(bool status) {
  if (status) return Json::array({"get", "patch", "update"});
  return Json::array({"create", "delete", "deletecollection", "get", "list",
                      "patch", "update", "watch"});
}

bool Serves(const api::ResourceInfo& info, std::string_view version) {
  return std::find(info.versions.begin(), info.versions.end(), version) !=
         info.versions.end();
}

Json AggregatedResource(const api::ResourceInfo& info,
                        std::string_view version) {
  Json kind = {
      {"group", info.group}, {"version", version}, {"kind", info.kind}};
  Json resource = {{"resource", info.plural},
                   {"responseKind", kind},
                   {"scope", info.namespaced ? "Namespaced" : "Cluster"},
                   {"singularResource", info.singular},
                   {"verbs", Verbs(false)}};
  if (!info.short_names.empty()) resource["shortNames"] = info.short_names;
  if (info.has_status) {
    resource["subresources"] = Json::array({{{"subresource", "status"},
                                             {"responseKind", kind},
                                             {"verbs", Verbs(true)}}});
  }
  if (info.kind == "Namespace") {
    resource["subresources"].push_back({{"subresource", "finalize"},
                                        {"responseKind", kind},
                                        {"verbs", Json::array({"update"})}});
  }
  return resource;
}

}  // namespace

Json VersionDocument(std::string_view minor) {
  const std::string git = "v1." + std::string(minor) + ".0-dralloc";
  return {{"major", "1"},
          {"minor", minor},
          {"gitVersion", git},
          {"gitCommit", "0000000000000000000000000000000000000000"},
          {"gitTreeState", "clean"},
          {"buildDate", "2026-11-22T00:00:00Z"},
          {"goVersion", "go1.24.0"},
          {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

Json AggregatedDiscovery(bool core) {
  Json items = Json::array();
  for (std::string_view group : api::ServedGroups()) {
    if (group.empty() != core) continue;
    Json versions = Json::array();
    for (std::string_view version : api::GroupVersions(group)) {
      Json resources = Json::array();
      for (const api::ResourceInfo& info : api::AllResources()) {
        if (info.group == group && Serves(info, version)) {
          resources.push_back(AggregatedResource(info, version));
        }
      }
      versions.push_back({{"version", version},
                          {"resources", resources},
                          {"freshness", "Current"}});
    }
    items.push_back({{"metadata", {{"name", group}}}, {"versions", versions}});
  }
  return {{"kind", "APIGroupDiscoveryList"},
          {"apiVersion", "apidiscovery.k8s.io/v2"},
          {"metadata", Json::object()},
          {"items", items}};
}

Json LegacyApiVersions() {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs",
           {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", ""}}}}};
}

std::optional<Json> ApiGroup(std::string_view group) {
  if (group.empty()) return std::nullopt;
  auto versions = api::GroupVersions(group);
  if (versions.empty()) return std::nullopt;
  Json list = Json::array();
  for (std::string_view v : versions) {
    list.push_back({{"groupVersion", std::string(group) + "/" + std::string(v)},
                    {"version", v}});
  }
  return Json{{"kind", "APIGroup"},
              {"apiVersion", "v1"},
              {"name", group},
              {"versions", list},
              {"preferredVersion", list[0]}};
}

Json LegacyApiGroupList() {
  Json groups = Json::array();
  for (std::string_view group : api::ServedGroups()) {
    if (auto g = ApiGroup(group)) {
      g->erase("kind");
      g->erase("apiVersion");
      groups.push_back(*g);
    }
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

std::optional<Json> ApiResourceList(std::string_view group,
                                    std::string_view version) {
  auto versions = api::GroupVersions(group);
  if (std::find(versions.begin(), versions.end(), version) == versions.end()) {
    return std::nullopt;
  }
  Json resources = Json::array();
  for (const api::ResourceInfo& info : api::AllResources()) {
    if (info.group != group || !Serves(info, version)) continue;
    Json entry = {{"name", info.plural},
                  {"singularName", info.singular},
                  {"namespaced", info.namespaced},
                  {"kind", info.kind},
                  {"verbs", Verbs(false)}};
    if (!info.short_names.empty()) entry["shortNames"] = info.short_names;
    resources.push_back(entry);
    if (info.has_status) {
      resources.push_back({{"name", std::string(info.plural) + "/status"},
                           {"singularName", ""},
                           {"namespaced", info.namespaced},
                           {"kind", info.kind},
                           {"verbs", Verbs(true)}});
    }
    if (info.kind == "Pod") {
      resources.push_back({{"name", std::string(info.plural) + "/log"},
                           {"singularName", ""},
                           {"namespaced", true},
                           {"kind", info.kind},
                           {"verbs", Json::array({"get"})}});
    }
    if (info.kind == "Namespace") {
      resources.push_back({{"name", std::string(info.plural) + "/finalize"},
                           {"singularName", ""},
                           {"namespaced", false},
                           {"kind", info.kind},
                           {"verbs", Json::array({"update"})}});
    }
  }
  const std::string group_version =
      group.empty() ? std::string(version)
                    : std::string(group) + "/" + std::string(version);
  return Json{{"kind", "APIResourceList"},
              {"apiVersion", "v1"},
              {"groupVersion", group_version},
              {"resources", resources}};
}

bool WantsAggregatedDiscovery(std::string_view accept) {
  return accept.find("as=APIGroupDiscoveryList") != std::string_view::npos &&
         accept.find("g=apidiscovery.k8s.io") != std::string_view::npos &&
         accept.find("v=v2") != std::string_view::npos;
}

}  // namespace dralloc::apiserver
