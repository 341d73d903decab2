// OpenAPI v3 documents for every served group-version, generated from the
// types' field tables and the resource registry.
//
// kubectl needs them: `create`/`apply` look for a PATCH operation tagged
// with the manifest's group-version-kind that lists the `fieldValidation`
// parameter (else they fall back to client-side validation over OpenAPI
// v2), and `explain` walks `components.schemas`.
#ifndef DRALLOC_APISERVER_OPENAPI_BUILDER_H_
#define DRALLOC_APISERVER_OPENAPI_BUILDER_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace dralloc::apiserver {

using Json = nlohmann::ordered_json;

// "api/v1", "apis/resource.k8s.io/v1", ...
std::vector<std::string> OpenApiDocumentPaths();
// The document's compact text, or nullptr for an unknown path. Built once.
const std::string* OpenApiDocumentText(std::string_view path);
// A stable hash of the document text (16 hex digits).
std::string OpenApiDocumentHash(std::string_view path);
// GET /openapi/v3: {"paths": {path: {"serverRelativeURL": ...?hash=...}}}.
Json OpenApiRootIndex();

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_OPENAPI_BUILDER_H_
