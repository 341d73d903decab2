// API defaulting, as the API server applies it to every write and the
// in-memory client to every object it stores.
#ifndef DRALLOC_API_DEFAULTS_H_
#define DRALLOC_API_DEFAULTS_H_

#include "api/object.h"

namespace dralloc::api {

// Defaults a request's allocationMode (ExactCount) and count (1), a pod's
// phase (Pending) and a namespace's phase (Active). Idempotent.
void ApplyDefaults(Object& object);

}  // namespace dralloc::api

#endif  // DRALLOC_API_DEFAULTS_H_
