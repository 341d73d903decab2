// ContainerRuntime: what the PodManager asks of whatever runs a pod's
// containers: the status while resources are prepared, starting the
// containers with their CDI edits, their current states, stopping them
// with a grace period, and where their logs are.
//
// Implemented by SimulatedRuntime (`--runtime simulated`: nothing runs,
// containers are reported running) and ProcessRuntime (`--runtime process`:
// each container's command runs as a local process).
#ifndef DRALLOC_NODE_CONTAINER_RUNTIME_H_
#define DRALLOC_NODE_CONTAINER_RUNTIME_H_

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "api/types/core.h"
#include "cdi/spec.h"
#include "common/status.h"

namespace dralloc::node {

// The CDI device IDs of one container, in claim order, and their edits.
struct ContainerDevices {
  std::string container;
  std::vector<std::string> cdi_device_ids;
  cdi::ContainerEdits edits;
  friend bool operator==(const ContainerDevices&,
                         const ContainerDevices&) = default;
};

// Where one run of a container logs. An empty path: the container writes
// no log (simulated).
struct ContainerLogRef {
  std::filesystem::path path;
  bool running = false;  // the run is still going (the log may grow)
};

class ContainerRuntime {
 public:
  // Called with a pod key ("namespace/name") from the runtime's own thread
  // when the states of that pod's containers changed.
  using ChangeListener = std::function<void(const std::string& pod_key)>;

  virtual ~ContainerRuntime() = default;

  // Set before the first StartPod.
  virtual void SetChangeListener(ChangeListener listener) = 0;
  // `pod`'s status while its resources are prepared.
  virtual api::PodStatus CreatingStatus(const api::Pod& pod) const = 0;
  // Starts `pod`'s containers (init containers first, in order) with their
  // devices; a pod already started (same UID) is left as it is. Things the
  // runtime cannot honour but that do not stop the pod are appended to
  // `warnings` (one sentence each, for an Event).
  virtual Status StartPod(const api::Pod& pod,
                          const std::vector<ContainerDevices>& devices,
                          std::vector<std::string>& warnings) = 0;
  // A number that changes whenever StatusOf(pod) would report different
  // container states; 0 for a pod not started.
  virtual uint64_t StateVersion(const std::string& pod_uid) const = 0;
  // The status of a started pod, over `pod.status`.
  virtual api::PodStatus StatusOf(const api::Pod& pod) const = 0;
  // Stops the pod's containers: SIGTERM at the first call, SIGKILL once
  // `grace` has passed since then. True when none runs any more (the pod
  // is then forgotten); call again until it is.
  virtual bool StopPod(const std::string& pod_uid,
                       std::chrono::seconds grace) = 0;
  // The log of `container` of the pod `namespace_/name` (its current run,
  // or the one before with `previous`). kNotFound names what is missing.
  virtual StatusOr<ContainerLogRef> LogOf(const std::string& namespace_,
                                          const std::string& name,
                                          const std::string& container,
                                          bool previous) const = 0;
};

}  // namespace dralloc::node

#endif  // DRALLOC_NODE_CONTAINER_RUNTIME_H_
