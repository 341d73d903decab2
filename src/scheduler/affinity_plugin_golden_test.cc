// Runs the data-driven cases of PodTopologySpread (tests/golden/plugins/
// spread_*.yaml) and InterPodAffinity (affinity_*.yaml).
//
// A case is a multi-document YAML of Nodes, Namespaces and Pods. The one pod
// without spec.nodeName is the pod to schedule; the others are on the node
// their spec.nodeName names (a pod without namespace is in "default"). The
// plugin runs as in a scheduling cycle: PreFilter, Filter on every node,
// then PreScore, Score and NormalizeScore on the nodes it let through.
// Header comments (the `#` lines before the first document) give one line
// per node:
//
//   # expect: <node> unfit <reason, upstream's words>
//   # expect: <node> fits <raw score> <normalized score>
//
// Every node of the case needs exactly one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "allocator/offline_allocation.h"
#include "scheduler/inter_pod_affinity.h"
#include "scheduler/label_selector_matcher.h"
#include "scheduler/pod_topology_spread.h"

namespace dralloc::scheduler {
namespace {

namespace fs = std::filesystem;
constexpr char kCaseRoot[] = "tests/golden/plugins";

struct Expectation {
  bool fits = false;
  std::string reason;
  int64_t raw = 0;
  int64_t normalized = 0;
  friend bool operator==(const Expectation&, const Expectation&) = default;
};

std::ostream& operator<<(std::ostream& os, const Expectation& e) {
  if (!e.fits) return os << "unfit " << e.reason;
  return os << "fits " << e.raw << " " << e.normalized;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// "<node> unfit <reason>" or "<node> fits <raw> <normalized>".
void ParseExpectation(const std::string& text,
                      std::map<std::string, Expectation>& out) {
  std::istringstream in(text);
  std::string node, verdict;
  in >> node >> verdict;
  Expectation e;
  e.fits = verdict == "fits";
  if (e.fits) {
    in >> e.raw >> e.normalized;
  } else {
    std::getline(in >> std::ws, e.reason);
  }
  ASSERT_TRUE(e.fits || verdict == "unfit") << "bad expect line: " << text;
  ASSERT_FALSE(out.contains(node)) << "two expect lines for " << node;
  out[node] = e;
}

std::map<std::string, Expectation> ParseHeader(const std::string& text) {
  std::map<std::string, Expectation> expectations;
  std::istringstream in(text);
  constexpr std::string_view kExpect = "# expect:";
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line == "---") continue;
    if (!line.starts_with("#")) break;
    if (line.starts_with(kExpect)) {
      ParseExpectation(line.substr(kExpect.size()), expectations);
    }
  }
  return expectations;
}

// The cluster of a case as the scheduler's snapshot would present it.
struct CaseCluster {
  std::vector<NodeEntry> nodes;
  std::map<std::string, Labels> namespace_labels;
  client::ObjectPtr pod_object;
  const api::Pod* pod = nullptr;

