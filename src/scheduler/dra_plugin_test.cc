#include "scheduler/dra_plugin.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/well_known.h"
#include "scheduler/test_cluster.h"
#include "scheduler/test_manifests.h"

namespace dralloc::scheduler {
namespace {

using Code = PreEnqueueResult::Code;

// node-a has one GPU, node-b two, node-c none.
std::string ClusterManifests() {
  namespace m = test_manifests;
  return m::Namespace() + m::Node("node-a") + m::Node("node-b") +
         m::Node("node-c") + m::GpuClass() + m::GpuSlice("node-a", 1) +
         m::GpuSlice("node-b", 2);
}

constexpr std::string_view kPodUid = "pod-uid";

api::ResourceClaim Claim(std::string name) {
  api::ResourceClaim claim;
  claim.metadata.name = std::move(name);
  claim.metadata.namespace_ = "ns";
  claim.spec.devices.requests.push_back(
      {.name = "gpu",
       .exactly = api::ExactDeviceRequest{.device_class_name = "gpu"}});
  return claim;
}

api::ResourceClaim OwnedBy(api::ResourceClaim claim, std::string_view uid) {
  claim.metadata.owner_references.push_back({.api_version = "v1",
                                             .kind = "Pod",
                                             .name = "pod",
                                             .uid = std::string(uid),
                                             .controller = true});
  return claim;
}

// `claim` allocated `device` of `pool` for its request "gpu" (no node
// selector).
api::ResourceClaim WithDevice(api::ResourceClaim claim, std::string pool,
                              std::string device) {
  claim.status.allocation.emplace();
  claim.status.allocation->devices.results.push_back(
      {.request = "gpu",
       .driver = "gpu.example.com",
       .pool = std::move(pool),
       .device = std::move(device)});
  return claim;
}

// Allocated on node-a (node selector) and reserved for `consumers` pods.
api::ResourceClaim AllocatedOnA(api::ResourceClaim claim, size_t consumers,
                                std::string_view extra_uid = "") {
  claim = WithDevice(std::move(claim), "node-a", "gpu-0");
  api::NodeSelectorTerm term;
  term.match_fields.push_back(
      {.key = "metadata.name", .operator_ = "In", .values = {"node-a"}});
  claim.status.allocation->node_selector.emplace();
  claim.status.allocation->node_selector->node_selector_terms.push_back(term);
  for (size_t i = 0; i < consumers; ++i) {
    claim.status.reserved_for.push_back(
        {.resource = "pods", .name = "p", .uid = "other-" + std::to_string(i)});
  }
  if (!extra_uid.empty()) {
    claim.status.reserved_for.back().uid = std::string(extra_uid);
  }
  return claim;
}

api::PodResourceClaim Direct(std::string entry, std::string claim) {
  return {.name = std::move(entry), .resource_claim_name = std::move(claim)};
}
api::PodResourceClaim FromTemplate(std::string entry) {
  return {.name = std::move(entry), .resource_claim_template_name = "tmpl"};
}

class DraPluginTest : public testing::Test {
 protected:
  void SetUp() override {
    cluster_.Load(ClusterManifests());
    cluster_.Pump();
    snapshot_.Refresh();
    api::ResourceClaim deleting = Claim("deleting");
    deleting.metadata.deletion_timestamp = "2025-01-01T00:00:00Z";
    for (api::ResourceClaim claim :
         {Claim("shared"), Claim("other"), deleting, Claim("not-owned"),
          OwnedBy(Claim("owned"), kPodUid), AllocatedOnA(Claim("full"), 256),
          AllocatedOnA(Claim("full-with-pod"), 256, kPodUid),
          AllocatedOnA(Claim("on-a"), 0)}) {
      const std::string key = "ns/" + claim.metadata.name;
      snapshot_.AssumeClaim(
          key, std::make_shared<const api::Object>(std::move(claim)));
    }
  }

  api::Pod Pod(std::vector<api::PodResourceClaim> entries,
               std::vector<api::PodResourceClaimStatus> statuses = {}) {
    api::Pod pod;
    pod.metadata.name = "pod";
    pod.metadata.namespace_ = "ns";
    pod.metadata.uid = std::string(kPodUid);
    pod.spec.resource_claims = std::move(entries);
    pod.status.resource_claim_statuses = std::move(statuses);
    return pod;
  }

