#include "load/stall_monitor.h"

#include <fmt/format.h>

#include <stop_token>

namespace dralloc::load {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kSleep{1};
// Stalls kept at most (a stalled machine for an hour-long run stays bounded).
constexpr std::size_t kMaxStalls = 100000;

double MillisecondsBetween(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace

StallSummary SummarizeStalls(const std::vector<Stall>& stalls) {
  StallSummary summary;
  for (const Stall& stall : stalls) {
    ++summary.count;
    summary.total_ms += stall.overrun_ms;
    if (stall.overrun_ms > summary.longest_ms) {
      summary.longest_ms = stall.overrun_ms;
      summary.longest_start_ms = stall.start_ms;
    }
  }
  return summary;
}

std::string FormatStallSummary(const StallSummary& summary,
                               std::chrono::milliseconds threshold) {
  if (summary.count == 0) {
    return fmt::format("no stalls over {} ms", threshold.count());
  }
  return fmt::format(
      "{} stall{} over {} ms, longest {:.1f} ms at {:.2f} s, {:.1f} ms in all",
      summary.count, summary.count == 1 ? "" : "s", threshold.count(),
      summary.longest_ms, summary.longest_start_ms / 1000.0, summary.total_ms);
}

nlohmann::json StallsJson(const std::vector<Stall>& stalls,
                          std::chrono::milliseconds threshold) {
  const StallSummary summary = SummarizeStalls(stalls);
  return {{"threshold_ms", threshold.count()},
          {"count", summary.count},
          {"longest_ms", summary.longest_ms},
          {"longest_start_ms", summary.longest_start_ms},
          {"total_ms", summary.total_ms}};
}

StallMonitor::StallMonitor(std::chrono::milliseconds threshold)
    : threshold_(threshold) {}

StallMonitor::~StallMonitor() { Stop(); }

void StallMonitor::Start(Clock::time_point start) {
  if (thread_.joinable()) return;
  thread_ = std::jthread([this, start](std::stop_token stop) {
    while (!stop.stop_requested()) {
      const Clock::time_point before = Clock::now();
      std::this_thread::sleep_for(kSleep);
      const double overrun =
          MillisecondsBetween(before, Clock::now()) - kSleep.count();
      if (overrun <= threshold_.count()) continue;
      MutexLock lock(mutex_);
      if (stalls_.size() < kMaxStalls) {
        stalls_.push_back({MillisecondsBetween(start, before), overrun});
      }
    }
  });
}

std::vector<Stall> StallMonitor::Stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
  MutexLock lock(mutex_);
  return stalls_;
}

}  // namespace dralloc::load
