#include "scheduler/inter_pod_affinity.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>
#include <vector>

#include "scheduler/label_selector_matcher.h"

namespace dralloc::scheduler {
namespace {

using Terms = std::vector<api::PodAffinityTerm>;
using WeightedTerms = std::vector<api::WeightedPodAffinityTerm>;
// topology key -> topology value -> count (or score); only non-zero
// entries are ever created, so an empty map means "nothing matched".
using TopologyCounts =
    std::map<std::string, std::unordered_map<std::string, int64_t>>;

const Terms kNoTerms;
const WeightedTerms kNoWeightedTerms;

const Terms& RequiredAffinity(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->pod_affinity) return kNoTerms;
  return a->pod_affinity->required_during_scheduling_ignored_during_execution;
}
const Terms& RequiredAntiAffinity(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->pod_anti_affinity) return kNoTerms;
  return a->pod_anti_affinity
      ->required_during_scheduling_ignored_during_execution;
}
const WeightedTerms& PreferredAffinity(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->pod_affinity) return kNoWeightedTerms;
  return a->pod_affinity->preferred_during_scheduling_ignored_during_execution;
}
const WeightedTerms& PreferredAntiAffinity(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->pod_anti_affinity) return kNoWeightedTerms;
  return a->pod_anti_affinity
      ->preferred_during_scheduling_ignored_during_execution;
}

const Labels& NamespaceLabelsOf(const ClusterView& cluster,
                                std::string_view namespace_) {
  static const Labels kNoLabels;
  if (!cluster.namespace_labels) return kNoLabels;
  const Labels* labels = cluster.namespace_labels(namespace_);
  return labels == nullptr ? kNoLabels : *labels;
}

bool NamespaceMatches(const api::PodAffinityTerm& term, const api::Pod& owner,
                      const api::Pod& target, const ClusterView& cluster) {
  const std::string& ns = target.metadata.namespace_;
  if (term.namespaces.empty() && !term.namespace_selector) {
    return ns == owner.metadata.namespace_;
  }
  if (std::find(term.namespaces.begin(), term.namespaces.end(), ns) !=
      term.namespaces.end()) {
    return true;
  }
  return term.namespace_selector &&
         LabelSelectorMatches(*term.namespace_selector,
                              NamespaceLabelsOf(cluster, ns));
}

// matchLabelKeys: the target has the owner's value; mismatchLabelKeys: it
// does not. Keys the owner lacks are ignored, as the API server does.
bool LabelKeysMatch(const api::PodAffinityTerm& term, const Labels& owner,
                    const Labels& target) {
  auto value_of = [](const Labels& labels, const std::string& key) {
    auto it = labels.find(key);
    return it == labels.end() ? nullptr : &it->second;
  };
  for (const std::string& key : term.match_label_keys) {
    const std::string* want = value_of(owner, key);
    const std::string* have = value_of(target, key);
    if (want != nullptr && (have == nullptr || *have != *want)) return false;
  }
  for (const std::string& key : term.mismatch_label_keys) {
    const std::string* avoid = value_of(owner, key);
    const std::string* have = value_of(target, key);
    if (avoid != nullptr && have != nullptr && *have == *avoid) return false;
  }
  return true;
}

// Whether `term` of `owner` selects `target` (namespace and labels; the
// topology is checked by the caller).
bool TermMatches(const api::PodAffinityTerm& term, const api::Pod& owner,
                 const api::Pod& target, const ClusterView& cluster) {
  if (!LabelSelectorMatches(term.label_selector, target.metadata.labels)) {
    return false;
  }
  if (!LabelKeysMatch(term, owner.metadata.labels, target.metadata.labels)) {
    return false;
  }
  return NamespaceMatches(term, owner, target, cluster);
}

bool MatchesAllTerms(const Terms& terms, const api::Pod& owner,
                     const api::Pod& target, const ClusterView& cluster) {
  if (terms.empty()) return false;
  return std::all_of(terms.begin(), terms.end(),
                     [&](const api::PodAffinityTerm& term) {
                       return TermMatches(term, owner, target, cluster);
                     });
}

void AddAt(TopologyCounts& counts, const Labels& node_labels,
           const std::string& topology_key, int64_t delta) {
  auto value = node_labels.find(topology_key);
  if (value == node_labels.end() || delta == 0) return;
  auto& per_value = counts[topology_key];
  int64_t& count = per_value[value->second];
  count += delta;
  if (count != 0) return;
  per_value.erase(value->second);
  if (per_value.empty()) counts.erase(topology_key);
}

int64_t CountAt(const TopologyCounts& counts, const std::string& key,
                const std::string& value) {
  auto per_key = counts.find(key);
  if (per_key == counts.end()) return 0;
  auto it = per_key->second.find(value);
  return it == per_key->second.end() ? 0 : it->second;
}

