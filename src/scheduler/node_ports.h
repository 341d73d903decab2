// NodePorts: upstream's plugin of that name. A node fits when none of the
// pod's host ports is in use there: a port bound on 0.0.0.0 conflicts with
// the same protocol and port on any address, a port on a specific address
// with the same address or 0.0.0.0. It does not score.
#ifndef DRALLOC_SCHEDULER_NODE_PORTS_H_
#define DRALLOC_SCHEDULER_NODE_PORTS_H_

#include <map>
#include <string_view>

#include "scheduler/node_plugin.h"

namespace dralloc::scheduler {

// Whether `wanted` cannot be bound next to the ports in `used`.
bool HostPortConflicts(const HostPort& wanted,
                       const std::map<HostPort, int>& used);

class NodePorts final : public NodePlugin {
 public:
  std::string_view Name() const override { return "NodePorts"; }
  // Computes the pod's host ports once for the cycle.
  FilterCode PreFilter(CycleState& state, const ClusterView& cluster,
                       std::string& message) const override;
  FilterCode Filter(const CycleState& state, const NodeEntry& node,
                    UnschedulableReasons& reasons) const override;
};

}  // namespace dralloc::scheduler

#endif  // DRALLOC_SCHEDULER_NODE_PORTS_H_
