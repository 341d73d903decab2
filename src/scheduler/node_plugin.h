// NodePlugin: one plugin of the scheduling profile, with upstream's
// extension points PreFilter, Filter, PreScore, Score and NormalizeScore.
//
// A scheduling cycle for one pod creates a CycleState, calls PreFilter of
// every plugin (in profile order), Filter of every plugin for each node
// until one rejects it, then for the feasible nodes PreScore, Score and
// NormalizeScore of every plugin with a weight; the node with the highest
// weighted sum wins. Plugins are shared between cycles: what they learn
// about the pod goes into the CycleState, never into the plugin.
//
// Threads: Filter and Score are const and may run concurrently for
// different nodes of one cycle; the other methods run alone.
#ifndef DRALLOC_SCHEDULER_NODE_PLUGIN_H_
#define DRALLOC_SCHEDULER_NODE_PLUGIN_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/types/core.h"
#include "scheduler/extended_resource_claim.h"
#include "scheduler/filter_code.h"
#include "scheduler/node_entry.h"
#include "scheduler/unschedulable_message.h"

namespace dralloc::scheduler {

// upstream framework.MaxNodeScore: Score results are normalised to 0..100.
constexpr int64_t kMaxNodeScore = 100;

// What plugins see of the whole cluster in PreFilter and PreScore.
struct ClusterView {
  // Every node, in the snapshot's order (name order).
  std::span<const NodeEntry> nodes;
  // The nodes with a pod that has any pod (anti-)affinity term, and with a
  // pod that has a required anti-affinity term (upstream's
  // HavePodsWithAffinityList / HavePodsWithRequiredAntiAffinityList), so
  // that plugins need not visit every node.
  std::span<const NodeEntry* const> nodes_with_affinity_pods;
  std::span<const NodeEntry* const> nodes_with_required_anti_affinity_pods;
  // The labels of a namespace; null when the namespace is unknown.
  std::function<const std::map<std::string, std::string>*(std::string_view)>
      namespace_labels;
  // KEP-5004: the extended resources DeviceClasses serve (null: none), which
  // NodeResourcesFit leaves to DRA on nodes without a device plugin for them.
  const ExtendedResourceClasses* extended_resource_classes = nullptr;
};

// The node lists of a ClusterView, for callers without a ClusterSnapshot
// (which keeps its own): View() points into this object and `nodes`.
struct AffinityNodeLists {
  explicit AffinityNodeLists(std::span<const NodeEntry> nodes) {
    for (const NodeEntry& node : nodes) {
      if (!node.pods_with_affinity.empty()) with_affinity.push_back(&node);
      if (!node.pods_with_required_anti_affinity.empty()) {
        with_required_anti_affinity.push_back(&node);
      }
    }
  }
  ClusterView View(std::span<const NodeEntry> nodes) const {
    ClusterView view;
    view.nodes = nodes;
    view.nodes_with_affinity_pods = with_affinity;
    view.nodes_with_required_anti_affinity_pods = with_required_anti_affinity;
    view.namespace_labels = [](std::string_view) { return nullptr; };
    return view;
  }
  std::vector<const NodeEntry*> with_affinity;
  std::vector<const NodeEntry*> with_required_anti_affinity;
};

// Per-cycle data of the plugins, keyed by plugin.
class CycleState {
 public:
  explicit CycleState(const api::Pod& pod) : pod_(pod) {}
  const api::Pod& pod() const { return pod_; }

  // The plugin's data of this cycle, created on first use.
  template <typename T>
  T& Data(const void* plugin) {
    for (auto& [owner, data] : data_) {
      if (owner == plugin) return *static_cast<T*>(data.get());
    }
    auto created = std::make_shared<T>();
    T& result = *created;
    data_.emplace_back(plugin, std::move(created));
    return result;
  }
  // Null when the plugin stored nothing.
  template <typename T>
  const T* Find(const void* plugin) const {
    for (const auto& [owner, data] : data_) {
      if (owner == plugin) return static_cast<const T*>(data.get());
    }
    return nullptr;
  }

 private:
  const api::Pod& pod_;
  std::vector<std::pair<const void*, std::shared_ptr<void>>> data_;
};

class NodePlugin {
 public:
  virtual ~NodePlugin() = default;
  // Upstream's plugin name ("NodeResourcesFit").
  virtual std::string_view Name() const = 0;

  // Once per cycle before any Filter. kUnfit rejects the pod on every node
  // with `message` (upstream's UnschedulableAndUnresolvable from
  // PreFilter); kError ends the cycle with `message`.
  virtual FilterCode PreFilter(CycleState& state, const ClusterView& cluster,
                               std::string& message) const {
    (void)state, (void)cluster, (void)message;
    return FilterCode::kFits;
  }
  // Whether the pod may run on `node`; on kUnfit one reason is recorded in
  // `reasons` (upstream's words).
  virtual FilterCode Filter(const CycleState& state, const NodeEntry& node,
                            UnschedulableReasons& reasons) const {
    (void)state, (void)node, (void)reasons;
    return FilterCode::kFits;
  }

  // The plugin's weight in the profile; 0: it does not score.
  virtual int64_t ScoreWeight() const { return 0; }
  // Once per cycle with the nodes that passed Filter, before Score.
  virtual void PreScore(CycleState& state, const ClusterView& cluster,
                        std::span<const NodeEntry* const> feasible) const {
    (void)state, (void)cluster, (void)feasible;
  }
  // The raw score of `node` (one of the feasible nodes).
  virtual int64_t Score(const CycleState& state, const NodeEntry& node) const {
    (void)state, (void)node;
    return 0;
  }
  // Rescales the raw scores of all feasible nodes (same order as
  // PreScore's `feasible`) to 0..kMaxNodeScore; the default keeps them.
  virtual void NormalizeScore(const CycleState& state,
                              std::span<int64_t> scores) const {
    (void)state, (void)scores;
  }
};

// upstream helper.DefaultNormalizeScore: scales so the highest score becomes
// kMaxNodeScore, and with `reverse` flips each score s to kMaxNodeScore - s.
// When the highest score is 0 all stay 0 (all kMaxNodeScore with reverse).
void DefaultNormalizeScore(std::span<int64_t> scores, bool reverse);

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_NODE_PLUGIN_H_
