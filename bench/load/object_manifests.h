// Manifests and REST paths of the objects the load scenarios write.
//
// All objects are resource.k8s.io/v1 (or core v1 for namespaces) and valid
// by the upstream validation rules, so any error the server returns for them
// is a server error, not a load-generator one.
#ifndef DRALLOC_BENCH_LOAD_OBJECT_MANIFESTS_H_
#define DRALLOC_BENCH_LOAD_OBJECT_MANIFESTS_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace dralloc::load {

inline constexpr std::string_view kLoadDeviceClassName = "gpu.example.com";
inline constexpr std::string_view kLoadDriverName = "gpu.example.com";
// Label put on every object the generator creates.
inline constexpr std::string_view kLoadLabelKey = "dralloc.dev/load-run";

// "/apis/resource.k8s.io/v1/namespaces/NS/resourceclaims"
std::string ResourceClaimsPath(std::string_view namespace_name);
// "/apis/resource.k8s.io/v1/resourceslices"
std::string ResourceSlicesPath();
// "/api/v1/namespaces"
std::string NamespacesPath();

// A ResourceClaim with one request for exactly one device of class
// gpu.example.com, labelled kLoadLabelKey=run_id.
nlohmann::json ResourceClaimManifest(std::string_view name,
                                     std::string_view namespace_name,
                                     std::string_view run_id);

// A ResourceSlice of driver gpu.example.com for `node_name`, alone in its pool
// (pool name = node name, generation 1, resourceSliceCount 1), with
// `device_count` devices gpu-0..gpu-N-1. Each device has four attributes
// (string, int, version, bool) and one capacity (memory 80Gi).
nlohmann::json ResourceSliceManifest(std::string_view name,
                                     std::string_view node_name,
                                     int device_count, std::string_view run_id);

nlohmann::json NamespaceManifest(std::string_view name);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_OBJECT_MANIFESTS_H_
