// WhatIf: an offline scheduling run over a set of objects (`dralloc
// schedule`): the objects go into an in-memory API, then the claim
// controller and the scheduler run to quiescence.
#ifndef DRALLOC_CONTROLPLANE_WHAT_IF_H_
#define DRALLOC_CONTROLPLANE_WHAT_IF_H_

#include <string>
#include <vector>

#include "api/object.h"
#include "client/memory_api_client.h"
#include "controlplane/classic_driver_simulation.h"
#include "controlplane/control_plane.h"

namespace dralloc::controlplane {

// Where a pod landed and with which devices, or why it did not.
struct PodPlacement {
  const api::Pod* pod = nullptr;
  std::string node;                 // empty: not scheduled
  std::vector<std::string> claims;  // the pod's claims (names)
  // "driver/pool/device" of all its claims ("driver/node/gpu" for the
  // simulated classic drivers' GPUs).
  std::vector<std::string> devices;
  std::string reason;  // why it is pending
};

class WhatIf {
 public:
  // pipeline_batch: see ControlPlaneOptions (0: one thread). classic_dra:
  // ControlPlaneOptions::classic_dra; a caller whose objects hold no
  // resource.k8s.io/v1alpha2 object turns it off (nothing classic can
  // appear offline), so such runs pay nothing for it.
  explicit WhatIf(scheduler::SchedulerOptions options,
                  size_t pipeline_batch = 0, bool classic_dra = true);

  // Stores the (already validated) objects in dependency order. Namespaces
  // used but not given are created. Errors name the object.
  Status Load(std::vector<api::Object> objects);
  // Simulates a classic DRA control-plane driver per driver of the loaded
  // resource.k8s.io/v1alpha2 ResourceClasses, with `gpus_per_node` GPUs on
  // every loaded node (after Load; ClassicDriverSimulation).
  Status SimulateClassicDrivers(int gpus_per_node);
  // Syncs cluster state and builds the device inventory (optional; Run does
  // it otherwise).
  Status WarmUp();
  // Runs to quiescence (the control plane and the simulated drivers, in
  // turns, until neither has anything left to do).
  Status Run();
  // Pods this scheduler is responsible for, sorted by namespace/name.
  std::vector<PodPlacement> Placements();

  ControlPlane& plane() { return plane_; }

 private:
  client::MemoryApiClient api_;
  ControlPlane plane_;
  std::unique_ptr<ClassicDriverSimulation> classic_drivers_;
};

}  // namespace dralloc::controlplane

#endif  // DRALLOC_CONTROLPLANE_WHAT_IF_H_
