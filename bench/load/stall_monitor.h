// StallMonitor: a thread that sleeps 1 ms at a time and records each sleep
// that overran by more than a threshold. Such an overrun means that nothing
// in this process could run for that long (a paused or overloaded machine,
// e.g. a VM's stolen time), so latencies measured over that time say
// nothing about the server. Reports put the two side by side.
#ifndef DRALLOC_BENCH_LOAD_STALL_MONITOR_H_
#define DRALLOC_BENCH_LOAD_STALL_MONITOR_H_

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.h"

namespace dralloc::load {

struct Stall {
  double start_ms = 0;    // when the sleep began, from the monitor's start
  double overrun_ms = 0;  // how much longer than asked it lasted
};

struct StallSummary {
  int count = 0;
  double longest_ms = 0;
  double longest_start_ms = 0;
  double total_ms = 0;
};

StallSummary SummarizeStalls(const std::vector<Stall>& stalls);

// "N stalls over 5 ms, longest 15.2 ms at 4.03 s, 31.0 ms in all" or
// "no stalls over 5 ms".
std::string FormatStallSummary(const StallSummary& summary,
                               std::chrono::milliseconds threshold);

// {"threshold_ms", "count", "longest_ms", "longest_start_ms", "total_ms"}.
nlohmann::json StallsJson(const std::vector<Stall>& stalls,
                          std::chrono::milliseconds threshold);

class StallMonitor {
 public:
  static constexpr std::chrono::milliseconds kDefaultThreshold{5};

  explicit StallMonitor(
      std::chrono::milliseconds threshold = kDefaultThreshold);
  StallMonitor(const StallMonitor&) = delete;
  StallMonitor& operator=(const StallMonitor&) = delete;
  ~StallMonitor();

  // Starts recording with offsets counted from `start`; at most once.
  void Start(std::chrono::steady_clock::time_point start) EXCLUDES(mutex_);
  // Stops the thread and returns the stalls seen, in time order.
  std::vector<Stall> Stop() EXCLUDES(mutex_);

  std::chrono::milliseconds threshold() const { return threshold_; }

 private:
  const std::chrono::milliseconds threshold_;
  Mutex mutex_;
  std::vector<Stall> stalls_ GUARDED_BY(mutex_);
  std::jthread thread_;
};

}  // namespace dralloc::load

#endif  // DRALLOC_BENCH_LOAD_STALL_MONITOR_H_
