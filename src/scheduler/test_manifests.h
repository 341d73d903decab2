// YAML manifests shared by the scheduler and control-plane tests: the
// namespace "ns", nodes, the "gpu" DeviceClass and one single-slice pool of
// gpu.example.com GPUs per node. Each function returns one or more complete
// documents, each preceded by "---", so they concatenate into one stream.
#ifndef DRALLOC_SCHEDULER_TEST_MANIFESTS_H_
#define DRALLOC_SCHEDULER_TEST_MANIFESTS_H_

#include <string>
#include <string_view>

namespace dralloc::scheduler::test_manifests {

inline std::string Document(std::string_view api_version, std::string_view kind,
                            std::string_view name) {
  std::string out = "---\napiVersion: ";
  out.append(api_version).append("\nkind: ").append(kind);
  out.append("\nmetadata: {name: ").append(name).append("}\n");
  return out;
}

// The namespace "ns" every test object lives in.
inline std::string Namespace() { return Document("v1", "Namespace", "ns"); }

inline std::string Node(std::string_view name) {
  return Document("v1", "Node", name);
}

// The DeviceClass "gpu", selecting every device.
inline std::string GpuClass() {
  return Document("resource.k8s.io/v1", "DeviceClass", "gpu");
}

// A ResourceSlice named after `node` publishing the pool of the same name
// with devices gpu-0 .. gpu-<gpus-1>.
inline std::string GpuSlice(std::string_view node, int gpus) {
  std::string out = Document("resource.k8s.io/v1", "ResourceSlice", node);
  out.append("spec:\n  driver: gpu.example.com\n  nodeName: ").append(node);
  out.append("\n  pool: {name: ").append(node);
  out.append(", generation: 1, resourceSliceCount: 1}\n  devices: [");
  for (int i = 0; i < gpus; ++i) {
    if (i > 0) out.append(", ");
    out.append("{name: gpu-").append(std::to_string(i)).append("}");
  }
  out.append("]\n");
  return out;
}

}  // namespace dralloc::scheduler::test_manifests

#endif  // DRALLOC_SCHEDULER_TEST_MANIFESTS_H_
