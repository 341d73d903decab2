// ScaleDownPlanner: which nodes can go, as cluster-autoscaler's scale-down
// simulation decides it with DRA (utilization.go and the removal
// simulator): nodes are tried in order of least device utilization (per
// pool of the node allocated/total devices, or for pools with shared
// counters the average over counter sets of each set's most used counter;
// adminAccess allocations do not count; the node's utilization is the
// highest of its pools; nodes without devices count 0; ties by name). For
// each, in a fork: its pods are evicted (their claims deallocated when no
// other pod uses them, so shared claims move with all their pods and
// network-attached devices used elsewhere stay), the node is removed, and
// each evicted pod is scheduled by the real framework on the remaining
// nodes (nodes already chosen for removal are gone), except DaemonSet and
// mirror pods, which go with their node (upstream's drain leaves them out;
// in the simulation they stay evicted). All fit: the node is
// removable and the fork is committed; otherwise it is reverted and the
// first pod that does not fit is reported with the scheduler's reason.
#ifndef DRALLOC_SIMULATOR_SCALE_DOWN_PLANNER_H_
#define DRALLOC_SIMULATOR_SCALE_DOWN_PLANNER_H_

#include <map>
#include <string>
#include <vector>

#include "simulator/cluster_simulation.h"

namespace dralloc::simulator {

struct BlockedNode {
  std::string node;
  std::string pod;  // "ns/name"
  std::string reason;
};

struct ScaleDownPlan {
  std::vector<std::string> removable;  // in removal order
  std::vector<BlockedNode> blocked;    // in the order tried
};

// Whether the pod goes with its node rather than moving: owned by a
// DaemonSet, or a mirror pod (annotation kubernetes.io/config.mirror).
bool GoesWithItsNode(const client::ObjectPtr& pod);

// Every node's device utilization in [0, 1] as defined above, by name
// (one pass over the slices and claims).
std::map<std::string, double> DeviceUtilizationByNode(
    ClusterSimulation& simulation);

class ScaleDownPlanner {
 public:
  explicit ScaleDownPlanner(ClusterSimulation& simulation)
      : simulation_(simulation) {}
  // Leaves the simulation with the removable nodes removed.
  ScaleDownPlan Plan();

 private:
  // Empty when the node could go (and went); else the blocking pod.
  BlockedNode TryRemove(const std::string& node);

  ClusterSimulation& simulation_;
};

}  // namespace dralloc::simulator

#endif  // DRALLOC_SIMULATOR_SCALE_DOWN_PLANNER_H_