  ClusterView View() {
    lists.emplace(nodes);
    ClusterView view = lists->View(nodes);
    view.namespace_labels = [this](std::string_view ns) -> const Labels* {
      auto it = namespace_labels.find(std::string(ns));
      return it == namespace_labels.end() ? nullptr : &it->second;
    };
    return view;
  }
  std::optional<AffinityNodeLists> lists;
};

void AddExistingPod(CaseCluster& cluster, client::ObjectPtr object) {
  const auto& pod = std::get<api::Pod>(*object);
  for (NodeEntry& node : cluster.nodes) {
    if (node.info.name != pod.spec.node_name) continue;
    node.AddPod(object);
    return;
  }
  ADD_FAILURE() << "pod " << pod.metadata.name << " on unknown node "
                << pod.spec.node_name;
}

void LoadCluster(const std::string& text, const std::string& source,
                 CaseCluster& cluster) {
  auto objects = allocator::DecodeManifests(text, source);
  ASSERT_TRUE(objects.ok()) << objects.status();
  std::vector<client::ObjectPtr> pods;
  for (api::Object& object : *objects) {
    if (auto* pod = std::get_if<api::Pod>(&object)) {
      if (pod->metadata.namespace_.empty())
        pod->metadata.namespace_ = "default";
    }
    auto shared = std::make_shared<const api::Object>(std::move(object));
    if (const auto* node = std::get_if<api::Node>(shared.get())) {
      cluster.nodes.push_back({.object = shared,
                               .node = node,
                               .info = allocator::NodeInfo::FromNode(*node)});
    } else if (const auto* ns = std::get_if<api::Namespace>(shared.get())) {
      cluster.namespace_labels[ns->metadata.name] = ns->metadata.labels;
    } else if (const auto* pod = std::get_if<api::Pod>(shared.get())) {
      if (!pod->spec.node_name.empty()) {
        pods.push_back(shared);
        continue;
      }
      ASSERT_EQ(cluster.pod, nullptr) << "two pods without spec.nodeName";
      cluster.pod_object = shared;
      cluster.pod = pod;
    }
  }
  ASSERT_NE(cluster.pod, nullptr) << "no pod without spec.nodeName";
  for (auto& pod : pods) AddExistingPod(cluster, pod);
}

// The one reason recorded for one node, without the summary's frame
// ("0/1 nodes are available: 1 <reason>.").
std::string ReasonOf(const UnschedulableReasons& reasons) {
  std::string message = reasons.Message(1);
  constexpr std::string_view kPrefix = "0/1 nodes are available: 1 ";
  if (!message.starts_with(kPrefix)) return message;
  return message.substr(kPrefix.size(), message.size() - kPrefix.size() - 1);
}

// One scheduling cycle of `plugin` alone, returning the outcome per node.
std::map<std::string, Expectation> RunCycle(const NodePlugin& plugin,
                                            CaseCluster& cluster) {
  CycleState state(*cluster.pod);
  ClusterView view = cluster.View();
  std::string message;
  EXPECT_EQ(plugin.PreFilter(state, view, message), FilterCode::kFits)
      << message;
  std::map<std::string, Expectation> outcome;
  std::vector<const NodeEntry*> feasible;
  for (const NodeEntry& node : cluster.nodes) {
    UnschedulableReasons reasons;
    if (plugin.Filter(state, node, reasons) == FilterCode::kFits) {
      feasible.push_back(&node);
      continue;
    }
    outcome[node.info.name] = {.reason = ReasonOf(reasons)};
  }
  plugin.PreScore(state, view, feasible);
  std::vector<int64_t> scores;
  for (const NodeEntry* node : feasible) {
    scores.push_back(plugin.Score(state, *node));
  }
  std::vector<int64_t> normalized = scores;
  plugin.NormalizeScore(state, normalized);
  for (size_t i = 0; i < feasible.size(); ++i) {
    outcome[feasible[i]->info.name] = {
        .fits = true, .raw = scores[i], .normalized = normalized[i]};
  }
  return outcome;
}

std::vector<std::string> CaseFiles() {
  std::vector<std::string> files;
  if (!fs::exists(kCaseRoot)) return files;
  for (const auto& entry : fs::directory_iterator(kCaseRoot)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".yaml") continue;
    if (name.starts_with("spread_") || name.starts_with("affinity_")) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

class AffinityPluginGoldenTest : public testing::TestWithParam<std::string> {};

TEST_P(AffinityPluginGoldenTest, Case) {
  const std::string text = ReadText(GetParam());
  auto expected = ParseHeader(text);
  ASSERT_FALSE(expected.empty()) << "no '# expect:' lines";
  CaseCluster cluster;
  LoadCluster(text, GetParam(), cluster);
  if (HasFatalFailure()) return;
  const bool spread =
      fs::path(GetParam()).filename().string().starts_with("spread_");
  PodTopologySpread topology_spread;
  InterPodAffinity inter_pod_affinity;
  const NodePlugin& plugin =
      spread ? static_cast<const NodePlugin&>(topology_spread)
             : inter_pod_affinity;
  EXPECT_EQ(RunCycle(plugin, cluster), expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, AffinityPluginGoldenTest,
                         testing::ValuesIn(CaseFiles()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return fs::path(info.param).stem().string();
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(AffinityPluginGoldenTest);

}  // namespace
}  // namespace dralloc::scheduler