struct AffinityCycle {
  // PreFilter; `filter_active` false: Filter has nothing to check.
  bool filter_active = false;
  TopologyCounts affinity_counts;       // pods matching all affinity terms
  TopologyCounts anti_affinity_counts;  // pods matching an anti term
  TopologyCounts existing_anti_affinity_counts;
  bool pod_matches_own_affinity = false;
  // PreScore; empty: every node scores 0.
  TopologyCounts topology_score;
};

// Domains where an existing pod's required anti-affinity term selects the
// incoming pod.
TopologyCounts ExistingAntiAffinityCounts(const api::Pod& pod,
                                          const ClusterView& cluster) {
  TopologyCounts counts;
  for (const NodeEntry* node : cluster.nodes_with_required_anti_affinity_pods) {
    for (const NodePod& existing : node->pods_with_required_anti_affinity) {
      for (const auto& term : RequiredAntiAffinity(*existing.pod)) {
        if (TermMatches(term, *existing.pod, pod, cluster)) {
          AddAt(counts, node->info.labels, term.topology_key, 1);
        }
      }
    }
  }
  return counts;
}

// Domains of the existing pods the incoming pod's required terms select.
void CountIncomingTerms(AffinityCycle& cycle, const api::Pod& pod,
                        const ClusterView& cluster) {
  const Terms& affinity = RequiredAffinity(pod);
  const Terms& anti_affinity = RequiredAntiAffinity(pod);
  if (affinity.empty() && anti_affinity.empty()) return;
  for (const NodeEntry& node : cluster.nodes) {
    for (const NodePod& existing : node.pods) {
      if (MatchesAllTerms(affinity, pod, *existing.pod, cluster)) {
        for (const auto& term : affinity) {
          AddAt(cycle.affinity_counts, node.info.labels, term.topology_key, 1);
        }
      }
      for (const auto& term : anti_affinity) {
        if (TermMatches(term, pod, *existing.pod, cluster)) {
          AddAt(cycle.anti_affinity_counts, node.info.labels, term.topology_key,
                1);
        }
      }
    }
  }
  cycle.pod_matches_own_affinity = MatchesAllTerms(affinity, pod, pod, cluster);
}

bool SatisfiesPodAffinity(const AffinityCycle& cycle, const api::Pod& pod,
                          const Labels& node_labels) {
  const Terms& terms = RequiredAffinity(pod);
  if (terms.empty()) return true;
  bool pods_exist = true;
  for (const auto& term : terms) {
    auto value = node_labels.find(term.topology_key);
    if (value == node_labels.end()) return false;
    if (CountAt(cycle.affinity_counts, term.topology_key, value->second) <= 0) {
      pods_exist = false;
    }
  }
  if (pods_exist) return true;
  // The first pod of a group with affinity to itself may go anywhere as
  // long as no pod in the cluster matches its terms yet.
  return cycle.affinity_counts.empty() && cycle.pod_matches_own_affinity;
}

bool SatisfiesPodAntiAffinity(const AffinityCycle& cycle, const api::Pod& pod,
                              const Labels& node_labels) {
  if (cycle.anti_affinity_counts.empty()) return true;
  for (const auto& term : RequiredAntiAffinity(pod)) {
    auto value = node_labels.find(term.topology_key);
    if (value == node_labels.end()) continue;
    if (CountAt(cycle.anti_affinity_counts, term.topology_key, value->second) >
        0) {
      return false;
    }
  }
  return true;
}

bool SatisfiesExistingPodsAntiAffinity(const AffinityCycle& cycle,
                                       const Labels& node_labels) {
  for (const auto& [key, per_value] : cycle.existing_anti_affinity_counts) {
    auto value = node_labels.find(key);
    if (value == node_labels.end()) continue;
    auto it = per_value.find(value->second);
    if (it != per_value.end() && it->second > 0) return false;
  }
  return true;
}

void AddWeightedTerms(TopologyCounts& scores, const WeightedTerms& terms,
                      const api::Pod& owner, const api::Pod& target,
                      const Labels& node_labels, int64_t sign,
                      const ClusterView& cluster) {
  for (const auto& weighted : terms) {
    if (TermMatches(weighted.pod_affinity_term, owner, target, cluster)) {
      AddAt(scores, node_labels, weighted.pod_affinity_term.topology_key,
            sign * weighted.weight);
    }
  }
}

