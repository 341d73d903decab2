#include "scheduler/pod_topology_spread.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "allocator/node_info.h"
#include "scheduler/label_selector_matcher.h"
#include "scheduler/taint_toleration.h"

namespace dralloc::scheduler {
namespace {

constexpr char kHostnameLabel[] = "kubernetes.io/hostname";
constexpr int64_t kNoDomain = std::numeric_limits<int32_t>::max();

// A constraint with its defaults applied and matchLabelKeys merged.
struct SpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  std::optional<api::LabelSelector> selector;
  int32_t min_domains = 1;
  bool honor_node_affinity = true;
  bool honor_node_taints = false;
};

using DomainCounts = std::unordered_map<std::string, int64_t>;

// The cycle data: `filter_*` from PreFilter (DoNotSchedule constraints),
// `score_*` from PreScore (ScheduleAnyway constraints). An empty constraint
// list means the extension point has nothing to do.
struct SpreadCycle {
  std::vector<SpreadConstraint> filter_constraints;
  std::vector<DomainCounts> filter_matches;  // per constraint, per domain
  std::vector<int64_t> filter_min_matches;   // per constraint

  std::vector<SpreadConstraint> score_constraints;
  std::vector<DomainCounts> score_matches;  // per constraint (not hostname)
  std::vector<double> score_domain_weights;
  std::vector<bool> score_ignored;  // per feasible node, in PreScore order
};

std::vector<SpreadConstraint> ConstraintsFor(const api::Pod& pod,
                                             std::string_view action) {
  std::vector<SpreadConstraint> result;
  for (const auto& c : pod.spec.topology_spread_constraints) {
    if (c.when_unsatisfiable != action) continue;
    result.push_back(SpreadConstraint{
        .max_skew = c.max_skew,
        .topology_key = c.topology_key,
        .selector = MergeMatchLabelKeys(c.label_selector, c.match_label_keys,
                                        pod.metadata.labels),
        .min_domains = c.min_domains.value_or(1),
        .honor_node_affinity =
            c.node_affinity_policy.value_or("Honor") == "Honor",
        .honor_node_taints = c.node_taints_policy.value_or("Ignore") == "Honor",
    });
  }
  return result;
}

bool HasAllTopologyKeys(const Labels& node_labels,
                        const std::vector<SpreadConstraint>& constraints) {
  return std::all_of(constraints.begin(), constraints.end(),
                     [&](const SpreadConstraint& c) {
                       return node_labels.contains(c.topology_key);
                     });
}

// spec.nodeSelector and required node affinity (upstream
// GetRequiredNodeAffinity(pod).Match(node)).
bool MatchesRequiredNodeAffinity(const api::Pod& pod,
                                 const allocator::NodeInfo& node) {
  for (const auto& [key, value] : pod.spec.node_selector) {
    auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) return false;
  }
  if (!pod.spec.affinity || !pod.spec.affinity->node_affinity) return true;
  const auto& required =
      pod.spec.affinity->node_affinity
          ->required_during_scheduling_ignored_during_execution;
  return !required || allocator::NodeSelectorMatches(*required, node);
}

bool ToleratesNodeTaints(const api::Pod& pod, const api::Node& node) {
  for (const api::Taint& taint : node.spec.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    const bool tolerated = std::any_of(
        pod.spec.tolerations.begin(), pod.spec.tolerations.end(),
        [&](const api::Toleration& t) { return Tolerates(t, taint); });
    if (!tolerated) return false;
  }
  return true;
}

// Whether a node passes the pod's required node affinity and its taints,
// each evaluated once per node and only when some constraint honours it.
struct NodeInclusion {
  bool affinity = true;
  bool taints = true;
};

NodeInclusion InclusionOf(const api::Pod& pod, const NodeEntry& node,
                          const std::vector<SpreadConstraint>& constraints) {
  NodeInclusion inclusion;
  for (const SpreadConstraint& c : constraints) {
    if (c.honor_node_affinity) {
      inclusion.affinity = MatchesRequiredNodeAffinity(pod, node.info);
      break;
    }
  }
  for (const SpreadConstraint& c : constraints) {
    if (c.honor_node_taints) {
      inclusion.taints = ToleratesNodeTaints(pod, *node.node);
      break;
    }
  }
  return inclusion;
}

// upstream matchNodeInclusionPolicies.
bool NodeIncluded(const SpreadConstraint& c, const NodeInclusion& inclusion) {
  return (!c.honor_node_affinity || inclusion.affinity) &&
         (!c.honor_node_taints || inclusion.taints);
}

