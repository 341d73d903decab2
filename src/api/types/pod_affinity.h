// core/v1 scheduling constraints of a pod beyond node selectors: pod
// (anti-)affinity terms, preferred node affinity terms and topology spread
// constraints.
#ifndef DRALLOC_API_TYPES_POD_AFFINITY_H_
#define DRALLOC_API_TYPES_POD_AFFINITY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/reflect.h"
#include "api/types/label_selector.h"
#include "api/types/node_selector.h"

namespace dralloc::api {

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
  friend bool operator==(const PreferredSchedulingTerm&,
                         const PreferredSchedulingTerm&) = default;
};
constexpr auto FieldsOf(const PreferredSchedulingTerm*) {
  using T = PreferredSchedulingTerm;
  return std::tuple{Field("weight", &T::weight, kAlways).Proto(1),
                    Field("preference", &T::preference, kAlways).Proto(2)};
}

// Pods matching label_selector in the given namespaces (none listed and no
// namespace_selector: the pod's own namespace), co-located (affinity) or
// not (anti-affinity) within the same value of topology_key.
struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;
  std::vector<std::string> namespaces;
  std::string topology_key;
  std::optional<LabelSelector> namespace_selector;
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;
  friend bool operator==(const PodAffinityTerm&,
                         const PodAffinityTerm&) = default;
};
constexpr auto FieldsOf(const PodAffinityTerm*) {
  using T = PodAffinityTerm;
  return std::tuple{
      Field("labelSelector", &T::label_selector).Proto(1),
      Field("namespaces", &T::namespaces).Proto(2),
      Field("topologyKey", &T::topology_key, kAlways).Proto(3),
      Field("namespaceSelector", &T::namespace_selector).Proto(4),
      Field("matchLabelKeys", &T::match_label_keys).Proto(5).ListAtomic(),
      Field("mismatchLabelKeys", &T::mismatch_label_keys)
          .Proto(6)
          .ListAtomic()};
}

struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm pod_affinity_term;
  friend bool operator==(const WeightedPodAffinityTerm&,
                         const WeightedPodAffinityTerm&) = default;
};
constexpr auto FieldsOf(const WeightedPodAffinityTerm*) {
  using T = WeightedPodAffinityTerm;
  return std::tuple{
      Field("weight", &T::weight, kAlways).Proto(1),
      Field("podAffinityTerm", &T::pod_affinity_term, kAlways).Proto(2)};
}

// PodAffinity and PodAntiAffinity have the same shape.
struct PodAffinity {
  std::vector<PodAffinityTerm>
      required_during_scheduling_ignored_during_execution;
  std::vector<WeightedPodAffinityTerm>
      preferred_during_scheduling_ignored_during_execution;
  friend bool operator==(const PodAffinity&, const PodAffinity&) = default;
};
constexpr auto FieldsOf(const PodAffinity*) {
  using T = PodAffinity;
  return std::tuple{
      Field("requiredDuringSchedulingIgnoredDuringExecution",
            &T::required_during_scheduling_ignored_during_execution)
          .Proto(1)
          .ListAtomic(),
      Field("preferredDuringSchedulingIgnoredDuringExecution",
            &T::preferred_during_scheduling_ignored_during_execution)
          .Proto(2)
          .ListAtomic()};
}
using PodAntiAffinity = PodAffinity;

struct TopologySpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  std::string when_unsatisfiable;  // DoNotSchedule, ScheduleAnyway
  std::optional<LabelSelector> label_selector;
  std::optional<int32_t> min_domains;
  std::optional<std::string> node_affinity_policy;  // Honor (default), Ignore
  std::optional<std::string> node_taints_policy;    // Ignore (default), Honor
  std::vector<std::string> match_label_keys;
  friend bool operator==(const TopologySpreadConstraint&,
                         const TopologySpreadConstraint&) = default;
};
constexpr auto FieldsOf(const TopologySpreadConstraint*) {
  using T = TopologySpreadConstraint;
  return std::tuple{
      Field("maxSkew", &T::max_skew, kAlways).Proto(1),
      Field("topologyKey", &T::topology_key, kAlways).Proto(2),
      Field("whenUnsatisfiable", &T::when_unsatisfiable, kAlways).Proto(3),
      Field("labelSelector", &T::label_selector).Proto(4),
      Field("minDomains", &T::min_domains).Proto(5),
      Field("nodeAffinityPolicy", &T::node_affinity_policy).Proto(6),
      Field("nodeTaintsPolicy", &T::node_taints_policy).Proto(7),
      Field("matchLabelKeys", &T::match_label_keys).Proto(8).ListAtomic()};
}

}  // namespace dralloc::api

#endif  // DRALLOC_API_TYPES_POD_AFFINITY_H_
