// TablePrinter: the meta.k8s.io/v1 Table form of objects, which kubectl
// asks for (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) to
// print resource-specific columns (upstream's printers for DRA kinds).
#ifndef DRALLOC_APISERVER_TABLE_PRINTER_H_
#define DRALLOC_APISERVER_TABLE_PRINTER_H_

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource_registry.h"

namespace dralloc::apiserver {

using Json = nlohmann::ordered_json;

// True when the Accept header asks for a Table.
bool WantsTable(std::string_view accept);

// A Table with one row per object (JSON texts of the objects).
Json MakeTable(const api::ResourceInfo& info,
               const std::vector<std::string>& objects,
               const Json& list_metadata);

// Like Kubernetes' duration.HumanDuration: "45s", "3m20s", "5h", "12d".
std::string HumanDuration(std::chrono::seconds age);

}  // namespace dralloc::apiserver

#endif  // DRALLOC_APISERVER_TABLE_PRINTER_H_
