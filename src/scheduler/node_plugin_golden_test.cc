// Runs the cases of tests/golden/plugins (format: README.md there) whose
// plugins are the resource, port, taint and node plugins.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "allocator/offline_allocation.h"
#include "golden_case.h"
#include "scheduler/node_affinity.h"
#include "scheduler/node_plugin.h"
#include "scheduler/node_ports.h"
#include "scheduler/node_resources_balanced_allocation.h"
#include "scheduler/node_resources_fit.h"
#include "scheduler/node_unschedulable.h"
#include "scheduler/taint_toleration.h"

namespace dralloc::scheduler {
namespace {

namespace fs = std::filesystem;
constexpr char kCaseRoot[] = "tests/golden/plugins";

std::unique_ptr<NodePlugin> MakePlugin(std::string_view name) {
  if (name == "NodeResourcesFit") return std::make_unique<NodeResourcesFit>();
  if (name == "NodeResourcesBalancedAllocation") {
    return std::make_unique<NodeResourcesBalancedAllocation>();
  }
  if (name == "NodePorts") return std::make_unique<NodePorts>();
  if (name == "TaintToleration") return std::make_unique<TaintToleration>();
  if (name == "NodeAffinity") return std::make_unique<NodeAffinity>();
  if (name == "NodeUnschedulable") {
    return std::make_unique<NodeUnschedulable>();
  }
  return nullptr;
}

struct Score {
  std::string plugin;
  int64_t raw = 0;
  int64_t normalized = 0;
  friend bool operator==(const Score&, const Score&) = default;
};

// What one node is expected to get, or got.
struct Outcome {
  bool fits = true;
  std::string unfit_plugin;
  std::string message;        // UnschedulableReasons::Message(1) when unfit
  std::vector<Score> scores;  // listed plugins only when expected
};

struct Case {
  std::vector<std::string> plugins;
  std::map<std::string, Outcome> expect;  // by node name
};

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

std::string MessageOf(const std::vector<std::string>& reasons) {
  UnschedulableReasons collected;
  for (const std::string& reason : reasons) collected.Add(reason);
  return collected.Message(1);
}

// "fits [<Name> <raw> <normalized>]..." or "unfit <Name>: <r> | <r>".
Outcome ParseOutcome(std::string_view text) {
  Outcome outcome;
  text = golden::Trim(text);
  if (text.starts_with("unfit ")) {
    outcome.fits = false;
    std::string_view rest = text.substr(6);
    const size_t colon = rest.find(':');
    outcome.unfit_plugin = golden::Trim(rest.substr(0, colon));
    std::vector<std::string> reasons;
    for (std::string_view left = rest.substr(colon + 1);;) {
      const size_t bar = left.find(" | ");
      reasons.emplace_back(golden::Trim(left.substr(0, bar)));
      if (bar == std::string_view::npos) break;
      left = left.substr(bar + 3);
    }
    outcome.message = MessageOf(reasons);
    return outcome;
  }
  std::vector<std::string> words = Words(text);
  EXPECT_TRUE(!words.empty() && words[0] == "fits") << "bad outcome: " << text;
  for (size_t i = 1; i + 2 < words.size(); i += 3) {
    outcome.scores.push_back(
        {words[i], std::stoll(words[i + 1]), std::stoll(words[i + 2])});
  }
  EXPECT_EQ((words.size() - 1) % 3, 0u) << "scores are triples: " << text;
  return outcome;
}

Case ParseCase(std::string_view text) {
  Case c;
  for (const std::string& comment : golden::HeaderComments(text)) {
    if (auto plugins = golden::HeaderValue(comment, "plugins")) {
      c.plugins = Words(*plugins);
      continue;
    }
    std::string_view line = golden::Trim(comment);
    if (!line.starts_with("expect ")) continue;
    const size_t colon = line.find(':');
    c.expect[std::string(golden::Trim(line.substr(7, colon - 7)))] =
        ParseOutcome(line.substr(colon + 1));
  }
  return c;
}

// The decoded case: the pod to schedule and the cluster around it.
struct Cluster {
  client::ObjectPtr pod_object;
  const api::Pod* pod = nullptr;
  std::vector<NodeEntry> nodes;
  std::map<std::string, std::map<std::string, std::string>> namespaces;
};

void PlacePod(const client::ObjectPtr& object, Cluster& cluster) {
  const api::Pod& pod = std::get<api::Pod>(*object);
  if (pod.spec.node_name.empty()) {
    ASSERT_EQ(cluster.pod, nullptr) << "more than one pod without nodeName";
    cluster.pod_object = object;
    cluster.pod = &pod;
    return;
  }
  auto node = std::ranges::find_if(cluster.nodes, [&](const NodeEntry& n) {
    return n.node->metadata.name == pod.spec.node_name;
  });
  ASSERT_NE(node, cluster.nodes.end()) << "no node " << pod.spec.node_name;
  node->AddPod(object);
}

void BuildCluster(std::vector<api::Object> objects, Cluster& cluster) {
  std::vector<client::ObjectPtr> pods;
  for (api::Object& object : objects) {
    auto shared = std::make_shared<const api::Object>(std::move(object));
    if (const auto* node = std::get_if<api::Node>(shared.get())) {
      NodeEntry entry{.object = shared, .node = node};
      entry.info = allocator::NodeInfo::FromNode(*node);
      entry.usage.Reset(*node);
      cluster.nodes.push_back(std::move(entry));
    } else if (const auto* ns = std::get_if<api::Namespace>(shared.get())) {
      cluster.namespaces[ns->metadata.name] = ns->metadata.labels;
    } else if (std::holds_alternative<api::Pod>(*shared)) {
      pods.push_back(shared);
    }
  }
  std::ranges::sort(cluster.nodes, {},
                    [](const NodeEntry& n) { return n.node->metadata.name; });
  for (const client::ObjectPtr& pod : pods) PlacePod(pod, cluster);
}

// Filter of every plugin until one rejects the node.
Outcome FilterNode(const std::vector<std::unique_ptr<NodePlugin>>& plugins,
                   const CycleState& state, const NodeEntry& node) {
  Outcome outcome;
  for (const auto& plugin : plugins) {
    UnschedulableReasons reasons;
    if (plugin->Filter(state, node, reasons) == FilterCode::kFits) continue;
    outcome.fits = false;
    outcome.unfit_plugin = plugin->Name();
    outcome.message = reasons.Message(1);
    break;
  }
  return outcome;
}

void ScoreNodes(const std::vector<std::unique_ptr<NodePlugin>>& plugins,
                CycleState& state, const ClusterView& view,
                const std::vector<const NodeEntry*>& feasible,
                std::map<std::string, Outcome>& got) {
  for (const auto& plugin : plugins) {
    if (plugin->ScoreWeight() == 0) continue;
    plugin->PreScore(state, view, feasible);
    std::vector<int64_t> raw;
    for (const NodeEntry* node : feasible) {
      raw.push_back(plugin->Score(state, *node));
    }
    std::vector<int64_t> normalized = raw;
    plugin->NormalizeScore(state, normalized);
    for (size_t i = 0; i < feasible.size(); ++i) {
      got[feasible[i]->node->metadata.name].scores.push_back(
          {std::string(plugin->Name()), raw[i], normalized[i]});
    }
  }
}

// PreFilter, Filter, PreScore, Score and NormalizeScore as the framework
// runs them; the outcome of every node by name.
std::map<std::string, Outcome> RunCycle(
    const std::vector<std::unique_ptr<NodePlugin>>& plugins,
    const Cluster& cluster) {
  ClusterView view{.nodes = cluster.nodes,
                   .namespace_labels = [&](std::string_view name)
                       -> const std::map<std::string, std::string>* {
                     auto it = cluster.namespaces.find(std::string(name));
                     return it == cluster.namespaces.end() ? nullptr
                                                           : &it->second;
                   }};
  CycleState state(*cluster.pod);
  std::map<std::string, Outcome> got;
  for (const auto& plugin : plugins) {
    std::string message;
    if (plugin->PreFilter(state, view, message) == FilterCode::kFits) continue;
    for (const NodeEntry& node : cluster.nodes) {
      got[node.node->metadata.name] = {
          .fits = false,
          .unfit_plugin = std::string(plugin->Name()),
          .message = MessageOf({message})};
    }
    return got;
  }
  std::vector<const NodeEntry*> feasible;
  for (const NodeEntry& node : cluster.nodes) {
    Outcome outcome = FilterNode(plugins, state, node);
    if (outcome.fits) feasible.push_back(&node);
    got[node.node->metadata.name] = std::move(outcome);
  }
  ScoreNodes(plugins, state, view, feasible, got);
  return got;
}

std::string Describe(const Outcome& outcome) {
  if (!outcome.fits) {
    return fmt::format("unfit {}: {}", outcome.unfit_plugin, outcome.message);
  }
  std::string text = "fits";
  for (const Score& score : outcome.scores) {
    text += fmt::format(" {} {} {}", score.plugin, score.raw, score.normalized);
  }
  return text;
}

// Only the scores the case lists are compared.
void ExpectOutcome(const std::string& node, const Outcome& want,
                   const Outcome& got) {
  Outcome compared = got;
  if (got.fits && want.fits) {
    std::erase_if(compared.scores, [&](const Score& score) {
      return std::ranges::none_of(want.scores, [&](const Score& listed) {
        return listed.plugin == score.plugin;
      });
    });
  }
  EXPECT_EQ(Describe(compared), Describe(want)) << "node " << node;
}

std::vector<std::string> CaseFiles() {
  std::vector<std::string> files;
  for (const fs::path& path : golden::CaseFiles(kCaseRoot, {".yaml"})) {
    // spread_* and affinity_* cases have their own runner and format
    // (affinity_plugin_golden_test.cc).
    const std::string name = path.filename().string();
    if (name.starts_with("spread_") || name.starts_with("affinity_")) continue;
    files.push_back(path.string());
  }
  return files;
}

class NodePluginGoldenTest : public testing::TestWithParam<std::string> {};

TEST_P(NodePluginGoldenTest, Case) {
  const std::string text = golden::ReadFile(GetParam());
  const Case c = ParseCase(text);
  ASSERT_FALSE(c.plugins.empty()) << "no '# plugins:' line";
  std::vector<std::unique_ptr<NodePlugin>> plugins;
  for (const std::string& name : c.plugins) {
    plugins.push_back(MakePlugin(name));
    if (plugins.back() == nullptr) GTEST_SKIP() << name << ": other runner";
  }
  StatusOr<std::vector<api::Object>> objects =
      allocator::DecodeManifests(text, GetParam());
  ASSERT_TRUE(objects.ok()) << objects.status();
  Cluster cluster;
  BuildCluster(std::move(*objects), cluster);
  ASSERT_NE(cluster.pod, nullptr) << "no pod without spec.nodeName";
  const std::map<std::string, Outcome> got = RunCycle(plugins, cluster);
  ASSERT_EQ(got.size(), c.expect.size()) << "one '# expect' line per node";
  for (const auto& [node, want] : c.expect) {
    auto it = got.find(node);
    ASSERT_NE(it, got.end()) << "no node " << node;
    ExpectOutcome(node, want, it->second);
  }
}

std::string CaseName(const testing::TestParamInfo<std::string>& info) {
  return golden::TestName(
      std::string_view(info.param).substr(sizeof(kCaseRoot)));
}

INSTANTIATE_TEST_SUITE_P(Cases, NodePluginGoldenTest,
                         testing::ValuesIn(CaseFiles()), CaseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(NodePluginGoldenTest);

}  // namespace
}  // namespace dralloc::scheduler
