#include "scheduler/node_resources_fit.h"

#include <algorithm>
#include <optional>

namespace dralloc::scheduler {
namespace {

struct FitState {
  std::optional<ResourceAmounts> requests;  // from PreFilter
  // From PreFilter: the pod's extended resources some DeviceClass serves
  // (KEP-5004); a node without a device plugin for them leaves them to DRA.
  std::vector<std::string> dra_served;
  std::optional<ResourceAmounts> non_zero_requests;  // from PreScore
};

bool RequestsNothing(const ResourceAmounts& pod) {
  return pod.milli_cpu == 0 && pod.memory == 0 && pod.ephemeral_storage == 0 &&
         pod.scalar.empty();
}

// Whether `wanted` (> 0) exceeds what is left of `allocatable`.
bool Exceeds(int64_t wanted, int64_t allocatable, int64_t requested) {
  return wanted > 0 && wanted > allocatable - requested;
}

// upstream leastRequestedScore: the free share after placing the pod, 0..100.
int64_t LeastRequestedScore(int64_t requested, int64_t allocatable) {
  if (allocatable == 0 || requested > allocatable) return 0;
  return (allocatable - requested) * kMaxNodeScore / allocatable;
}

// The stored amounts, or `fallback` computed by `compute` when the
// extension point that stores them did not run (plugin tests).
const ResourceAmounts& StoredOr(const std::optional<ResourceAmounts>* stored,
                                ResourceAmounts (*compute)(const api::Pod&),
                                const api::Pod& pod,
                                ResourceAmounts& fallback) {
  if (stored != nullptr && stored->has_value()) return **stored;
  fallback = compute(pod);
  return fallback;
}

}  // namespace

std::vector<std::string> InsufficientResources(
    const ResourceAmounts& pod, const NodeUsage& node,
    std::span<const std::string> dra_served) {
  std::vector<std::string> reasons;
  const ResourceAmounts& allocatable = node.allocatable();
  const ResourceAmounts& requested = node.requested();
  if (requested.pods + 1 > allocatable.pods) reasons.push_back("Too many pods");
  if (RequestsNothing(pod)) return reasons;
  if (Exceeds(pod.milli_cpu, allocatable.milli_cpu, requested.milli_cpu)) {
    reasons.push_back("Insufficient cpu");
  }
  if (Exceeds(pod.memory, allocatable.memory, requested.memory)) {
    reasons.push_back("Insufficient memory");
  }
  if (Exceeds(pod.ephemeral_storage, allocatable.ephemeral_storage,
              requested.ephemeral_storage)) {
    reasons.push_back("Insufficient ephemeral-storage");
  }
  for (const auto& [name, wanted] : pod.scalar) {
    auto has = allocatable.scalar.find(name);
    auto used = requested.scalar.find(name);
    const bool device_plugin =
        has != allocatable.scalar.end() && has->second > 0;
    if (!device_plugin &&
        std::ranges::find(dra_served, name) != dra_served.end()) {
      continue;  // upstream's ShouldDelegateResourceToDRA
    }
    if (Exceeds(wanted, has == allocatable.scalar.end() ? 0 : has->second,
                used == requested.scalar.end() ? 0 : used->second)) {
      reasons.push_back("Insufficient " + name);
    }
  }
  return reasons;
}

FilterCode NodeResourcesFit::PreFilter(CycleState& state,
                                       const ClusterView& cluster,
                                       std::string& message) const {
  (void)message;
  FitState& fit = state.Data<FitState>(this);
  fit.requests = PodRequests(state.pod());
  if (cluster.extended_resource_classes != nullptr) {
    for (const auto& [name, amount] : fit.requests->scalar) {
      if (amount > 0 && cluster.extended_resource_classes->contains(name)) {
        fit.dra_served.push_back(name);
      }
    }
  }
  return FilterCode::kFits;
}

FilterCode NodeResourcesFit::Filter(const CycleState& state,
                                    const NodeEntry& node,
                                    UnschedulableReasons& reasons) const {
  // A node that states no allocatable resources (a hypothetical node of a
  // what-if) has room for anything: see NodeUsage::reports_allocatable.
  if (!node.usage.reports_allocatable()) return FilterCode::kFits;
  const FitState* computed = state.Find<FitState>(this);
  ResourceAmounts fallback;
  const std::vector<std::string> insufficient = InsufficientResources(
      StoredOr(computed != nullptr ? &computed->requests : nullptr,
               &PodRequests, state.pod(), fallback),
      node.usage,
      computed != nullptr ? std::span<const std::string>(computed->dra_served)
                          : std::span<const std::string>());
  for (const std::string& reason : insufficient) reasons.Add(reason);
  return insufficient.empty() ? FilterCode::kFits : FilterCode::kUnfit;
}

void NodeResourcesFit::PreScore(
    CycleState& state, const ClusterView& cluster,
    std::span<const NodeEntry* const> feasible) const {
  (void)cluster, (void)feasible;
  state.Data<FitState>(this).non_zero_requests =
      NonZeroPodRequests(state.pod());
}

int64_t NodeResourcesFit::Score(const CycleState& state,
                                const NodeEntry& node) const {
  const FitState* computed = state.Find<FitState>(this);
  ResourceAmounts fallback;
  const ResourceAmounts& pod =
      StoredOr(computed != nullptr ? &computed->non_zero_requests : nullptr,
               &NonZeroPodRequests, state.pod(), fallback);
  const ResourceAmounts& allocatable = node.usage.allocatable();
  const ResourceAmounts& requested = node.usage.non_zero_requested();
  // cpu and memory with weight 1 each; a resource the node does not
  // declare is left out of the average.
  int64_t sum = 0;
  int64_t weights = 0;
  if (allocatable.milli_cpu != 0) {
    sum += LeastRequestedScore(requested.milli_cpu + pod.milli_cpu,
                               allocatable.milli_cpu);
    ++weights;
  }
  if (allocatable.memory != 0) {
    sum +=
        LeastRequestedScore(requested.memory + pod.memory, allocatable.memory);
    ++weights;
  }
  return weights == 0 ? 0 : sum / weights;
}

}  // namespace dralloc::scheduler
