#include "scheduler/node_ports.h"

#include <algorithm>
#include <vector>

namespace dralloc::scheduler {
namespace {

constexpr std::string_view kAnyAddress = "0.0.0.0";

struct NodePortsState {
  std::vector<HostPort> wanted;
};

}  // namespace

bool HostPortConflicts(const HostPort& wanted,
                       const std::map<HostPort, int>& used) {
  return std::ranges::any_of(used, [&](const auto& entry) {
    const HostPort& taken = entry.first;
    if (taken.port != wanted.port || taken.protocol != wanted.protocol) {
      return false;
    }
    return wanted.ip == kAnyAddress || taken.ip == kAnyAddress ||
           taken.ip == wanted.ip;
  });
}

FilterCode NodePorts::PreFilter(CycleState& state, const ClusterView& cluster,
                                std::string& message) const {
  (void)cluster, (void)message;
  state.Data<NodePortsState>(this).wanted = PodHostPorts(state.pod());
  return FilterCode::kFits;
}

FilterCode NodePorts::Filter(const CycleState& state, const NodeEntry& node,
                             UnschedulableReasons& reasons) const {
  const NodePortsState* computed = state.Find<NodePortsState>(this);
  std::vector<HostPort> uncomputed;  // Filter without PreFilter (tests)
  if (computed == nullptr) uncomputed = PodHostPorts(state.pod());
  const std::vector<HostPort>& wanted =
      computed != nullptr ? computed->wanted : uncomputed;
  const bool conflict = std::ranges::any_of(wanted, [&](const HostPort& port) {
    return HostPortConflicts(port, node.usage.used_ports());
  });
  if (!conflict) return FilterCode::kFits;
  reasons.Add("node(s) didn't have free ports for the requested pod ports");
  return FilterCode::kUnfit;
}

}  // namespace dralloc::scheduler
