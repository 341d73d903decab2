// The `watch-fanout` scenario: many watchers on one namespace's
// ResourceClaims, then many creates; checks that every watcher received
// every created object exactly once, in strictly increasing resourceVersion
// order, and reports how long delivery took.
#ifndef DRALLOC_BENCH_LOAD_WATCH_FANOUT_SCENARIO_H_
#define DRALLOC_BENCH_LOAD_WATCH_FANOUT_SCENARIO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "load/latency_summary.h"
#include "load/load_support.h"
#include "load/load_target.h"

namespace dralloc::load {

struct WatchFanoutOptions {
  LoadTarget target;
  int watchers = 1000;
  std::int64_t writes = 10000;
  int clients = 8;
  // Namespace to watch and write in; a fresh "load-watch-RUN" when empty (the
  // check assumes nobody else writes claims there).
  std::string namespace_name;
  // Watch streams being opened at the same time.
  int open_window = 50;
  // Bound on the whole run, seconds.
  double timeout_seconds = 300;
  std::string run_id;
};

struct WatchFanoutReport {
  WatchFanoutOptions options;
  std::string list_resource_version;
  int established = 0;
  // Watch requests that got no 200 (status or transport failure).
  ErrorCounts watch_open_errors;
  double open_seconds = 0;

  std::int64_t writes_acknowledged = 0;
  ErrorCounts write_errors;
  double write_seconds = 0;
  double writes_per_second = 0;
  LatencySummary write_latency;

  // From the first write to the moment every watcher had every event.
  double deliver_seconds = 0;
  // From the last write's acknowledgement to full delivery.
  double deliver_after_last_write_seconds = 0;
  bool delivery_timed_out = false;

  std::int64_t min_events_per_watcher = 0;
  std::int64_t max_events_per_watcher = 0;
  // Acknowledged creates a watcher never saw, summed over watchers.
  std::int64_t lost_events = 0;
  // Events a watcher saw that match no acknowledged create.
  std::int64_t unexpected_events = 0;
  // Events whose resourceVersion was not greater than the previous one.
  std::int64_t order_violations = 0;
  // Events of a type other than ADDED (BOOKMARK excluded) or unreadable lines.
  std::int64_t odd_events = 0;
  // Watchers whose stream ended or failed before the check finished.
  int streams_ended_early = 0;
  std::vector<std::string> problems;

  bool HasErrors() const;
};

StatusOr<WatchFanoutReport> RunWatchFanoutScenario(
    const WatchFanoutOptions& options);

std::string FormatWatchFanoutReportText(const WatchFanoutReport& report);
std::string FormatWatchFanoutReportJson(const WatchFanoutReport& report);

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_WATCH_FANOUT_SCENARIO_H_
