#include "scheduler/scheduling_framework.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace dralloc::scheduler {

// The DynamicResources plugin's weight in the profile.
constexpr int64_t kDynamicResourcesWeight = 2;

namespace {

// Whether some request of `claims` has a firstAvailable list (only those
// get a non-zero KEP-4816 score).
bool AnyFirstAvailable(const std::vector<const api::ResourceClaim*>& claims) {
  for (const api::ResourceClaim* claim : claims) {
    for (const api::DeviceRequest& request : claim->spec.devices.requests) {
      if (!request.first_available.empty()) return true;
    }
  }
  return false;
}

}  // namespace

size_t FeasibleNodesToFind(size_t nodes) {
  constexpr size_t kMinFeasible = 100;
  if (nodes < kMinFeasible) return nodes;
  int64_t percentage = 50 - static_cast<int64_t>(nodes) / 125;
  percentage = std::max<int64_t>(percentage, 5);
  return std::max(kMinFeasible, nodes * percentage / 100);
}

SchedulingFramework::SchedulingFramework(
    ClusterSnapshot& snapshot, DraPlugin& dra,
    std::vector<std::unique_ptr<NodePlugin>> profile, FrameworkOptions options)
    : snapshot_(snapshot),
      dra_(dra),
      classic_(snapshot),
      profile_(std::move(profile)),
      options_(options) {
  if (options_.filter_cache) {
    filter_cache_ = std::make_unique<FilterCache>(snapshot_);
  }
}

bool FilterCacheEnabledByEnvironment() {
  return std::getenv("DRALLOC_NO_FILTER_CACHE") == nullptr;
}

CycleVerdict SchedulingFramework::Schedule(DraCycleState& state,
                                           size_t& next_start_node,
                                           const std::vector<size_t>* only) {
  const size_t all_nodes =
      only != nullptr ? only->size() : snapshot_.nodes().size();
  CycleVerdict verdict;
  // A rejection before Filter is reported for all nodes at once, as
  // upstream.
  auto reject = [&](std::string_view message) {
    verdict.kind = CycleVerdict::Kind::kUnschedulable;
    verdict.message =
        fmt::format("0/{} nodes are available: {}.", all_nodes, message);
    return std::move(verdict);
  };

  const PreEnqueueResult ready = dra_.PreEnqueue(state);
  verdict.missing_claim = ready.missing_claim;
  switch (ready.code) {
    case PreEnqueueResult::Code::kGated:
      verdict.kind = CycleVerdict::Kind::kGated;
      return verdict;
    case PreEnqueueResult::Code::kUnschedulable:
      return reject(ready.message);
    case PreEnqueueResult::Code::kReady:
      break;
  }

  const ClusterView view = snapshot_.View();
  CycleState cycle(state.pod);
  for (const auto& plugin : profile_) {
    std::string message;
    const FilterCode code = plugin->PreFilter(cycle, view, message);
    if (code != FilterCode::kFits) return reject(message);
  }
  dra_.PreFilter(state);
  if (state.stale_extended_claim != nullptr) {
    verdict.delete_claim = state.stale_extended_claim;
    return reject("cannot schedule extended resource claim");
  }
  if (state.classic != nullptr) {
    const classic::Verdict drivers = classic_.PreFilter(state);
    if (!drivers.ok()) return reject(drivers.reason);
  }
  if (filter_cache_ != nullptr && !state.to_allocate.empty()) {
    filter_cache_->BeginCycle(state.to_allocate);
  }

  UnschedulableReasons reasons;
  std::vector<Candidate> feasible;
  std::string error;
  const size_t start_node = next_start_node;
  bool reasons_left_out = false;
  if (!FilterNodes(state, cycle, reasons, feasible, next_start_node, only,
                   error, reasons_left_out)) {
    return reject(error);
  }
  if (feasible.empty() && reasons_left_out) {
    // Cached rejections carry no reason: evaluate again without the cache
    // (the same nodes in the same order, with the same verdicts).
    ++stats_.filter_reruns;
    reasons = UnschedulableReasons();
    next_start_node = start_node;
    bypass_cache_ = true;
    const bool ok = FilterNodes(state, cycle, reasons, feasible,
                                next_start_node, only, error, reasons_left_out);
    bypass_cache_ = false;
    if (!ok) return reject(error);
  }
  verdict.feasible_nodes = feasible.size();
  if (feasible.empty()) {
    verdict.kind = CycleVerdict::Kind::kUnschedulable;
    verdict.message = reasons.Message(all_nodes);
    verdict.deallocate = dra_.PostFilter(state);
    if (verdict.deallocate == nullptr) {
      verdict.classic_deallocate = classic_.PostFilter(state);
    }
    return verdict;
  }
  // Upstream skips PreScore for a single feasible node; Reserve then asks
  // the drivers about that node alone.
  if (state.classic != nullptr && feasible.size() > 1) {
    classic_.PreScore(state, feasible);
  }
  const size_t best = SelectNode(state, cycle, view, feasible, verdict.score);
  verdict.kind = CycleVerdict::Kind::kFeasible;
  verdict.chosen = std::move(feasible[best]);
  return verdict;
}

