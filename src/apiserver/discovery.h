// Discovery documents: /version, /api, /apis (aggregated v2 and legacy),
// /apis/<group>, /apis/<group>/<version> and /api/v1, all generated from
// the resource registry.
#ifndef DRALLOC_APISERVER_DISCOVERY_H_
#define DRALLOC_APISERVER_DISCOVERY_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace dralloc::apiserver {

using Json = nlohmann::ordered_json;

inline constexpr std::string_view kAggregatedDiscoveryContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

Json VersionDocument(std::string_view minor);
// `core`: the /api document, else /apis.
Json AggregatedDiscovery(bool core);
Json LegacyApiVersions();                              // GET /api
Json LegacyApiGroupList();                             // GET /apis
std::optional<Json> ApiGroup(std::string_view group);  // GET /apis/<g>
// GET /api/v1 or /apis/<g>/<v>.
std::optional<Json> ApiResourceList(std::string_view group,
                                    std::string_view version);
// True when the Accept header asks for aggregated discovery v2.
bool WantsAggregatedDiscovery(std::string_view accept);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_DISCOVERY_H_
