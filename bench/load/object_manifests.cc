#include "load/object_manifests.h"

#include <fmt/format.h>

namespace dralloc::load {

using nlohmann::json;

std::string ResourceClaimsPath(std::string_view namespace_name) {
  return fmt::format("/apis/resource.k8s.io/v1/namespaces/{}/resourceclaims",
                     namespace_name);
}

std::string ResourceSlicesPath() {
  return "/apis/resource.k8s.io/v1/resourceslices";
}

std::string NamespacesPath() { return "/api/v1/namespaces"; }

json ResourceClaimManifest(std::string_view name,
                           std::string_view namespace_name,
                           std::string_view run_id) {
  return {
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceClaim"},
      {"metadata",
       {{"name", name},
        {"namespace", namespace_name},
        {"labels", {{kLoadLabelKey, run_id}}}}},
      {"spec",
       {{"devices",
         {{"requests",
           json::array({{{"name", "gpu"},
                         {"exactly",
                          {{"deviceClassName", kLoadDeviceClassName}}}}})}}}}},
  };
}

json ResourceSliceManifest(std::string_view name, std::string_view node_name,
                           int device_count, std::string_view run_id) {
  json devices = json::array();
  for (int index = 0; index < device_count; ++index) {
    devices.push_back({
        {"name", fmt::format("gpu-{}", index)},
        {"attributes",
         {{"model", {{"string", "LATEST-GPU-MODEL"}}},
          {"index", {{"int", index}}},
          {"driverVersion", {{"version", "1.2.3"}}},
          {"dra.example.com/healthy", {{"bool", true}}}}},
        {"capacity", {{"memory", {{"value", "80Gi"}}}}},
    });
  }
  return {
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceSlice"},
      {"metadata", {{"name", name}, {"labels", {{kLoadLabelKey, run_id}}}}},
      {"spec",
       {{"driver", kLoadDriverName},
        {"pool",
         {{"name", node_name}, {"generation", 1}, {"resourceSliceCount", 1}}},
        {"nodeName", node_name},
        {"devices", std::move(devices)}}},
  };
}

json NamespaceManifest(std::string_view name) {
  return {{"apiVersion", "v1"},
          {"kind", "Namespace"},
          {"metadata", {{"name", name}}}};
}

}  // namespace dralloc::load
