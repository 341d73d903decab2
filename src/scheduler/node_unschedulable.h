// NodeUnschedulable: upstream's plugin of that name. A node with
// spec.unschedulable takes only pods that tolerate the
// node.kubernetes.io/unschedulable:NoSchedule taint. It does not score.
#ifndef DRALLOC_SCHEDULER_NODE_UNSCHEDULABLE_H_
#define DRALLOC_SCHEDULER_NODE_UNSCHEDULABLE_H_

#include <string_view>

#include "scheduler/node_plugin.h"

namespace dralloc::scheduler {

class NodeUnschedulable final : public NodePlugin {
 public:
  std::string_view Name() const override { return "NodeUnschedulable"; }
  FilterCode Filter(const CycleState& state, const NodeEntry& node,
                    UnschedulableReasons& reasons) const override;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_NODE_UNSCHEDULABLE_H_
