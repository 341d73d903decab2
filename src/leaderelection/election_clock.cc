#include "leaderelection/election_clock.h"

#include <fmt/format.h>

#include <ctime>

namespace dralloc::leaderelection {

std::chrono::steady_clock::time_point SystemElectionClock::Now() {
  return std::chrono::steady_clock::now();
}

std::chrono::system_clock::time_point SystemElectionClock::WallNow() {
  return std::chrono::system_clock::now();
}

bool SystemElectionClock::Sleep(std::chrono::nanoseconds duration,
                                StopSignal& stop) {
  return !stop.WaitFor(duration);
}

std::string FormatMicroTime(std::chrono::system_clock::time_point time) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          time.time_since_epoch())
                          .count();
  // Floor division, so times before the epoch keep a positive fraction.
  int64_t seconds = micros / 1'000'000;
  int64_t fraction = micros % 1'000'000;
  if (fraction < 0) {
    fraction += 1'000'000;
    --seconds;
  }
  const std::time_t whole = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&whole, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec, fraction);
}

}  // namespace dralloc::leaderelection
