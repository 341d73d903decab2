// ScaleUpPlanner: cluster-autoscaler's scale-up over a ClusterSimulation.
//
// The pending pods (queue order: priority, then name) are first scheduled
// on the existing cluster. For the rest, each node group is estimated as
// CA's binpacking estimator does: pods are scheduled in order on the nodes
// the estimate added (they did not fit the others), a new node of the
// group is added when a pod fits none of them, and a pod that does not fit
// an empty template node is not helped by that group (with the scheduler's
// reason); maxSize is respected. The slices of new nodes are published in
// batches ahead of the nodes (doubling), so that the device inventory is
// rebuilt a few times per estimate rather than once per node. An expander picks
// one group, its nodes are added, and this repeats until no group helps any pod
// left.
//
// Expanders: least-waste (as upstream: the smallest sum of the fractions of
// the new nodes' allocatable CPU and memory the placed pods leave unused;
// ties: the smaller fraction of the new nodes' devices left unused, then
// most pods, then name), most-pods (ties: fewer nodes,
// then name), priority (highest spec.priority of the NodeGroup; ties: random
// with the seed), random (seeded, deterministic) and fewest-nodes (the
// fewest new nodes in total across groups that run as many pods as the
// greedy least-waste plan: count vectors searched in increasing total up to
// the greedy plan's, each replayed through the framework packing as the
// estimator does; falls back to the greedy plan when none does better
// within the search budget).
#ifndef DRALLOC_SIMULATOR_SCALE_UP_PLANNER_H_
#define DRALLOC_SIMULATOR_SCALE_UP_PLANNER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "simulator/cluster_simulation.h"
#include "simulator/node_group.h"

namespace dralloc::simulator {

enum class Expander {
  kLeastWaste,
  kMostPods,
  kPriority,
  kRandom,
  kFewestNodes
};
// "least-waste", "most-pods", "priority", "random", "fewest-nodes".
StatusOr<Expander> ParseExpander(std::string_view name);

struct ScaleUpOptions {
  Expander expander = Expander::kLeastWaste;
  uint64_t seed = 1;
  // fewest-nodes: count vectors replayed at most.
  size_t max_search_vectors = 2000;
};

struct PodPlacementResult {
  std::string pod;  // "ns/name"
  std::string node;
  std::string group;  // empty: an existing node
};

struct UnschedulablePod {
  std::string pod;
  // "node group G: why; node group H: why" (or the scheduler's reason on
  // the existing cluster when no group was tried).
  std::string reason;
  // The same per group: (group, why a new node of it does not help).
  std::vector<std::pair<std::string, std::string>> by_group;
};

struct ScaleUpPlan {
  std::vector<std::pair<std::string, int64_t>> scale_up;  // group, count
  std::vector<PodPlacementResult> placements;             // by pod
  std::vector<UnschedulablePod> unschedulable;            // by pod
};

class ScaleUpPlanner {
 public:
  // `simulation` must outlive the planner; Plan() leaves it scaled up.
  ScaleUpPlanner(ClusterSimulation& simulation, std::vector<NodeGroup> groups,
                 ScaleUpOptions options = {});
  ScaleUpPlan Plan();

 private:
  // Where a group stands in the simulation.
  struct GroupState {
    int64_t size = 0;        // nodes of the group in the simulation
    int64_t next_index = 1;  // n of the next `<group>-<n>`
    // Nodes from next_index on whose slices are published already.
    int64_t published = 0;
    bool shared_added = false;
  };
  struct Estimate {
    size_t group = 0;
    int64_t nodes = 0;
    std::vector<PodPlacementResult> placed;
    std::map<std::string, std::string> unhelped;  // pod → reason
    double waste = 0;         // CPU + memory fractions left unused
    double device_waste = 0;  // fraction of the new nodes' devices unused
  };

  // Adds the next node of `group`; its name is appended to `new_nodes`.
  Status AddGroupNode(size_t group, GroupState& state,
                      std::vector<std::string>& new_nodes);
  // Publishes the slices of the next `count` nodes of the group.
  Status PublishSlices(size_t group, GroupState& state, int64_t count);
  // Removes the published slices of nodes that were not added.
  void UnpublishSlices(size_t group, GroupState& state);
  // Binpacking for one group; reverted unless `commit`.
  Estimate EstimateGroup(size_t group, const std::vector<std::string>& pods,
                         bool commit);
  // When no node of the estimate fits `pod`: adds one and schedules the
  // pod there; false with `reason` when that does not help (reverted).
  bool AddNodeFor(size_t group, const std::string& pod, GroupState& state,
                  std::vector<std::string>& new_nodes,
                  SimulatedPlacement& placed, std::string& reason);
  double DeviceWaste(const std::vector<std::string>& new_nodes,
                     const std::vector<PodPlacementResult>& placed);
  double ResourceWaste(size_t group, int64_t nodes,
                       const std::vector<PodPlacementResult>& placed);
  size_t Choose(const std::vector<Estimate>& options);
  // Greedy rounds until no group helps; returns the pods left.
  std::vector<std::string> Greedy(std::vector<std::string> pods,
                                  ScaleUpPlan& plan,
                                  std::map<std::string, std::string>& reasons);
  // fewest-nodes: the plan for `pods`; returns the pods left.
  std::vector<std::string> FewestNodesPlan(
      const std::vector<std::string>& pods, ScaleUpPlan& plan,
      std::map<std::string, std::string>& reasons);
  // The count vector of the smallest total (at most `max_nodes`) whose
  // replay runs `target` pods, or nullopt (use greedy).
  std::optional<std::vector<int64_t>> FewestNodes(
      const std::vector<std::string>& pods, size_t target, int64_t max_nodes);
  size_t Replay(const std::vector<int64_t>& counts,
                const std::vector<std::string>& pods, bool commit,
                ScaleUpPlan* plan);
  // Pods of one controller with the same spec; "" for pods without one.
  const std::string& EquivalenceKey(const std::string& pod_key);

  ClusterSimulation& simulation_;
  const std::vector<NodeGroup> groups_;
  const ScaleUpOptions options_;
  std::vector<GroupState> states_;
  uint64_t random_state_;
  // Equivalence classes that did not fit an empty node of a group.
  std::map<std::pair<size_t, std::string>, std::string> hopeless_;
  std::map<std::string, std::string> equivalence_keys_;  // by pod
  // Why no group helps, per pod left (see UnschedulablePod::by_group).
  std::map<std::string, std::vector<std::pair<std::string, std::string>>>
      group_reasons_;
};

}  // namespace dralloc::simulator

#endif  // DRALLOC_SIMULATOR_SCALE_UP_PLANNER_H_
