// Node filtering that does not involve devices: the scheduler's
// NodeUnschedulable, TaintToleration and NodeAffinity checks.
#ifndef DRALLOC_SCHEDULER_NODE_FILTER_H_
#define DRALLOC_SCHEDULER_NODE_FILTER_H_

#include <string>

#include "allocator/node_info.h"
#include "api/types/core.h"

namespace dralloc::scheduler {

// core/v1 toleration matching: an empty effect matches every effect; an
// empty key with operator Exists matches every taint.
bool Tolerates(const api::Toleration& toleration, const api::Taint& taint);

// Why `pod` cannot run on `node`, in the upstream plugins' words
// ("node(s) didn't match Pod's node affinity/selector"), checked in
// upstream's plugin order; empty when the node passes.
std::string NodeMismatch(const api::Pod& pod, const api::Node& node,
                         const allocator::NodeInfo& info);

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_NODE_FILTER_H_
