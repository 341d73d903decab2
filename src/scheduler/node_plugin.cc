#include "scheduler/node_plugin.h"

#include <algorithm>

namespace dralloc::scheduler {

void DefaultNormalizeScore(std::span<int64_t> scores, bool reverse) {
  int64_t max = 0;
  for (int64_t score : scores) max = std::max(max, score);
  if (max == 0) {
    if (reverse) std::fill(scores.begin(), scores.end(), kMaxNodeScore);
    return;
  }
  for (int64_t& score : scores) {
    score = kMaxNodeScore * score / max;
    if (reverse) score = kMaxNodeScore - score;
  }
}

}  // namespace dralloc::scheduler
