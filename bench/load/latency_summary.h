// LatencySummary: percentiles over the request latencies of one operation.
#ifndef DRALLOC_BENCH_LOAD_LATENCY_SUMMARY_H_
#define DRALLOC_BENCH_LOAD_LATENCY_SUMMARY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dralloc::load {

struct LatencySummary {
  std::size_t count = 0;
  double mean_ms = 0;
  double p50_ms = 0;
  double p90_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

// Nearest-rank percentile (the smallest sample with at least `percent` % of
// the samples at or below it) of an ascending-sorted, non-empty vector.
std::int64_t NearestRankPercentile(const std::vector<std::int64_t>& sorted,
                                   double percent);

// Summarises latencies given in microseconds; all zero for an empty input.
LatencySummary SummarizeLatencies(std::vector<std::int64_t> latencies_us);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_LATENCY_SUMMARY_H_
