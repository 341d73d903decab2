// KEP-5007 device binding conditions: whether the devices allocated to a
// claim are ready for the pod to be bound, judged from the conditions the
// driver writes into status.devices[].conditions, as upstream's
// DynamicResources PreBind judges them.
#ifndef DRALLOC_SCHEDULER_BINDING_CONDITIONS_H_
#define DRALLOC_SCHEDULER_BINDING_CONDITIONS_H_

#include <string>

#include "api/types/resource_claim.h"

namespace dralloc::scheduler {

enum class BindingReadiness {
  kReady,    // every binding condition of every device is True
  kPending,  // some binding condition is not True yet
  kFailed,   // a binding failure condition is True
};

struct BindingCheck {
  BindingReadiness readiness = BindingReadiness::kReady;
  // For kFailed: which device and condition, for the log and the event.
  std::string message;
};

// Whether any device allocated to `claim` carries binding conditions (only
// then does PreBind wait for the claim).
bool HasBindingConditions(const api::ResourceClaim& claim);

// The readiness of `claim`'s allocated devices. A claim without an
// allocation is kFailed (it was deallocated while the pod waited). Failure
// conditions are checked before binding conditions, as upstream does: a
// device both ready and failed counts as failed.
BindingCheck CheckBindingConditions(const api::ResourceClaim& claim);

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_BINDING_CONDITIONS_H_