// Pods of `namespace_` on the node that `selector` selects, except
// terminating ones (upstream countPodsMatchSelector).
int64_t CountMatchingPods(const NodeEntry& node,
                          const std::optional<api::LabelSelector>& selector,
                          const std::string& namespace_) {
  int64_t count = 0;
  for (const NodePod& p : node.pods) {
    const api::ObjectMeta& meta = p.pod->metadata;
    if (meta.deletion_timestamp || meta.namespace_ != namespace_) continue;
    if (LabelSelectorMatches(selector, meta.labels)) ++count;
  }
  return count;
}

void CountFilterDomains(SpreadCycle& cycle, const api::Pod& pod,
                        const ClusterView& cluster) {
  const auto& constraints = cycle.filter_constraints;
  cycle.filter_matches.assign(constraints.size(), {});
  for (const NodeEntry& node : cluster.nodes) {
    if (!HasAllTopologyKeys(node.info.labels, constraints)) continue;
    const NodeInclusion inclusion = InclusionOf(pod, node, constraints);
    for (size_t i = 0; i < constraints.size(); ++i) {
      const SpreadConstraint& c = constraints[i];
      if (!NodeIncluded(c, inclusion)) continue;
      cycle.filter_matches[i][node.info.labels.at(c.topology_key)] +=
          CountMatchingPods(node, c.selector, pod.metadata.namespace_);
    }
  }
  cycle.filter_min_matches.assign(constraints.size(), kNoDomain);
  for (size_t i = 0; i < constraints.size(); ++i) {
    for (const auto& [domain, count] : cycle.filter_matches[i]) {
      cycle.filter_min_matches[i] =
          std::min(cycle.filter_min_matches[i], count);
    }
  }
}

// The global minimum of constraint `i`: 0 while fewer than minDomains
// domains are eligible.
int64_t GlobalMinimum(const SpreadCycle& cycle, size_t i) {
  const auto domains = static_cast<int64_t>(cycle.filter_matches[i].size());
  if (domains < cycle.filter_constraints[i].min_domains) return 0;
  return cycle.filter_min_matches[i];
}

// Creates the per-domain counters of the feasible nodes' domains and the
// constraints' weights (upstream initPreScoreState).
void InitScoreDomains(SpreadCycle& cycle,
                      std::span<const NodeEntry* const> feasible) {
  const auto& constraints = cycle.score_constraints;
  cycle.score_matches.assign(constraints.size(), {});
  cycle.score_ignored.assign(feasible.size(), false);
  size_t ignored = 0;
  for (size_t n = 0; n < feasible.size(); ++n) {
    const Labels& labels = feasible[n]->info.labels;
    if (!HasAllTopologyKeys(labels, constraints)) {
      cycle.score_ignored[n] = true;
      ++ignored;
      continue;
    }
    for (size_t i = 0; i < constraints.size(); ++i) {
      if (constraints[i].topology_key == kHostnameLabel) continue;
      cycle.score_matches[i].try_emplace(labels.at(constraints[i].topology_key),
                                         0);
    }
  }
  cycle.score_domain_weights.clear();
  for (size_t i = 0; i < constraints.size(); ++i) {
    size_t domains = cycle.score_matches[i].size();
    if (constraints[i].topology_key == kHostnameLabel) {
      domains = feasible.size() - ignored;
    }
    cycle.score_domain_weights.push_back(
        std::log(static_cast<double>(domains + 2)));
  }
}

void CountScoreDomains(SpreadCycle& cycle, const api::Pod& pod,
                       const ClusterView& cluster) {
  const auto& constraints = cycle.score_constraints;
  for (const NodeEntry& node : cluster.nodes) {
    if (!HasAllTopologyKeys(node.info.labels, constraints)) continue;
    const NodeInclusion inclusion = InclusionOf(pod, node, constraints);
    for (size_t i = 0; i < constraints.size(); ++i) {
      const SpreadConstraint& c = constraints[i];
      if (!NodeIncluded(c, inclusion)) continue;
      auto it =
          cycle.score_matches[i].find(node.info.labels.at(c.topology_key));
      if (it == cycle.score_matches[i].end()) continue;
      it->second +=
          CountMatchingPods(node, c.selector, pod.metadata.namespace_);
    }
  }
}

}  // namespace

FilterCode PodTopologySpread::PreFilter(CycleState& state,
                                        const ClusterView& cluster,
                                        std::string& message) const {
  (void)message;
  const api::Pod& pod = state.pod();
  if (pod.spec.topology_spread_constraints.empty()) return FilterCode::kFits;
  std::vector<SpreadConstraint> constraints =
      ConstraintsFor(pod, "DoNotSchedule");
  if (constraints.empty()) return FilterCode::kFits;
  SpreadCycle& cycle = state.Data<SpreadCycle>(this);
  cycle.filter_constraints = std::move(constraints);
  CountFilterDomains(cycle, pod, cluster);
  return FilterCode::kFits;
}

