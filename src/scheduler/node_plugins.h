// Transitional: scheduler.h still includes this header, which held the three
// node Filter plugins before they moved to their own files. Delete it once
// scheduler.h includes node_unschedulable.h, taint_toleration.h and
// node_affinity.h (or the profile) itself.
#ifndef DRALLOC_SCHEDULER_NODE_PLUGINS_H_
#define DRALLOC_SCHEDULER_NODE_PLUGINS_H_

#include "scheduler/node_affinity.h"
#include "scheduler/node_unschedulable.h"
#include "scheduler/taint_toleration.h"

#endif  // DRALLOC_SCHEDULER_NODE_PLUGINS_H_
