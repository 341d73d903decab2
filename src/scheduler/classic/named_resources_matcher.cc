#include "scheduler/classic/named_resources_matcher.h"

namespace dralloc::scheduler::classic {
namespace {

constexpr size_t kFree = static_cast<size_t>(-1);

// Kuhn's augmenting path from `request`: takes a free candidate, or one
// whose holder can move to another candidate of its own.
bool Augment(size_t request, const std::vector<std::vector<size_t>>& candidates,
             std::vector<size_t>& holder, std::vector<bool>& visited) {
  for (size_t instance : candidates[request]) {
    if (visited[instance]) continue;
    visited[instance] = true;
    if (holder[instance] == kFree ||
        Augment(holder[instance], candidates, holder, visited)) {
      holder[instance] = request;
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<std::vector<size_t>> MatchDistinct(
    const std::vector<std::vector<size_t>>& candidates, size_t instance_count) {
  std::vector<size_t> holder(instance_count, kFree);
  std::vector<size_t> unmatched;
  // 1.30's first fit.
  for (size_t request = 0; request < candidates.size(); ++request) {
    bool placed = false;
    for (size_t instance : candidates[request]) {
      if (holder[instance] == kFree) {
        holder[instance] = request;
        placed = true;
        break;
      }
    }
    if (!placed) unmatched.push_back(request);
  }
  for (size_t request : unmatched) {
    std::vector<bool> visited(instance_count, false);
    if (!Augment(request, candidates, holder, visited)) return std::nullopt;
  }
  std::vector<size_t> chosen(candidates.size(), kFree);
  for (size_t instance = 0; instance < instance_count; ++instance) {
    if (holder[instance] != kFree) chosen[holder[instance]] = instance;
  }
  return chosen;
}

}  // namespace dralloc::scheduler::classic
