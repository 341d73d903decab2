// Behaviour of PodTopologySpread beyond the golden cases
// (tests/golden/plugins/spread_*.yaml, affinity_plugin_golden_test.cc).
#include "scheduler/pod_topology_spread.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace dralloc::scheduler {
namespace {

NodeEntry MakeNode(const std::string& name, const std::string& zone) {
  api::Node node;
  node.metadata.name = name;
  if (!zone.empty()) node.metadata.labels["topology.kubernetes.io/zone"] = zone;
  auto object = std::make_shared<const api::Object>(node);
  const auto* typed = &std::get<api::Node>(*object);
  return {.object = object,
          .node = typed,
          .info = allocator::NodeInfo::FromNode(*typed)};
}

api::Pod WebPod() {
  api::Pod pod;
  pod.metadata.name = "incoming";
  pod.metadata.namespace_ = "default";
  pod.metadata.labels = {{"app", "web"}};
  return pod;
}

TEST(PodTopologySpreadTest, PodWithoutConstraintsLeavesNoCycleData) {
  PodTopologySpread plugin;
  std::vector<NodeEntry> nodes = {MakeNode("a", "z1"), MakeNode("b", "")};
  AffinityNodeLists lists(nodes);
  ClusterView cluster = lists.View(nodes);
  api::Pod pod = WebPod();
  CycleState state(pod);
  std::string message;
  EXPECT_EQ(plugin.PreFilter(state, cluster, message), FilterCode::kFits);
  std::vector<const NodeEntry*> feasible = {&nodes[0], &nodes[1]};
  plugin.PreScore(state, cluster, feasible);
  EXPECT_EQ(state.Find<void>(&plugin), nullptr);
  UnschedulableReasons reasons;
  EXPECT_EQ(plugin.Filter(state, nodes[1], reasons), FilterCode::kFits);
  EXPECT_EQ(plugin.Score(state, nodes[0]), 0);
  std::vector<int64_t> scores = {0, 0};
  plugin.NormalizeScore(state, scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 0}));
}

TEST(PodTopologySpreadTest, OnlyScheduleAnywayConstraintsSkipFilter) {
  PodTopologySpread plugin;
  std::vector<NodeEntry> nodes = {MakeNode("a", "")};
  AffinityNodeLists lists(nodes);
  ClusterView cluster = lists.View(nodes);
  api::Pod pod = WebPod();
  pod.spec.topology_spread_constraints.push_back(
      {.max_skew = 1,
       .topology_key = "topology.kubernetes.io/zone",
       .when_unsatisfiable = "ScheduleAnyway",
       .label_selector = api::LabelSelector{}});
  CycleState state(pod);
  std::string message;
  EXPECT_EQ(plugin.PreFilter(state, cluster, message), FilterCode::kFits);
  UnschedulableReasons reasons;
  // The node lacks the zone label, but only DoNotSchedule constraints filter.
  EXPECT_EQ(plugin.Filter(state, nodes[0], reasons), FilterCode::kFits);
}

TEST(PodTopologySpreadTest, NameAndWeightAreUpstreams) {
  PodTopologySpread plugin;
  EXPECT_EQ(plugin.Name(), "PodTopologySpread");
  EXPECT_EQ(plugin.ScoreWeight(), 2);
}

}  // namespace
}  // namespace dralloc::scheduler
