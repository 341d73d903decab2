// InterPodAffinity: upstream's plugin of that name. Filter enforces the
// pod's required pod affinity and anti-affinity and the required
// anti-affinity of the pods already on nodes; Score adds the weights of the
// pod's preferred terms, of existing pods' preferred terms, and of existing
// pods' required affinity terms (hardPodAffinityWeight 1) that the pod
// matches, per topology domain, scaled to 0..kMaxNodeScore.
//
// A term selects pods by labelSelector (with matchLabelKeys and
// mismatchLabelKeys applied against the term owner's labels, as the API
// server merges them) in its namespaces: those listed plus those whose
// labels match namespaceSelector, or the owner's namespace when neither is
// given.
#ifndef DRALLOC_SCHEDULER_INTER_POD_AFFINITY_H_
#define DRALLOC_SCHEDULER_INTER_POD_AFFINITY_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "scheduler/node_plugin.h"

namespace dralloc::scheduler {

class InterPodAffinity final : public NodePlugin {
 public:
  static constexpr std::string_view kName = "InterPodAffinity";
  static constexpr char kReasonAffinityRulesNotMatch[] =
      "node(s) didn't match pod affinity rules";
  static constexpr char kReasonAntiAffinityRulesNotMatch[] =
      "node(s) didn't match pod anti-affinity rules";
  static constexpr char kReasonExistingAntiAffinityRulesNotMatch[] =
      "node(s) didn't satisfy existing pods anti-affinity rules";
  // upstream InterPodAffinityArgs.hardPodAffinityWeight default.
  static constexpr int64_t kHardPodAffinityWeight = 1;

  std::string_view Name() const override { return kName; }
  FilterCode PreFilter(CycleState& state, const ClusterView& cluster,
                       std::string& message) const override;
  FilterCode Filter(const CycleState& state, const NodeEntry& node,
                    UnschedulableReasons& reasons) const override;

  // upstream's default weight of InterPodAffinity in the profile.
  int64_t ScoreWeight() const override { return 2; }
  void PreScore(CycleState& state, const ClusterView& cluster,
                std::span<const NodeEntry* const> feasible) const override;
  int64_t Score(const CycleState& state, const NodeEntry& node) const override;
  void NormalizeScore(const CycleState& state,
                      std::span<int64_t> scores) const override;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_INTER_POD_AFFINITY_H_
