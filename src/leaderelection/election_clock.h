// ElectionClock: the time a LeaderElector reads and waits on, injectable so
// that tests drive elections deterministically (no sleeps).
//
// Expiry is judged on the monotonic clock (Now): like client-go, an elector
// trusts only how long *it* has seen a lease record unchanged, never the
// other holder's wall clock. Wall time (WallNow) only stamps the acquireTime
// and renewTime written for humans and other clients.
#ifndef DRALLOC_LEADERELECTION_ELECTION_CLOCK_H_
#define DRALLOC_LEADERELECTION_ELECTION_CLOCK_H_

#include <chrono>
#include <string>

#include "leaderelection/stop_signal.h"

namespace dralloc::leaderelection {

class ElectionClock {
 public:
  virtual ~ElectionClock() = default;
  virtual std::chrono::steady_clock::time_point Now() = 0;
  virtual std::chrono::system_clock::time_point WallNow() = 0;
  // Waits `duration`, or less once `stop` is raised. Returns false when
  // `stop` is raised (the caller should wind down).
  virtual bool Sleep(std::chrono::nanoseconds duration, StopSignal& stop) = 0;
};

// The process's real clocks.
class SystemElectionClock : public ElectionClock {
 public:
  std::chrono::steady_clock::time_point Now() override;
  std::chrono::system_clock::time_point WallNow() override;
  bool Sleep(std::chrono::nanoseconds duration, StopSignal& stop) override;
};

// A meta/v1 MicroTime: RFC 3339 in UTC with six fractional digits
// ("2026-11-28T11:30:05.123456Z").
std::string FormatMicroTime(std::chrono::system_clock::time_point time);

}  // namespace dralloc::leaderelection

#endif  // DRALLOC_LEADERELECTION_ELECTION_CLOCK_H_
