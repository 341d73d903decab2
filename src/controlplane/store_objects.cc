#include "controlplane/store_objects.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

#include "api/kind_traits.h"

namespace dralloc::controlplane {

Status StoreObjects(client::ApiClient& api, std::vector<api::Object> objects) {
  // Creation order: what objects refer to exists before them.
  std::stable_sort(objects.begin(), objects.end(),
                   [](const api::Object& a, const api::Object& b) {
                     return api::CreationRank(a) < api::CreationRank(b);
                   });
  std::set<std::string> namespaces;
  for (const api::Object& object : objects) {
    if (const auto* ns = std::get_if<api::Namespace>(&object)) {
      namespaces.insert(ns->metadata.name);
    }
  }
  std::string errors;
  for (api::Object& object : objects) {
    if (std::holds_alternative<api::Event>(object)) continue;
    if (client::ResourceOf(object).namespaced) {
      std::string& ns = api::MetaOf(object).namespace_;
      if (ns.empty()) ns = "default";
      if (namespaces.insert(ns).second) {
        api::Namespace created;
        created.metadata.name = ns;
        (void)api.Create(api::Object(created));
      }
    }
    auto created = api.Create(object);
    if (!created.ok()) {
      errors +=
          fmt::format("{}{}: {}", errors.empty() ? "" : "\n",
                      api::DisplayName(object), created.status().message());
      continue;
    }
    // Claims given with an allocation are in-use state.
    const auto* claim = std::get_if<api::ResourceClaim>(&object);
    if (claim != nullptr && claim->status.allocation) {
      api::Object with_status = **created;
      std::get<api::ResourceClaim>(with_status).status = claim->status;
      auto updated = api.UpdateStatus(std::move(with_status));
      if (!updated.ok()) {
        errors +=
            fmt::format("{}{}: status: {}", errors.empty() ? "" : "\n",
                        api::DisplayName(object), updated.status().message());
      }
    }
  }
  if (!errors.empty()) return InvalidArgumentError(errors);
  return OkStatus();
}

}  // namespace dralloc::controlplane