FilterCode PodTopologySpread::Filter(const CycleState& state,
                                     const NodeEntry& node,
                                     UnschedulableReasons& reasons) const {
  const SpreadCycle* cycle = state.Find<SpreadCycle>(this);
  if (cycle == nullptr || cycle->filter_constraints.empty()) {
    return FilterCode::kFits;
  }
  const api::Pod& pod = state.pod();
  for (size_t i = 0; i < cycle->filter_constraints.size(); ++i) {
    const SpreadConstraint& c = cycle->filter_constraints[i];
    auto domain = node.info.labels.find(c.topology_key);
    if (domain == node.info.labels.end()) {
      reasons.Add(kReasonNodeLabelNotMatch);
      return FilterCode::kUnfit;
    }
    const int64_t self = LabelSelectorMatches(c.selector, pod.metadata.labels);
    auto matches = cycle->filter_matches[i].find(domain->second);
    const int64_t existing =
        matches == cycle->filter_matches[i].end() ? 0 : matches->second;
    if (existing + self - GlobalMinimum(*cycle, i) > c.max_skew) {
      reasons.Add(kReasonConstraintsNotMatch);
      return FilterCode::kUnfit;
    }
  }
  return FilterCode::kFits;
}

void PodTopologySpread::PreScore(
    CycleState& state, const ClusterView& cluster,
    std::span<const NodeEntry* const> feasible) const {
  const api::Pod& pod = state.pod();
  if (pod.spec.topology_spread_constraints.empty() || cluster.nodes.empty()) {
    return;
  }
  std::vector<SpreadConstraint> constraints =
      ConstraintsFor(pod, "ScheduleAnyway");
  if (constraints.empty()) return;
  SpreadCycle& cycle = state.Data<SpreadCycle>(this);
  cycle.score_constraints = std::move(constraints);
  InitScoreDomains(cycle, feasible);
  CountScoreDomains(cycle, pod, cluster);
}

int64_t PodTopologySpread::Score(const CycleState& state,
                                 const NodeEntry& node) const {
  const SpreadCycle* cycle = state.Find<SpreadCycle>(this);
  if (cycle == nullptr || cycle->score_constraints.empty()) return 0;
  const auto& constraints = cycle->score_constraints;
  if (!HasAllTopologyKeys(node.info.labels, constraints)) return 0;
  const api::Pod& pod = state.pod();
  double score = 0;
  for (size_t i = 0; i < constraints.size(); ++i) {
    const SpreadConstraint& c = constraints[i];
    int64_t count = 0;
    if (c.topology_key == kHostnameLabel) {
      count = CountMatchingPods(node, c.selector, pod.metadata.namespace_);
    } else {
      auto it =
          cycle->score_matches[i].find(node.info.labels.at(c.topology_key));
      if (it != cycle->score_matches[i].end()) count = it->second;
    }
    // maxSkew-1 waters down differences between domains.
    score += static_cast<double>(count) * cycle->score_domain_weights[i] +
             static_cast<double>(c.max_skew - 1);
  }
  return static_cast<int64_t>(std::round(score));
}

// Fewer matching pods is better: the lowest raw score becomes
// kMaxNodeScore; ignored nodes (missing a topology key) get 0.
void PodTopologySpread::NormalizeScore(const CycleState& state,
                                       std::span<int64_t> scores) const {
  const SpreadCycle* cycle = state.Find<SpreadCycle>(this);
  if (cycle == nullptr || cycle->score_constraints.empty()) return;
  auto ignored = [&](size_t n) {
    return n < cycle->score_ignored.size() && cycle->score_ignored[n];
  };
  int64_t min_score = std::numeric_limits<int64_t>::max();
  int64_t max_score = 0;
  for (size_t n = 0; n < scores.size(); ++n) {
    if (ignored(n)) continue;
    min_score = std::min(min_score, scores[n]);
    max_score = std::max(max_score, scores[n]);
  }
  for (size_t n = 0; n < scores.size(); ++n) {
    if (ignored(n)) {
      scores[n] = 0;
    } else if (max_score == 0) {
      scores[n] = kMaxNodeScore;
    } else {
      scores[n] =
          kMaxNodeScore * (max_score + min_score - scores[n]) / max_score;
    }
  }
}

}  // namespace dralloc::scheduler
