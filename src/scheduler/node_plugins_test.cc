#include "scheduler/node_plugins.h"

#include <gtest/gtest.h>

namespace dralloc::scheduler {
namespace {

struct NodeFixture {
  explicit NodeFixture(api::Node n)
      : object(std::make_shared<const api::Object>(std::move(n))) {
    entry.object = object;
    entry.node = &std::get<api::Node>(*object);
    entry.info = allocator::NodeInfo::FromNode(*entry.node);
  }
  client::ObjectPtr object;
  NodeEntry entry;
};

api::Node MakeNode(std::map<std::string, std::string> labels,
                   std::vector<api::Taint> taints = {},
                   bool unschedulable = false) {
  api::Node node;
  node.metadata.name = "node-1";
  node.metadata.labels = std::move(labels);
  node.spec.taints = std::move(taints);
  node.spec.unschedulable = unschedulable;
  return node;
}

// Runs the three plugins in upstream's order; "" when the node fits.
std::string Reason(const api::Pod& pod, const api::Node& node) {
  NodeFixture fixture(node);
  UnschedulableReasons reasons;
  const bool fits =
      NodeUnschedulable().Filter(pod, fixture.entry, reasons) ==
          FilterCode::kFits &&
      TaintToleration().Filter(pod, fixture.entry, reasons) ==
          FilterCode::kFits &&
      NodeAffinity().Filter(pod, fixture.entry, reasons) == FilterCode::kFits;
  return fits ? "" : reasons.Message(1);
}

TEST(NodePluginsTest, Cases) {
  const api::Taint gpu_taint{
      .key = "gpu", .value = "true", .effect = "NoSchedule"};
  api::Pod plain;
  api::Pod tolerant;
  tolerant.spec.tolerations.push_back({.key = "gpu", .operator_ = "Exists"});
  tolerant.spec.tolerations.push_back(
      {.key = "node.kubernetes.io/unschedulable", .operator_ = "Exists"});
  api::Pod selecting;
  selecting.spec.node_selector = {{"zone", "a"}};

  struct Case {
    std::string name;
    const api::Pod* pod;
    api::Node node;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"plain node", &plain, MakeNode({}), ""},
      {"unschedulable", &plain, MakeNode({}, {}, true),
       "0/1 nodes are available: 1 node(s) were unschedulable."},
      {"unschedulable, tolerated", &tolerant, MakeNode({}, {}, true), ""},
      {"taint", &plain, MakeNode({}, {gpu_taint}),
       "0/1 nodes are available: 1 node(s) had untolerated taint {gpu: "
       "true}."},
      {"taint, tolerated", &tolerant, MakeNode({}, {gpu_taint}), ""},
      {"PreferNoSchedule is ignored", &plain,
       MakeNode({}, {{.key = "x", .effect = "PreferNoSchedule"}}), ""},
      {"selector matches", &selecting, MakeNode({{"zone", "a"}}), ""},
      {"selector does not match", &selecting, MakeNode({{"zone", "b"}}),
       "0/1 nodes are available: 1 node(s) didn't match Pod's node "
       "affinity/selector."},
      {"unschedulable is checked first", &selecting,
       MakeNode({}, {gpu_taint}, true),
       "0/1 nodes are available: 1 node(s) were unschedulable."},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Reason(*c.pod, c.node), c.reason) << c.name;
  }
}

TEST(NodePluginsTest, Tolerates) {
  const api::Taint taint{.key = "k", .value = "v", .effect = "NoExecute"};
  EXPECT_TRUE(Tolerates({.key = "k", .value = "v"}, taint));
  EXPECT_FALSE(Tolerates({.key = "k", .value = "w"}, taint));
  EXPECT_TRUE(Tolerates({.operator_ = "Exists"}, taint));
  EXPECT_FALSE(Tolerates(
      {.key = "k", .operator_ = "Exists", .effect = "NoSchedule"}, taint));
}

}  // namespace
}  // namespace dralloc::scheduler