// upstream processExistingPod: the incoming pod's preferred terms against
// `existing`, and `existing`'s required affinity and preferred terms
// against the incoming pod, credited to the domains of `existing`'s node.
void ScoreExistingPod(TopologyCounts& scores, const api::Pod& pod,
                      const api::Pod& existing, const Labels& node_labels,
                      const ClusterView& cluster) {
  if (node_labels.empty()) return;
  AddWeightedTerms(scores, PreferredAffinity(pod), pod, existing, node_labels,
                   1, cluster);
  AddWeightedTerms(scores, PreferredAntiAffinity(pod), pod, existing,
                   node_labels, -1, cluster);
  for (const auto& term : RequiredAffinity(existing)) {
    if (TermMatches(term, existing, pod, cluster)) {
      AddAt(scores, node_labels, term.topology_key,
            InterPodAffinity::kHardPodAffinityWeight);
    }
  }
  AddWeightedTerms(scores, PreferredAffinity(existing), existing, pod,
                   node_labels, 1, cluster);
  AddWeightedTerms(scores, PreferredAntiAffinity(existing), existing, pod,
                   node_labels, -1, cluster);
}

}  // namespace

FilterCode InterPodAffinity::PreFilter(CycleState& state,
                                       const ClusterView& cluster,
                                       std::string& message) const {
  (void)message;
  const api::Pod& pod = state.pod();
  TopologyCounts existing = ExistingAntiAffinityCounts(pod, cluster);
  if (existing.empty() && RequiredAffinity(pod).empty() &&
      RequiredAntiAffinity(pod).empty()) {
    return FilterCode::kFits;
  }
  AffinityCycle& cycle = state.Data<AffinityCycle>(this);
  cycle.filter_active = true;
  cycle.existing_anti_affinity_counts = std::move(existing);
  CountIncomingTerms(cycle, pod, cluster);
  return FilterCode::kFits;
}

FilterCode InterPodAffinity::Filter(const CycleState& state,
                                    const NodeEntry& node,
                                    UnschedulableReasons& reasons) const {
  const AffinityCycle* cycle = state.Find<AffinityCycle>(this);
  if (cycle == nullptr || !cycle->filter_active) return FilterCode::kFits;
  const Labels& labels = node.info.labels;
  if (!SatisfiesPodAffinity(*cycle, state.pod(), labels)) {
    reasons.Add(kReasonAffinityRulesNotMatch);
    return FilterCode::kUnfit;
  }
  if (!SatisfiesPodAntiAffinity(*cycle, state.pod(), labels)) {
    reasons.Add(kReasonAntiAffinityRulesNotMatch);
    return FilterCode::kUnfit;
  }
  if (!SatisfiesExistingPodsAntiAffinity(*cycle, labels)) {
    reasons.Add(kReasonExistingAntiAffinityRulesNotMatch);
    return FilterCode::kUnfit;
  }
  return FilterCode::kFits;
}

void InterPodAffinity::PreScore(
    CycleState& state, const ClusterView& cluster,
    std::span<const NodeEntry* const> feasible) const {
  if (feasible.empty()) return;
  const api::Pod& pod = state.pod();
  // Without preferred terms of its own, only existing pods with affinity
  // terms can contribute.
  const bool has_preferred =
      !PreferredAffinity(pod).empty() || !PreferredAntiAffinity(pod).empty();
  TopologyCounts scores;
  auto score_pods_of = [&](const NodeEntry& node) {
    const auto& pods = has_preferred ? node.pods : node.pods_with_affinity;
    for (const NodePod& existing : pods) {
      ScoreExistingPod(scores, pod, *existing.pod, node.info.labels, cluster);
    }
  };
  if (has_preferred) {
    for (const NodeEntry& node : cluster.nodes) score_pods_of(node);
  } else {
    for (const NodeEntry* node : cluster.nodes_with_affinity_pods) {
      score_pods_of(*node);
    }
  }
  if (scores.empty()) return;
  state.Data<AffinityCycle>(this).topology_score = std::move(scores);
}

int64_t InterPodAffinity::Score(const CycleState& state,
                                const NodeEntry& node) const {
  const AffinityCycle* cycle = state.Find<AffinityCycle>(this);
  if (cycle == nullptr) return 0;
  int64_t score = 0;
  for (const auto& [key, per_value] : cycle->topology_score) {
    auto value = node.info.labels.find(key);
    if (value == node.info.labels.end()) continue;
    auto it = per_value.find(value->second);
    if (it != per_value.end()) score += it->second;
  }
  return score;
}

// Min-max scaling: the lowest raw score becomes 0, the highest
// kMaxNodeScore; all 0 when every node has the same score.
void InterPodAffinity::NormalizeScore(const CycleState& state,
                                      std::span<int64_t> scores) const {
  const AffinityCycle* cycle = state.Find<AffinityCycle>(this);
  if (cycle == nullptr || cycle->topology_score.empty() || scores.empty()) {
    return;
  }
  const auto [min_it, max_it] =
      std::minmax_element(scores.begin(), scores.end());
  const int64_t min_score = *min_it;
  const int64_t spread = *max_it - min_score;
  for (int64_t& score : scores) {
    score = spread > 0
                ? static_cast<int64_t>(static_cast<double>(kMaxNodeScore) *
                                       (static_cast<double>(score - min_score) /
                                        static_cast<double>(spread)))
                : 0;
  }
}

}  // namespace dralloc::scheduler
