// The Filter plugins that do not involve devices, in upstream's order:
// NodeUnschedulable, TaintToleration, NodeAffinity (which also checks
// spec.nodeSelector). Each is stateless and has the Filter shape described
// in filter_code.h; the reasons use the upstream plugins' words.
#ifndef DRALLOC_SCHEDULER_NODE_PLUGINS_H_
#define DRALLOC_SCHEDULER_NODE_PLUGINS_H_

#include "api/types/core.h"
#include "scheduler/cluster_snapshot.h"
#include "scheduler/filter_code.h"
#include "scheduler/unschedulable_message.h"

namespace dralloc::scheduler {

// core/v1 toleration matching: an empty effect matches every effect; an
// empty key with operator Exists matches every taint.
bool Tolerates(const api::Toleration& toleration, const api::Taint& taint);

// A node with spec.unschedulable takes only pods that tolerate the
// node.kubernetes.io/unschedulable:NoSchedule taint.
class NodeUnschedulable final {
 public:
  FilterCode Filter(const api::Pod& pod, const NodeEntry& node,
                    UnschedulableReasons& reasons) const;
};

// Every NoSchedule or NoExecute taint of the node must be tolerated.
class TaintToleration final {
 public:
  FilterCode Filter(const api::Pod& pod, const NodeEntry& node,
                    UnschedulableReasons& reasons) const;
};

// spec.nodeSelector and the required node affinity must match the node's
// labels and fields.
class NodeAffinity final {
 public:
  FilterCode Filter(const api::Pod& pod, const NodeEntry& node,
                    UnschedulableReasons& reasons) const;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_NODE_PLUGINS_H_
