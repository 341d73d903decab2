#include "controlplane/classic_driver_simulation.h"

#include <set>

namespace dralloc::controlplane {

namespace v1alpha2 = api::v1alpha2;

struct ClassicDriverSimulation::SimulatedDriver {
  SimulatedDriver(client::ApiClient& api, const std::string& name,
                  exampledriver::ClassicGpuPool pool)
      : claims(api, client::ResourceFor<v1alpha2::ResourceClaim>()),
        classes(api, client::ResourceFor<v1alpha2::ResourceClass>()),
        contexts(api, client::ResourceFor<v1alpha2::PodSchedulingContext>()),
        pods(api, client::PodsResource()),
        driver(api, name, std::move(pool)),
        controller(api, {claims, classes, contexts, pods}, driver,
                   {.driver_name = name,
                    // Offline: a context is looked at when it changes.
                    .recheck_delay = std::chrono::hours(24)}) {}

  client::Informer claims, classes, contexts, pods;
  exampledriver::ClassicExampleDriver driver;
  classiccontroller::Controller controller;
};

ClassicDriverSimulation::~ClassicDriverSimulation() = default;

StatusOr<std::unique_ptr<ClassicDriverSimulation>>
ClassicDriverSimulation::Create(client::ApiClient& api, int gpus_per_node) {
  ASSIGN_OR_RETURN(client::ObjectList classes,
                   api.List(client::ResourceFor<v1alpha2::ResourceClass>()));
  ASSIGN_OR_RETURN(client::ObjectList nodes, api.List(client::NodesResource()));
  std::set<std::string> driver_names;
  for (const client::ObjectPtr& object : classes.items) {
    driver_names.insert(std::get<v1alpha2::ResourceClass>(*object).driver_name);
  }
  std::vector<std::string> node_names;
  for (const client::ObjectPtr& object : nodes.items) {
    node_names.push_back(api::MetaOf(*object).name);
  }
  auto simulation = std::make_unique<ClassicDriverSimulation>();
  if (node_names.empty()) return simulation;
  for (const std::string& name : driver_names) {
    ASSIGN_OR_RETURN(
        exampledriver::ClassicGpuPool pool,
        exampledriver::ClassicGpuPool::Create(node_names, gpus_per_node));
    simulation->drivers_.push_back(
        std::make_unique<SimulatedDriver>(api, name, std::move(pool)));
  }
  return simulation;
}

StatusOr<bool> ClassicDriverSimulation::Step() {
  bool worked = false;
  for (const auto& simulated : drivers_) {
    for (client::Informer* informer :
         {&simulated->classes, &simulated->claims, &simulated->contexts,
          &simulated->pods}) {
      ASSIGN_OR_RETURN(size_t changes,
                       informer->Pump(std::chrono::milliseconds(0)));
      worked |= changes > 0;
    }
    while (simulated->controller.ProcessOne()) worked = true;
  }
  return worked;
}

}  // namespace dralloc::controlplane
