// Behaviour of InterPodAffinity beyond the golden cases
// (tests/golden/plugins/affinity_*.yaml, affinity_plugin_golden_test.cc).
#include "scheduler/inter_pod_affinity.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace dralloc::scheduler {
namespace {

NodeEntry MakeNode(const std::string& name) {
  api::Node node;
  node.metadata.name = name;
  node.metadata.labels["kubernetes.io/hostname"] = name;
  auto object = std::make_shared<const api::Object>(node);
  const auto* typed = &std::get<api::Node>(*object);
  return {.object = object,
          .node = typed,
          .info = allocator::NodeInfo::FromNode(*typed)};
}

api::Pod MakePod(const std::string& name, const std::string& app) {
  api::Pod pod;
  pod.metadata.name = name;
  pod.metadata.namespace_ = "default";
  pod.metadata.labels = {{"app", app}};
  return pod;
}

void PlacePod(NodeEntry& node, api::Pod pod) {
  pod.spec.node_name = node.info.name;
  auto object = std::make_shared<const api::Object>(std::move(pod));
  NodePod entry{.object = object, .pod = &std::get<api::Pod>(*object)};
  node.pods.push_back(entry);
  const auto& affinity = entry.pod->spec.affinity;
  if (affinity && (affinity->pod_affinity || affinity->pod_anti_affinity)) {
    node.pods_with_affinity.push_back(entry);
  }
  if (affinity && affinity->pod_anti_affinity &&
      !affinity->pod_anti_affinity
           ->required_during_scheduling_ignored_during_execution.empty()) {
    node.pods_with_required_anti_affinity.push_back(entry);
  }
}

api::PodAffinityTerm HostnameTerm(const std::string& app) {
  return {.label_selector = api::LabelSelector{.match_labels = {{"app", app}}},
          .topology_key = "kubernetes.io/hostname"};
}

TEST(InterPodAffinityTest, NoTermsAnywhereLeavesNoCycleData) {
  InterPodAffinity plugin;
  std::vector<NodeEntry> nodes = {MakeNode("a"), MakeNode("b")};
  PlacePod(nodes[0], MakePod("web-1", "web"));
  AffinityNodeLists lists(nodes);
  ClusterView cluster = lists.View(nodes);
  api::Pod pod = MakePod("incoming", "web");
  CycleState state(pod);
  std::string message;
  EXPECT_EQ(plugin.PreFilter(state, cluster, message), FilterCode::kFits);
  std::vector<const NodeEntry*> feasible = {&nodes[0], &nodes[1]};
  plugin.PreScore(state, cluster, feasible);
  EXPECT_EQ(state.Find<void>(&plugin), nullptr);
  UnschedulableReasons reasons;
  EXPECT_EQ(plugin.Filter(state, nodes[0], reasons), FilterCode::kFits);
  EXPECT_EQ(plugin.Score(state, nodes[0]), 0);
}

// The API server merges matchLabelKeys / mismatchLabelKeys into the
// selector; the plugin applies them itself, against the term owner's labels.
TEST(InterPodAffinityTest, AntiAffinityMatchLabelKeysSelectOwnRevisionOnly) {
  InterPodAffinity plugin;
  std::vector<NodeEntry> nodes = {MakeNode("a"), MakeNode("b")};
  api::Pod old_revision = MakePod("web-v1", "web");
  old_revision.metadata.labels["hash"] = "v1";
  PlacePod(nodes[0], old_revision);
  api::Pod same_revision = MakePod("web-v2", "web");
  same_revision.metadata.labels["hash"] = "v2";
  PlacePod(nodes[1], same_revision);
  api::Pod pod = MakePod("incoming", "web");
  pod.metadata.labels["hash"] = "v2";
  api::PodAffinityTerm term = HostnameTerm("web");
  term.match_label_keys = {"hash"};
  pod.spec.affinity.emplace()
      .pod_anti_affinity.emplace()
      .required_during_scheduling_ignored_during_execution.push_back(term);

  AffinityNodeLists lists(nodes);
  ClusterView cluster = lists.View(nodes);
  CycleState state(pod);
  std::string message;
  ASSERT_EQ(plugin.PreFilter(state, cluster, message), FilterCode::kFits);
  UnschedulableReasons reasons;
  EXPECT_EQ(plugin.Filter(state, nodes[0], reasons), FilterCode::kFits);
  EXPECT_EQ(plugin.Filter(state, nodes[1], reasons), FilterCode::kUnfit);
  EXPECT_EQ(reasons.Message(1),
            "0/1 nodes are available: 1 node(s) didn't match pod "
            "anti-affinity rules.");
}

TEST(InterPodAffinityTest, AffinityMismatchLabelKeysExcludeOwnTenant) {
  InterPodAffinity plugin;
  std::vector<NodeEntry> nodes = {MakeNode("a"), MakeNode("b")};
  api::Pod own_tenant = MakePod("db-1", "db");
  own_tenant.metadata.labels["tenant"] = "t1";
  PlacePod(nodes[0], own_tenant);
  api::Pod other_tenant = MakePod("db-2", "db");
  other_tenant.metadata.labels["tenant"] = "t2";
  PlacePod(nodes[1], other_tenant);
  api::Pod pod = MakePod("incoming", "web");
  pod.metadata.labels["tenant"] = "t1";
  api::PodAffinityTerm term = HostnameTerm("db");
  term.mismatch_label_keys = {"tenant"};
  pod.spec.affinity.emplace()
      .pod_affinity.emplace()
      .required_during_scheduling_ignored_during_execution.push_back(term);

  AffinityNodeLists lists(nodes);
  ClusterView cluster = lists.View(nodes);
  CycleState state(pod);
  std::string message;
  ASSERT_EQ(plugin.PreFilter(state, cluster, message), FilterCode::kFits);
  UnschedulableReasons reasons;
  EXPECT_EQ(plugin.Filter(state, nodes[0], reasons), FilterCode::kUnfit);
  EXPECT_EQ(plugin.Filter(state, nodes[1], reasons), FilterCode::kFits);
}

TEST(InterPodAffinityTest, EqualScoresNormalizeToZero) {
  InterPodAffinity plugin;
  std::vector<NodeEntry> nodes = {MakeNode("a"), MakeNode("b")};
  api::Pod web = MakePod("web-1", "web");
  web.spec.affinity.emplace()
      .pod_affinity.emplace()
      .preferred_during_scheduling_ignored_during_execution.push_back(
          {.weight = 5,
           .pod_affinity_term = {.label_selector = api::LabelSelector{},
                                 .topology_key = "kubernetes.io/hostname"}});
  PlacePod(nodes[0], web);
  PlacePod(nodes[1], web);
  api::Pod pod = MakePod("incoming", "web");
  AffinityNodeLists lists(nodes);
  ClusterView cluster = lists.View(nodes);
  CycleState state(pod);
  std::vector<const NodeEntry*> feasible = {&nodes[0], &nodes[1]};
  plugin.PreScore(state, cluster, feasible);
  std::vector<int64_t> scores = {plugin.Score(state, nodes[0]),
                                 plugin.Score(state, nodes[1])};
  EXPECT_EQ(scores, (std::vector<int64_t>{5, 5}));
  plugin.NormalizeScore(state, scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 0}));
}

}  // namespace
}  // namespace dralloc::scheduler
