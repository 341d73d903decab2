#include "load/latency_summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dralloc::load {

std::int64_t NearestRankPercentile(const std::vector<std::int64_t>& sorted,
                                   double percent) {
  const double rank =
      std::ceil(percent / 100.0 * static_cast<double>(sorted.size()));
  const std::size_t index = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

LatencySummary SummarizeLatencies(std::vector<std::int64_t> latencies_us) {
  LatencySummary summary;
  if (latencies_us.empty()) return summary;
  std::sort(latencies_us.begin(), latencies_us.end());
  constexpr double kMicrosPerMilli = 1000.0;
  const double total =
      std::accumulate(latencies_us.begin(), latencies_us.end(), 0.0);
  summary.count = latencies_us.size();
  summary.mean_ms =
      total / static_cast<double>(latencies_us.size()) / kMicrosPerMilli;
  summary.p50_ms = NearestRankPercentile(latencies_us, 50) / kMicrosPerMilli;
  summary.p90_ms = NearestRankPercentile(latencies_us, 90) / kMicrosPerMilli;
  summary.p99_ms = NearestRankPercentile(latencies_us, 99) / kMicrosPerMilli;
  summary.max_ms = latencies_us.back() / kMicrosPerMilli;
  return summary;
}

}  // namespace dralloc::load
