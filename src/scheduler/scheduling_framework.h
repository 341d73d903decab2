// SchedulingFramework: one scheduling cycle for one pod over a
// ClusterSnapshot, as kube-scheduler's framework runs its default profile
// with the DynamicResources plugin: PreEnqueue (claims), PreFilter of every
// plugin, Filter of every plugin per node from a rotating start until
// numFeasibleNodesToFind nodes fit, PreScore/Score/NormalizeScore of every
// scoring plugin over those nodes, the weighted sum, and the best node.
//
// The live Scheduler and the autoscaler simulation run the same cycle; only
// what they do with the verdict (bind through the API, or assume in a
// simulation) differs. Thread-compatible: the caller serialises cycles and
// snapshot changes.
#ifndef DRALLOC_SCHEDULER_SCHEDULING_FRAMEWORK_H_
#define DRALLOC_SCHEDULER_SCHEDULING_FRAMEWORK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/classic/classic_plugin.h"
#include "scheduler/cluster_snapshot.h"
#include "scheduler/dra_plugin.h"
#include "scheduler/filter_cache.h"
#include "scheduler/node_plugin.h"

namespace dralloc::scheduler {

// The node plugins of upstream's default profile that dralloc implements, in
// upstream's order, with upstream's weights.
std::vector<std::unique_ptr<NodePlugin>> DefaultProfile();

// False when DRALLOC_NO_FILTER_CACHE is set (to any value).
bool FilterCacheEnabledByEnvironment();

struct FrameworkOptions {
  // Evaluate every node instead of numFeasibleNodesToFind.
  bool evaluate_all_nodes = false;
  // Device placement preference added to the score (not upstream).
  Placement placement = Placement::kDefault;
  // Reuse the allocator's Filter verdicts while they cannot have changed
  // (FilterCache; the choices are the same either way). Off when the
  // environment variable DRALLOC_NO_FILTER_CACHE is set (to compare).
  bool filter_cache = FilterCacheEnabledByEnvironment();
};

// What the framework counts, summed over cycles.
struct FrameworkStats {
  uint64_t nodes_evaluated = 0;  // nodes given to Filter
  uint64_t allocator_calls = 0;
  uint64_t filter_cache_hits = 0;  // DRA Filter verdicts taken from the cache
  uint64_t filter_reruns = 0;      // cycles filtered again for the reasons
};

// The verdict of one cycle.
struct CycleVerdict {
  enum class Kind {
    kGated,          // a claim is not there yet (missing_claim says which)
    kUnschedulable,  // no node fits: `message`
    kFeasible,       // `chosen` is the best node
  };
  Kind kind = Kind::kGated;
  std::string message;
  // PreEnqueue: the key of a claim the pod waits for (also when
  // unschedulable because it is missing).
  std::string missing_claim;
  // PostFilter: an allocated claim to release so the pod can go elsewhere.
  client::ObjectPtr deallocate;
  // PostFilter (KEP-5004): a stale special claim to delete.
  client::ObjectPtr delete_claim;
  // PostFilter (classic DRA): an allocated v1alpha2 claim whose driver must
  // deallocate it so the pod can go elsewhere.
  std::optional<classic::ClassicDeallocation> classic_deallocate;
  std::optional<Candidate> chosen;
  // Nodes that passed Filter, and the weighted score of the chosen one.
  size_t feasible_nodes = 0;
  int64_t score = 0;
};

class SchedulingFramework {
 public:
  // `dra` and `snapshot` must outlive the framework.
  SchedulingFramework(ClusterSnapshot& snapshot, DraPlugin& dra,
                      std::vector<std::unique_ptr<NodePlugin>> profile,
                      FrameworkOptions options = {});

  // Runs the cycle for `state.pod` (the snapshot must be refreshed). Filter
  // starts at node `next_start_node` (rotating, as upstream) and advances it
  // past the nodes it evaluated. With `only` (ascending indices into
  // snapshot.nodes()), the cycle considers just those nodes, as if they
  // were the cluster (the autoscaler's estimate over new nodes); the start
  // then counts positions in `only`.
  CycleVerdict Schedule(DraCycleState& state, size_t& next_start_node,
                        const std::vector<size_t>* only = nullptr);

  const FrameworkStats& stats() const { return stats_; }
  // How many selections had ties: the state of the take-in-turn tie break.
  // A caller that reverts a simulation restores it, so that repeating the
  // same cycles gives the same choices.
  uint64_t tie_breaks() const { return tie_breaks_; }
  void set_tie_breaks(uint64_t tie_breaks) { tie_breaks_ = tie_breaks; }
  const std::vector<std::unique_ptr<NodePlugin>>& profile() const {
    return profile_;
  }
  // The classic DRA steps (Reserve is the caller's).
  const classic::ClassicPlugin& classic() const { return classic_; }
  classic::ClassicPlugin& classic() { return classic_; }

 private:
  // Filter from the start node until enough nodes fit; false when a plugin
  // found an error no node can fix (`error`). `reasons_left_out`: a cached
  // kUnfit verdict recorded no reason.
  bool FilterNodes(DraCycleState& state, CycleState& cycle,
                   UnschedulableReasons& reasons,
                   std::vector<Candidate>& feasible, size_t& next_start_node,
                   const std::vector<size_t>* only, std::string& error,
                   bool& reasons_left_out);
  // DraFilterDevices, then (uncached) DraPlugin::NodeAllocatableFits.
  // The pod's classic claims of 1.30's structured parameters fit on node
  // `node` (snapshot index); adds the reason when not.
  bool ClassicStructuredFits(const DraCycleState& state, size_t node,
                             UnschedulableReasons& reasons);
  FilterCode DraFilter(DraCycleState& state, UnschedulableReasons& reasons,
                       Candidate& candidate, bool& reasons_left_out);
  // DraPlugin::Filter for node `index`, through the cache when there is
  // one; sets `reasons_left_out` when a cached kUnfit recorded no reason.
  FilterCode DraFilterDevices(DraCycleState& state,
                              UnschedulableReasons& reasons,
                              Candidate& candidate, bool& reasons_left_out);
  // Index into `feasible` of the node with the highest weighted score.
  size_t SelectNode(const DraCycleState& state, CycleState& cycle,
                    const ClusterView& view,
                    const std::vector<Candidate>& feasible, int64_t& score);

  ClusterSnapshot& snapshot_;
  DraPlugin& dra_;
  classic::ClassicPlugin classic_;
  std::vector<std::unique_ptr<NodePlugin>> profile_;
  const FrameworkOptions options_;
  FrameworkStats stats_;
  std::unique_ptr<FilterCache> filter_cache_;  // null when disabled
  bool bypass_cache_ = false;  // filtering again for the reasons
  uint64_t tie_breaks_ = 0;    // selections that had ties
};

// Upstream's numFeasibleNodesToFind with the default adaptive percentage.
size_t FeasibleNodesToFind(size_t nodes);

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_SCHEDULING_FRAMEWORK_H_
