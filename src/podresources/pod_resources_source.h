// PodResourcesSource: what the PodResources service reports, as plain data.
// The node agent implements it; the server maps it to the v1 protocol. It
// knows nothing of the agent's internals (checkpoints, plugins, informers).
#ifndef DRALLOC_PODRESOURCES_POD_RESOURCES_SOURCE_H_
#define DRALLOC_PODRESOURCES_POD_RESOURCES_SOURCE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dralloc::podresources {

// Where the kubelet serves the PodResources service.
inline constexpr char kDefaultPodResourcesSocket[] =
    "/var/lib/kubelet/pod-resources/kubelet.sock";

// One device a driver prepared for a claim (one entry of the driver's
// NodePrepareResources answer).
struct ClaimDevice {
  std::string driver;
  std::string pool;
  std::string device;
  // Fully qualified CDI device IDs (`vendor.com/class=name`).
  std::vector<std::string> cdi_ids;
  // Set only when the device is shared (DRA v1 share_id); unset is reported
  // as an absent field, not as "".
  std::optional<std::string> share_id;
};

// A claim one container uses (pod.spec.containers[].resources.claims).
struct ContainerClaim {
  std::string claim_name;
  std::string claim_namespace;
  std::vector<ClaimDevice> devices;
};

struct ContainerResources {
  std::string name;
  std::vector<ContainerClaim> claims;
};

struct PodResources {
  std::string name;
  std::string namespace_;
  std::vector<ContainerResources> containers;
};

// Implementations are called concurrently from the server's threads and
// must be thread-safe. Answers are snapshots; the server copies them.
class PodResourcesSource {
 public:
  virtual ~PodResourcesSource() = default;

  // The pods running on this node, in the order to report them.
  virtual std::vector<PodResources> ListPods() const = 0;

  // The pod `namespace_/name`, or nullopt when it is not on this node. The
  // default scans ListPods(); override it when a lookup is cheaper.
  virtual std::optional<PodResources> GetPod(std::string_view namespace_,
                                             std::string_view name) const {
    for (PodResources& pod : ListPods()) {
      if (pod.namespace_ == namespace_ && pod.name == name) {
        return std::move(pod);
      }
    }
    return std::nullopt;
  }
};

}  // namespace dralloc::podresources

#endif  // DRALLOC_PODRESOURCES_POD_RESOURCES_SOURCE_H_
