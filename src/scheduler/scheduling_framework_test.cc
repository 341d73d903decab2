#include "scheduler/scheduling_framework.h"

#include <gtest/gtest.h>

#include "scheduler/test_cluster.h"
#include "scheduler/test_manifests.h"

namespace dralloc::scheduler {
namespace {

// Rejects nodes whose name is in `rejected`.
class RejectNodes final : public NodePlugin {
 public:
  explicit RejectNodes(std::set<std::string> rejected)
      : rejected_(std::move(rejected)) {}
  std::string_view Name() const override { return "RejectNodes"; }
  FilterCode Filter(const CycleState&, const NodeEntry& node,
                    UnschedulableReasons& reasons) const override {
    if (!rejected_.contains(node.info.name)) return FilterCode::kFits;
    reasons.Add("node(s) were rejected");
    return FilterCode::kUnfit;
  }

 private:
  std::set<std::string> rejected_;
};

// Scores each node by a fixed table, normalised like upstream's default.
class TableScore final : public NodePlugin {
 public:
  TableScore(std::map<std::string, int64_t> scores, int64_t weight)
      : scores_(std::move(scores)), weight_(weight) {}
  std::string_view Name() const override { return "TableScore"; }
  int64_t ScoreWeight() const override { return weight_; }
  int64_t Score(const CycleState&, const NodeEntry& node) const override {
    auto it = scores_.find(node.info.name);
    return it == scores_.end() ? 0 : it->second;
  }
  void NormalizeScore(const CycleState&,
                      std::span<int64_t> scores) const override {
    DefaultNormalizeScore(scores, /*reverse=*/false);
  }

 private:
  std::map<std::string, int64_t> scores_;
  int64_t weight_;
};

class SchedulingFrameworkTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string manifests = test_manifests::Namespace();
    for (const char* node : {"n1", "n2", "n3", "n4"}) {
      manifests += test_manifests::Node(node);
    }
    cluster_.Load(manifests);
    cluster_.Pump();
    snapshot_.Refresh();
  }

  CycleVerdict Schedule(std::vector<std::unique_ptr<NodePlugin>> profile,
                        size_t& start) {
    SchedulingFramework framework(snapshot_, dra_, std::move(profile));
    DraCycleState state(pod_);
    return framework.Schedule(state, start);
  }
  std::string Chosen(const CycleVerdict& verdict) {
    if (!verdict.chosen) return "";
    return snapshot_.nodes()[verdict.chosen->node].info.name;
  }

  TestCluster cluster_;
  ClusterSnapshot snapshot_{cluster_.sources()};
  DraPlugin dra_{cluster_.api, snapshot_, DraPluginOptions{}};
  api::Pod pod_;
};

TEST_F(SchedulingFrameworkTest, HighestWeightedSumWinsFirstOfEqualsInOrder) {
  std::vector<std::unique_ptr<NodePlugin>> profile;
  profile.push_back(std::make_unique<RejectNodes>(std::set<std::string>{"n4"}));
  // n3 is best for the heavier plugin, n1 for the lighter one.
  profile.push_back(std::make_unique<TableScore>(
      std::map<std::string, int64_t>{{"n1", 0}, {"n2", 5}, {"n3", 10}}, 2));
  profile.push_back(std::make_unique<TableScore>(
      std::map<std::string, int64_t>{{"n1", 10}, {"n2", 5}, {"n3", 0}}, 1));
  size_t start = 0;
  CycleVerdict verdict = Schedule(std::move(profile), start);
  ASSERT_EQ(verdict.kind, CycleVerdict::Kind::kFeasible);
  EXPECT_EQ(Chosen(verdict), "n3");  // 2*100 + 0 against 2*50+50 and 100
  EXPECT_EQ(verdict.score, 200);
  EXPECT_EQ(verdict.feasible_nodes, 3u);
  EXPECT_EQ(start, 0u);  // all 4 evaluated: back where it started
}

TEST_F(SchedulingFrameworkTest, TiedNodesAreTakenInTurn) {
  std::vector<std::unique_ptr<NodePlugin>> profile;
  profile.push_back(std::make_unique<RejectNodes>(std::set<std::string>{"n2"}));
  SchedulingFramework framework(snapshot_, dra_, std::move(profile));
  std::vector<std::string> chosen;
  size_t start = 0;
  for (int i = 0; i < 4; ++i) {
    DraCycleState state(pod_);
    chosen.push_back(Chosen(framework.Schedule(state, start)));
  }
  EXPECT_EQ(chosen, (std::vector<std::string>{"n1", "n3", "n4", "n1"}));
}

TEST_F(SchedulingFrameworkTest, TheFirstTieIsTheFirstNodeEvaluated) {
  for (size_t first : {0u, 2u}) {
    std::vector<std::unique_ptr<NodePlugin>> profile;
    profile.push_back(std::make_unique<TableScore>(
        std::map<std::string, int64_t>{
            {"n1", 1}, {"n2", 1}, {"n3", 1}, {"n4", 1}},
        1));
    size_t start = first;
    CycleVerdict verdict = Schedule(std::move(profile), start);
    EXPECT_EQ(Chosen(verdict), first == 0 ? "n1" : "n3");
  }
}

TEST_F(SchedulingFrameworkTest, NoNodeFitsGivesUpstreamsMessage) {
  std::vector<std::unique_ptr<NodePlugin>> profile;
  profile.push_back(std::make_unique<RejectNodes>(
      std::set<std::string>{"n1", "n2", "n3", "n4"}));
  size_t start = 1;
  CycleVerdict verdict = Schedule(std::move(profile), start);
  EXPECT_EQ(verdict.kind, CycleVerdict::Kind::kUnschedulable);
  EXPECT_EQ(verdict.message,
            "0/4 nodes are available: 4 node(s) were rejected.");
  EXPECT_EQ(start, 1u);
}

TEST(DefaultNormalizeScoreTest, ScalesToMaxAndReverses) {
  std::vector<int64_t> scores = {0, 5, 10};
  DefaultNormalizeScore(scores, false);
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 50, 100}));
  scores = {0, 5, 10};
  DefaultNormalizeScore(scores, true);
  EXPECT_EQ(scores, (std::vector<int64_t>{100, 50, 0}));
  scores = {0, 0};
  DefaultNormalizeScore(scores, true);
  EXPECT_EQ(scores, (std::vector<int64_t>{100, 100}));
}

TEST(FeasibleNodesToFindTest, UpstreamsAdaptivePercentage) {
  EXPECT_EQ(FeasibleNodesToFind(50), 50u);
  EXPECT_EQ(FeasibleNodesToFind(100), 100u);
  EXPECT_EQ(FeasibleNodesToFind(500), 230u);    // 46%
  EXPECT_EQ(FeasibleNodesToFind(5000), 500u);   // 10%
  EXPECT_EQ(FeasibleNodesToFind(10000), 500u);  // 5%
}

}  // namespace
}  // namespace dralloc::scheduler