  TestCluster cluster_;
  ClusterSnapshot snapshot_{cluster_.sources()};
  DraPlugin plugin_{cluster_.api, snapshot_, DraPluginOptions{}};
};

TEST_F(DraPluginTest, PreEnqueueResolvesClaimsInSpecOrder) {
  struct Case {
    std::string name;
    std::vector<api::PodResourceClaim> entries;
    std::vector<api::PodResourceClaimStatus> statuses;
    Code code;
    std::string message;
    std::string missing;
    size_t claims = 0;
  };
  const std::vector<Case> cases = {
      {"no claims", {}, {}, Code::kReady, "", "", 0},
      {"direct", {Direct("a", "shared")}, {}, Code::kReady, "", "", 1},
      {"same claim twice",
       {Direct("a", "shared"), Direct("b", "shared"), Direct("c", "other")},
       {},
       Code::kReady,
       "",
       "",
       2},
      {"not generated yet", {FromTemplate("t")}, {}, Code::kGated, "", "", 0},
      {"generated: none needed",
       {FromTemplate("t")},
       {{.name = "t"}},
       Code::kReady,
       "",
       "",
       0},
      {"generated, not cached",
       {FromTemplate("t")},
       {{.name = "t", .resource_claim_name = "gen-1"}},
       Code::kGated,
       "",
       "ns/gen-1",
       0},
      {"direct, missing",
       {Direct("a", "absent")},
       {},
       Code::kUnschedulable,
       "resourceclaim \"absent\" not found",
       "ns/absent",
       0},
      {"being deleted",
       {Direct("a", "deleting")},
       {},
       Code::kUnschedulable,
       "resourceclaim \"deleting\" is being deleted",
       "",
       0},
      {"generated for another pod",
       {FromTemplate("t")},
       {{.name = "t", .resource_claim_name = "not-owned"}},
       Code::kUnschedulable,
       "ResourceClaim not-owned was not created for the pod",
       "",
       0},
      {"generated for this pod",
       {FromTemplate("t")},
       {{.name = "t", .resource_claim_name = "owned"}},
       Code::kReady,
       "",
       "",
       1},
      {"reservedFor full",
       {Direct("a", "full")},
       {},
       Code::kUnschedulable,
       "resourceclaim \"full\" in use",
       "",
       0},
      {"reservedFor full, pod among them",
       {Direct("a", "full-with-pod")},
       {},
       Code::kReady,
       "",
       "",
       1},
      {"the first failing claim decides",
       {Direct("a", "deleting"), FromTemplate("t")},
       {},
       Code::kUnschedulable,
       "resourceclaim \"deleting\" is being deleted",
       "",
       0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const api::Pod pod = Pod(c.entries, c.statuses);
    DraCycleState state(pod);
    const PreEnqueueResult result = plugin_.PreEnqueue(state);
    EXPECT_EQ(result.code, c.code);
    if (c.code != Code::kGated) {
      EXPECT_EQ(result.message, c.message);
    }
    EXPECT_EQ(result.missing_claim, c.missing);
    if (c.code == Code::kReady) {
      EXPECT_EQ(state.claims.size(), c.claims);
    }
  }
}

TEST_F(DraPluginTest, FilterAllocatesPerNode) {
  const api::Pod pod = Pod({Direct("gpu", "shared")});
  DraCycleState state(pod);
  ASSERT_EQ(plugin_.PreEnqueue(state).code, Code::kReady);
  plugin_.PreFilter(state);
  ASSERT_EQ(state.to_allocate.size(), 1u);
  EXPECT_FALSE(state.wants_scores);

  UnschedulableReasons reasons;
  std::vector<api::AllocationResult> results;
  const auto& nodes = snapshot_.nodes();
  // node-a's GPU is taken by the allocated claims of the fixture.
  EXPECT_EQ(plugin_.Filter(state, nodes[1], reasons, results),
            FilterCode::kFits);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].devices.results.at(0).pool, "node-b");
  results.clear();
  EXPECT_EQ(plugin_.Filter(state, nodes[2], reasons, results),
            FilterCode::kUnfit);
  EXPECT_TRUE(results.empty());
  EXPECT_EQ(state.allocator_calls, 2u);
  EXPECT_NE(reasons.Message(3).find("1 cannot allocate"), std::string::npos)
      << reasons.Message(3);
}

TEST_F(DraPluginTest,
       AllocatedClaimsFilterByNodeSelectorAndPostFilterFreesThem) {
  const api::Pod pod = Pod({Direct("gpu", "on-a")});
  DraCycleState state(pod);
  ASSERT_EQ(plugin_.PreEnqueue(state).code, Code::kReady);
  plugin_.PreFilter(state);
  EXPECT_TRUE(state.to_allocate.empty());
  UnschedulableReasons reasons;
  std::vector<api::AllocationResult> results;
  EXPECT_EQ(plugin_.Filter(state, snapshot_.nodes()[0], reasons, results),
            FilterCode::kFits);
  EXPECT_EQ(plugin_.Filter(state, snapshot_.nodes()[1], reasons, results),
            FilterCode::kUnfit);
  EXPECT_EQ(state.allocator_calls, 0u);
  EXPECT_EQ(reasons.Message(2),
            "0/2 nodes are available: 1 resourceclaim not available on the "
            "node.");
  const client::ObjectPtr release = plugin_.PostFilter(state);
  ASSERT_NE(release, nullptr);
  EXPECT_EQ(api::MetaOf(*release).name, "on-a");
}

TEST_F(DraPluginTest, PostFilterKeepsClaimsOthersUse) {
  const api::Pod pod = Pod({Direct("gpu", "full-with-pod")});
  DraCycleState state(pod);
  ASSERT_EQ(plugin_.PreEnqueue(state).code, Code::kReady);
  plugin_.PreFilter(state);
  UnschedulableReasons reasons;
  std::vector<api::AllocationResult> results;
  EXPECT_EQ(plugin_.Filter(state, snapshot_.nodes()[1], reasons, results),
            FilterCode::kUnfit);
  EXPECT_EQ(plugin_.PostFilter(state), nullptr);
}

TEST_F(DraPluginTest, ScorePrefersByPlacement) {
  // node-a's only GPU is in use after one pod: pack prefers node-a, spread
  // node-b.
  snapshot_.AssumeClaim("ns/busy", std::make_shared<const api::Object>(
                                       AllocatedOnA(Claim("busy"), 0)));
  snapshot_.RestoreClaim("ns/on-a");
  snapshot_.AssumeClaim("ns/used-b",
                        std::make_shared<const api::Object>(
                            WithDevice(Claim("used-b"), "node-b", "gpu-1")));
  // node-a 100% full, node-b 50%.
  std::vector<Candidate> feasible(2);
  feasible[0].node = 1;
  feasible[1].node = 0;
  const api::Pod pod = Pod({});
  DraCycleState state(pod);
  for (const auto& [placement, best] :
       std::vector<std::pair<Placement, size_t>>{{Placement::kDefault, 0},
                                                 {Placement::kPack, 1},
                                                 {Placement::kSpread, 0}}) {
    DraPlugin plugin(cluster_.api, snapshot_, DraPluginOptions{placement});
    EXPECT_EQ(plugin.Score(state, feasible), best)
        << static_cast<int>(placement);
  }
}

// A claim whose requests are prioritized lists: {request, {subrequests}}.
api::ResourceClaim PrioritizedClaim(
    std::string name,
    std::vector<std::pair<std::string, std::vector<std::string>>> requests) {
  api::ResourceClaim claim;
  claim.metadata.name = std::move(name);
  claim.metadata.namespace_ = "ns";
  for (auto& [request, subrequests] : requests) {
    api::DeviceRequest r{.name = request};
    for (std::string& sub : subrequests) {
      r.first_available.push_back(
          {.name = std::move(sub), .device_class_name = "gpu", .count = 1});
    }
    claim.spec.devices.requests.push_back(std::move(r));
  }
  return claim;
}

// An allocation with one device per entry, each for request `names[i]`
// ("req/sub" or a plain request).
api::AllocationResult AllocatedTo(std::vector<std::string> names) {
  api::AllocationResult allocation;
  for (size_t i = 0; i < names.size(); ++i) {
    allocation.devices.results.push_back({.request = std::move(names[i]),
                                          .driver = "gpu.example.com",
                                          .pool = "node-b",
                                          .device = fmt::format("gpu-{}", i)});
  }
  return allocation;
}

TEST_F(DraPluginTest, ScoreNodeCountsEachChosenSubrequestOnce) {
  const api::ResourceClaim one =
      PrioritizedClaim("one", {{"gpu", {"big", "small"}}});
  const api::ResourceClaim two =
      PrioritizedClaim("two", {{"a", {"x", "y", "z"}}, {"b", {"p", "q"}}});
  const api::ResourceClaim plain = Claim("plain");
  struct Case {
    std::string name;
    std::vector<const api::ResourceClaim*> claims;
    std::vector<std::vector<std::string>> results;  // per claim
    int64_t score;
  };
  const std::vector<Case> cases = {
      {"first choice, one device", {&one}, {{"gpu/big"}}, 8},
      {"second choice, two devices", {&one}, {{"gpu/small", "gpu/small"}}, 7},
      {"second choice, four devices",
       {&one},
       {{"gpu/small", "gpu/small", "gpu/small", "gpu/small"}},
       7},
      {"two requests: first and second", {&two}, {{"a/x", "b/q"}}, 8 + 7},
      {"two requests: third (twice) and first",
       {&two},
       {{"a/z", "a/z", "b/p"}},
       6 + 8},
      {"several claims add up",
       {&one, &plain, &two},
       {{"gpu/small"}, {"gpu"}, {"a/y", "b/p", "b/p"}},
       7 + 0 + 7 + 8},
      {"no prioritized list", {&plain}, {{"gpu", "gpu"}}, 0},
  };
  const api::Pod pod = Pod({});
  for (const Case& c : cases) {
    DraCycleState state(pod);
    state.to_allocate = c.claims;
    Candidate candidate{1, {}};
    for (const auto& names : c.results) {
      candidate.results.push_back(AllocatedTo(names));
    }
    EXPECT_EQ(plugin_.ScoreNode(state, candidate), c.score) << c.name;
  }
}

TEST_F(DraPluginTest, ScorePrefersOneDeviceFirstChoiceOverTwoDeviceSecond) {
  const api::ResourceClaim claim =
      PrioritizedClaim("claim", {{"gpu", {"big", "small"}}});
  const api::Pod pod = Pod({});
  DraCycleState state(pod);
  state.to_allocate = {&claim};
  // Per device, the second choice would score 7 + 7 = 14 against 8.
  std::vector<Candidate> feasible(2);
  feasible[0] = {0, {AllocatedTo({"gpu/small", "gpu/small"})}};
  feasible[1] = {1, {AllocatedTo({"gpu/big"})}};
  EXPECT_EQ(plugin_.ScoreNode(state, feasible[0]), 7);
  EXPECT_EQ(plugin_.ScoreNode(state, feasible[1]), 8);
  EXPECT_EQ(plugin_.Score(state, feasible), 1u);
}

TEST(DraPluginNormalizeScores, ScalesToMaxNodeScoreOrZero) {
  std::vector<int64_t> scores = {7, 8, 0, 4};
  DraPlugin::NormalizeScores(scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{87, 100, 0, 50}));
  std::vector<int64_t> zeros = {0, 0};
  DraPlugin::NormalizeScores(zeros);
  EXPECT_EQ(zeros, (std::vector<int64_t>{0, 0}));
}

