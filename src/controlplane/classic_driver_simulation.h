// ClassicDriverSimulation: simulated classic DRA (resource.k8s.io/v1alpha2)
// control-plane drivers for offline runs (`dralloc schedule
// --classic-gpus-per-node N`): one example driver (exampledriver::
// ClassicExampleDriver behind the classiccontroller library) per driverName
// of the ResourceClasses loaded, each with N GPUs on every loaded Node,
// answering as `dralloc driver classic-example` would.
#ifndef DRALLOC_CONTROLPLANE_CLASSIC_DRIVER_SIMULATION_H_
#define DRALLOC_CONTROLPLANE_CLASSIC_DRIVER_SIMULATION_H_

#include <memory>
#include <string>
#include <vector>

#include "classiccontroller/controller.h"
#include "client/api_client.h"
#include "client/informer.h"
#include "exampledriver/classic_driver.h"

namespace dralloc::controlplane {

class ClassicDriverSimulation {
 public:
  // Reads the classes and nodes from `api` (loaded before). No class: no
  // driver, and Step does nothing.
  static StatusOr<std::unique_ptr<ClassicDriverSimulation>> Create(
      client::ApiClient& api, int gpus_per_node);
  ~ClassicDriverSimulation();

  // Lets every driver see what changed and act on it; true when any did
  // something (the control plane then has more to do).
  StatusOr<bool> Step();
  size_t drivers() const { return drivers_.size(); }

 private:
  struct SimulatedDriver;
  std::vector<std::unique_ptr<SimulatedDriver>> drivers_;
};

}  // namespace dralloc::controlplane

#endif  // DRALLOC_CONTROLPLANE_CLASSIC_DRIVER_SIMULATION_H_
