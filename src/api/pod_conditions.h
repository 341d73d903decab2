// Pod condition helpers shared by everything that binds pods or reports on
// their scheduling: the API server's pods/binding, the in-memory API and the
// scheduler.
#ifndef DRALLOC_API_POD_CONDITIONS_H_
#define DRALLOC_API_POD_CONDITIONS_H_

#include <string>
#include <string_view>

#include "api/types/core.h"

namespace dralloc::api {

// The pod's condition of `type`; appended (with only the type) if missing.
PodCondition& ConditionOf(Pod& pod, std::string_view type);

// What a successful binding does to a pod: spec.nodeName = node and
// PodScheduled=True (reason and message cleared) as of `now`.
void MarkBound(Pod& pod, std::string_view node, const std::string& now);

}  // namespace dralloc::api

#endif  // DRALLOC_API_POD_CONDITIONS_H_