bool SchedulingFramework::FilterNodes(DraCycleState& state, CycleState& cycle,
                                      UnschedulableReasons& reasons,
                                      std::vector<Candidate>& feasible,
                                      size_t& next_start_node,
                                      const std::vector<size_t>* only,
                                      std::string& error,
                                      bool& reasons_left_out) {
  const std::vector<NodeEntry>& nodes = snapshot_.nodes();
  const size_t n = only != nullptr ? only->size() : nodes.size();
  const size_t want = options_.evaluate_all_nodes ? n : FeasibleNodesToFind(n);
  size_t evaluated = 0;
  bool ok = true;
  // One candidate reused across nodes: most nodes fail, and building and
  // destroying a Candidate per node cost a measurable share of Filter.
  Candidate candidate;
  feasible.reserve(want);
  const bool structured_classic =
      state.classic != nullptr && !state.classic->structured.empty();
  for (; evaluated < n && feasible.size() < want; ++evaluated) {
    const size_t position = (next_start_node + evaluated) % n;
    const size_t index = only != nullptr ? (*only)[position] : position;
    const NodeEntry& node = nodes[index];
    ++stats_.nodes_evaluated;
    bool fits = true;
    for (const auto& plugin : profile_) {
      if (plugin->Filter(cycle, node, reasons) != FilterCode::kFits) {
        fits = false;
        break;
      }
    }
    if (!fits) continue;
    candidate.Reset(index);
    FilterCode code = DraFilter(state, reasons, candidate, reasons_left_out);
    // 1.30's structured parameters: depend on what is taken, never cached.
    if (code == FilterCode::kFits && structured_classic &&
        !ClassicStructuredFits(state, index, reasons)) {
      code = FilterCode::kUnfit;
    }
    if (code == FilterCode::kError) {
      error = state.error;
      ok = false;
      ++evaluated;
      break;
    }
    if (code == FilterCode::kFits) feasible.push_back(std::move(candidate));
  }
  stats_.allocator_calls += state.allocator_calls;
  state.allocator_calls = 0;
  if (n > 0) next_start_node = (next_start_node + evaluated) % n;
  return ok;
}

FilterCode SchedulingFramework::DraFilter(DraCycleState& state,
                                          UnschedulableReasons& reasons,
                                          Candidate& candidate,
                                          bool& reasons_left_out) {
  const FilterCode code =
      DraFilterDevices(state, reasons, candidate, reasons_left_out);
  // KEP-5517: depends on the node's usage, so never cached.
  if (code == FilterCode::kFits &&
      snapshot_.inventory().any_node_allocatable_resources() &&
      !dra_.NodeAllocatableFits(state, snapshot_.nodes()[candidate.node],
                                candidate.allocations(), reasons)) {
    return FilterCode::kUnfit;
  }
  return code;
}

