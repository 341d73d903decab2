// MatchDistinct: gives each request of 1.30's namedResources model one
// instance of its own, no instance to two requests (a bipartite matching).
//
// Kubernetes 1.30 matched greedily: each request, in order, took the first
// free instance it accepted, and a pod stayed pending when an earlier
// request had taken the only instance a later one accepts. dralloc first
// does exactly that, then moves earlier choices along augmenting paths
// (Kuhn's algorithm) for the requests first fit left without an instance,
// so it finds a matching whenever one exists, and gives 1.30's answer
// whenever 1.30 found one. Cost: O(requests x candidate edges).
#ifndef DRALLOC_SCHEDULER_CLASSIC_NAMED_RESOURCES_MATCHER_H_
#define DRALLOC_SCHEDULER_CLASSIC_NAMED_RESOURCES_MATCHER_H_

#include <cstddef>
#include <optional>
#include <vector>

namespace dralloc::scheduler::classic {

// `candidates[r]`: the instances request r accepts, in preference order
// (instance numbers below `instance_count`). Returns the instance of each
// request, or nullopt when no matching gives every request one.
std::optional<std::vector<size_t>> MatchDistinct(
    const std::vector<std::vector<size_t>>& candidates, size_t instance_count);

}  // namespace dralloc::scheduler::classic

#endif  // DRALLOC_SCHEDULER_CLASSIC_NAMED_RESOURCES_MATCHER_H_
