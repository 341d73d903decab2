#include "scheduler/node_plugin.h"

#include <algorithm>

namespace dralloc::scheduler {

void DefaultNormalizeScore(std::span<int64_t> scores, bool reverse) {
  int64_t highest = 0;
  for (int64_t score : scores) highest = std::max(highest, score);
  for (int64_t& score : scores) {
    const int64_t scaled = highest == 0 ? 0 : kMaxNodeScore * score / highest;
    score = reverse ? kMaxNodeScore - scaled : scaled;
  }
}

}  // namespace dralloc::scheduler
