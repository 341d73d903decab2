// Per-evaluation state: the runtime cost tracker and the cancellation flag.
#ifndef DRALLOC_CEL_COMMON_EVAL_CONTEXT_H_
#define DRALLOC_CEL_COMMON_EVAL_CONTEXT_H_

#include <atomic>
#include <cstdint>

#include "cel/common/value.h"

namespace dralloc::cel {

// Kubernetes' limit for one DRA selector evaluation.
inline constexpr uint64_t kDefaultCostLimit = 1'000'000;
// Comprehensions check the cancellation flag every this many iterations.
inline constexpr uint64_t kInterruptCheckFrequency = 100;

class EvalContext {
 public:
  explicit EvalContext(uint64_t cost_limit = kDefaultCostLimit,
                       const std::atomic<bool>* cancelled = nullptr)
      : cost_limit_(cost_limit), cancelled_(cancelled) {}

  // Adds to the running cost; returns false once the limit is exceeded.
  bool AddCost(uint64_t units) {
    cost_ += units;
    if (cost_ < units) cost_ = UINT64_MAX;  // saturate
    return cost_ <= cost_limit_;
  }
  bool CostExceeded() const { return cost_ > cost_limit_; }
  uint64_t cost() const { return cost_; }
  uint64_t cost_limit() const { return cost_limit_; }
  bool Cancelled() const {
    return cancelled_ != nullptr && cancelled_->load(std::memory_order_relaxed);
  }

 private:
  uint64_t cost_ = 0;
  uint64_t cost_limit_;
  const std::atomic<bool>* cancelled_;
};

// Error values for the two conditions that no operator may absorb: the cost
// limit was exceeded, the cancellation flag was raised.
Value CostLimitExceededError();
Value InterruptedError();

}  // namespace dralloc::cel

#endif  // DRALLOC_CEL_COMMON_EVAL_CONTEXT_H_
