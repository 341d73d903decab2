// The `list-slices` scenario: creates many ResourceSlices in parallel, then
// times full unpaginated lists and paginated (limit + continue) walks of all
// slices. With the server's pid it also reports the server's resident memory
// before and after loading, and so the memory per slice.
#ifndef DRALLOC_BENCH_LOAD_LIST_SLICES_SCENARIO_H_
#define DRALLOC_BENCH_LOAD_LIST_SLICES_SCENARIO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "load/latency_summary.h"
#include "load/load_support.h"
#include "load/load_target.h"

namespace dralloc::load {

struct ListSlicesOptions {
  LoadTarget target;
  int slices = 5000;
  int devices = 128;
  int clients = 8;
  // Timed full lists and timed paginated walks (each).
  int repetitions = 5;
  int page_limit = 500;
  // Server process whose VmRSS is sampled; 0 = do not sample.
  int server_pid = 0;
  // Delete the created slices at the end.
  bool cleanup = false;
  // Bound on the whole run (creation, lists, cleanup), seconds.
  double timeout_seconds = 900;
  std::string run_id;
};

struct ListTiming {
  std::vector<double> seconds;  // one per repetition, in run order
  double median_seconds = 0;
  double min_seconds = 0;
  std::int64_t bytes = 0;  // response bytes (all pages for a walk)
  std::int64_t items = 0;  // items seen (last repetition)
  std::int64_t pages = 0;  // pages per walk (1 for a full list)
  ErrorCounts errors;
};

struct ListSlicesReport {
  ListSlicesOptions options;
  std::int64_t created = 0;
  double create_seconds = 0;
  double creates_per_second = 0;
  LatencySummary create_latency;
  ErrorCounts create_errors;
  ListTiming full_list;
  ListTiming paginated;
  std::optional<std::int64_t> rss_before_kib;
  std::optional<std::int64_t> rss_after_create_kib;
  std::optional<std::int64_t> rss_after_lists_kib;
  std::int64_t deleted = 0;
  ErrorCounts delete_errors;
  // Problems that make the figures wrong (short lists, bad bodies).
  std::vector<std::string> problems;

  bool HasErrors() const;
};

StatusOr<ListSlicesReport> RunListSlicesScenario(
    const ListSlicesOptions& options);

std::string FormatListSlicesReportText(const ListSlicesReport& report);
std::string FormatListSlicesReportJson(const ListSlicesReport& report);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_LIST_SLICES_SCENARIO_H_