bool SchedulingFramework::ClassicStructuredFits(const DraCycleState& state,
                                                size_t node,
                                                UnschedulableReasons& reasons) {
  std::string reason;
  if (classic_.StructuredFits(state, snapshot_.nodes()[node].info.name,
                              reason)) {
    return true;
  }
  reasons.Add(reason);
  return false;
}

FilterCode SchedulingFramework::DraFilterDevices(DraCycleState& state,
                                                 UnschedulableReasons& reasons,
                                                 Candidate& candidate,
                                                 bool& reasons_left_out) {
  const size_t index = candidate.node;
  const NodeEntry& node = snapshot_.nodes()[index];
  std::vector<api::AllocationResult>& results = candidate.results;
  // The special claim for extended resources differs per node (device
  // plugins), so such pods are never cached.
  if (filter_cache_ == nullptr || bypass_cache_ || state.to_allocate.empty() ||
      state.extended_classes != nullptr) {
    return dra_.FilterCandidate(state, node, reasons, candidate);
  }
  if (!dra_.AllocatedClaimsAvailable(state, node, reasons)) {
    return FilterCode::kUnfit;
  }
  if (const CachedFilterVerdict* hit = filter_cache_->Find(index)) {
    ++stats_.filter_cache_hits;
    if (hit->code == FilterCode::kFits) {
      candidate.shared_results = hit->results;
    } else {
      reasons_left_out = true;
    }
    return hit->code;
  }
  const FilterCode code = dra_.Filter(state, node, reasons, results);
  filter_cache_->Store(index, code, results);
  return code;
}

size_t SchedulingFramework::SelectNode(const DraCycleState& state,
                                       CycleState& cycle,
                                       const ClusterView& view,
                                       const std::vector<Candidate>& feasible,
                                       int64_t& score) {
  score = 0;
  if (feasible.size() == 1) return 0;  // upstream skips scoring
  const std::vector<NodeEntry>& nodes = snapshot_.nodes();
  std::vector<const NodeEntry*> entries;
  entries.reserve(feasible.size());
  for (const Candidate& c : feasible) entries.push_back(&nodes[c.node]);

  std::vector<int64_t> total(feasible.size(), 0);
  std::vector<int64_t> scores(feasible.size());
  for (const auto& plugin : profile_) {
    const int64_t weight = plugin->ScoreWeight();
    if (weight == 0) continue;
    plugin->PreScore(cycle, view, entries);
    for (size_t i = 0; i < entries.size(); ++i) {
      scores[i] = plugin->Score(cycle, *entries[i]);
    }
    plugin->NormalizeScore(cycle, scores);
    for (size_t i = 0; i < entries.size(); ++i) total[i] += weight * scores[i];
  }
  // Without any prioritized list every node's DRA score is 0: skipped
  // (exact, as upstream's Skip status).
  if (AnyFirstAvailable(state.to_allocate)) {
    for (size_t i = 0; i < feasible.size(); ++i) {
      scores[i] = dra_.ScoreNode(state, feasible[i]);
    }
    DefaultNormalizeScore(scores, /*reverse=*/false);
    for (size_t i = 0; i < feasible.size(); ++i) {
      total[i] += kDynamicResourcesWeight * scores[i];
    }
  }
  if (options_.placement != Placement::kDefault) {
    for (size_t i = 0; i < feasible.size(); ++i) {
      const int64_t fill = snapshot_.DeviceFillPercent(entries[i]->info);
      total[i] += options_.placement == Placement::kPack ? fill : 100 - fill;
    }
  }
  // Upstream picks at random among the best nodes. dralloc takes them in
  // turn (the k-th selection with ties takes the (k mod ties)-th best in
  // evaluation order): as even a spread, and the same input gives the same
  // answer.
  score = *std::max_element(total.begin(), total.end());
  std::vector<size_t> best;
  for (size_t i = 0; i < total.size(); ++i) {
    if (total[i] == score) best.push_back(i);
  }
  if (best.size() == 1) return best[0];
  return best[tie_breaks_++ % best.size()];
}

}  // namespace dralloc::scheduler
