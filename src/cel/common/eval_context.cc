#include "cel/common/eval_context.h"

namespace dralloc::cel {

Value CostLimitExceededError() {
  return Value::Error("operation cancelled: actual cost limit exceeded");
}

Value InterruptedError() { return Value::Error("operation interrupted"); }

}  // namespace dralloc::cel
