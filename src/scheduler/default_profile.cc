#include "scheduler/inter_pod_affinity.h"
#include "scheduler/node_plugins.h"
#include "scheduler/pod_topology_spread.h"
#include "scheduler/scheduling_framework.h"

namespace dralloc::scheduler {
namespace {

// The Filter-only plugins of node_plugins.h in the NodePlugin shape.
template <typename Plugin>
class FilterOnly final : public NodePlugin {
 public:
  explicit FilterOnly(std::string_view name) : name_(name) {}
  std::string_view Name() const override { return name_; }
  FilterCode Filter(const CycleState& state, const NodeEntry& node,
                    UnschedulableReasons& reasons) const override {
    return plugin_.Filter(state.pod(), node, reasons);
  }

 private:
  std::string_view name_;
  Plugin plugin_;
};

}  // namespace

std::vector<std::unique_ptr<NodePlugin>> DefaultProfile() {
  std::vector<std::unique_ptr<NodePlugin>> profile;
  profile.push_back(
      std::make_unique<FilterOnly<NodeUnschedulable>>("NodeUnschedulable"));
  profile.push_back(
      std::make_unique<FilterOnly<TaintToleration>>("TaintToleration"));
  profile.push_back(std::make_unique<FilterOnly<NodeAffinity>>("NodeAffinity"));
  profile.push_back(std::make_unique<PodTopologySpread>());
  profile.push_back(std::make_unique<InterPodAffinity>());
  return profile;
}

}  // namespace dralloc::scheduler
