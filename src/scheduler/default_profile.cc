#include "scheduler/inter_pod_affinity.h"
#include "scheduler/node_affinity.h"
#include "scheduler/node_ports.h"
#include "scheduler/node_resources_balanced_allocation.h"
#include "scheduler/node_resources_fit.h"
#include "scheduler/node_unschedulable.h"
#include "scheduler/pod_topology_spread.h"
#include "scheduler/scheduling_framework.h"
#include "scheduler/taint_toleration.h"

namespace dralloc::scheduler {

// Upstream's default profile (getDefaultPlugins), in its order, without the
// plugins for volumes and images, which dralloc does not model:
// NodeUnschedulable, NodeName (spec.nodeName pods never reach a cycle
// here), TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit,
// PodTopologySpread, InterPodAffinity, [DynamicResources, run by the
// framework itself], NodeResourcesBalancedAllocation.
std::vector<std::unique_ptr<NodePlugin>> DefaultProfile() {
  std::vector<std::unique_ptr<NodePlugin>> profile;
  profile.push_back(std::make_unique<NodeUnschedulable>());
  profile.push_back(std::make_unique<TaintToleration>());
  profile.push_back(std::make_unique<NodeAffinity>());
  profile.push_back(std::make_unique<NodePorts>());
  profile.push_back(std::make_unique<NodeResourcesFit>());
  profile.push_back(std::make_unique<PodTopologySpread>());
  profile.push_back(std::make_unique<InterPodAffinity>());
  profile.push_back(std::make_unique<NodeResourcesBalancedAllocation>());
  return profile;
}

}  // namespace dralloc::scheduler
