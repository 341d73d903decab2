// StopSignal: a one-way "wind down" flag that sleepers can wait on.
#ifndef DRALLOC_LEADERELECTION_STOP_SIGNAL_H_
#define DRALLOC_LEADERELECTION_STOP_SIGNAL_H_

#include <chrono>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace dralloc::leaderelection {

class StopSignal {
 public:
  // Raises the signal and wakes every waiter; idempotent.
  void Raise() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    raised_ = true;
    cv_.SignalAll();
  }
  bool Raised() const EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return raised_;
  }
  // Waits up to `timeout`; true when the signal is raised.
  bool WaitFor(std::chrono::nanoseconds timeout) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return cv_.WaitFor(mu_, timeout, [&]() REQUIRES(mu_) { return raised_; });
  }

 private:
  mutable Mutex mu_;
  CondVar cv_;
  bool raised_ GUARDED_BY(mu_) = false;
};

}  // namespace dralloc::leaderelection

#endif  // DRALLOC_LEADERELECTION_STOP_SIGNAL_H_