TEST_F(DraPluginTest, ReserveAssumesAllocationAndReservation) {
  api::ResourceClaim on_b = WithDevice(Claim("on-b"), "node-b", "gpu-0");
  snapshot_.AssumeClaim("ns/on-b",
                        std::make_shared<const api::Object>(std::move(on_b)));
  const api::Pod pod = Pod({Direct("gpu", "shared"), Direct("x", "on-b")});
  auto pod_object = std::make_shared<const api::Object>(pod);
  DraCycleState state(std::get<api::Pod>(*pod_object));
  ASSERT_EQ(plugin_.PreEnqueue(state).code, Code::kReady);
  plugin_.PreFilter(state);
  UnschedulableReasons reasons;
  Candidate chosen{1, {}};
  ASSERT_EQ(
      plugin_.Filter(state, snapshot_.nodes()[1], reasons, chosen.results),
      FilterCode::kFits);
  const BindTask task = plugin_.Reserve(state, pod_object, chosen);
  EXPECT_EQ(task.node, "node-b");
  ASSERT_EQ(task.claims.size(), 2u);
  EXPECT_TRUE(task.claims[0].allocate);
  EXPECT_FALSE(task.claims[1].allocate);
  const auto* assumed =
      client::As<api::ResourceClaim>(snapshot_.Claim("ns/shared"));
  ASSERT_NE(assumed, nullptr);
  ASSERT_TRUE(assumed->status.allocation.has_value());
  EXPECT_TRUE(assumed->status.allocation->allocation_timestamp.has_value());
  EXPECT_EQ(
      assumed->metadata.finalizers,
      std::vector<std::string>{std::string(api::kDeleteProtectionFinalizer)});
  ASSERT_EQ(assumed->status.reserved_for.size(), 1u);
  EXPECT_EQ(assumed->status.reserved_for[0].uid, kPodUid);

  EXPECT_EQ(assumed->status.allocation->devices.results.at(0).device, "gpu-1");
  const auto* reserved =
      client::As<api::ResourceClaim>(snapshot_.Claim("ns/on-b"));
  ASSERT_EQ(reserved->status.reserved_for.size(), 1u);

  plugin_.RestoreAssumed(task);
  EXPECT_EQ(snapshot_.Claim("ns/shared"), nullptr);  // not in the informer
}

}  // namespace
}  // namespace dralloc::scheduler
