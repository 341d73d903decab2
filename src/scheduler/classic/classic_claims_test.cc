// ClassicClaims against the behaviour of Kubernetes 1.30's dynamicresources
// plugin (its unit tests' scenarios and reasons).
#include "scheduler/classic/classic_claims.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace dralloc::scheduler::classic {
namespace {

namespace v1alpha2 = api::v1alpha2;
using Code = Verdict::Code;

api::NodeSelector HostIn(std::vector<std::string> nodes) {
  api::NodeSelectorTerm term;
  term.match_fields.push_back({"metadata.name", "In", std::move(nodes)});
  return api::NodeSelector{{term}};
}

class ClassicClaimsTest : public testing::Test {
 protected:
  ClassicClaimsTest() {
    pod_.metadata.name = "app";
    pod_.metadata.namespace_ = "default";
    pod_.metadata.uid = "pod-uid";
    gpu_class_.metadata.name = "gpu";
    gpu_class_.driver_name = "gpu.example.com";
    classes_["gpu"] = &gpu_class_;
  }

  v1alpha2::ResourceClaim& Claim(std::string name) {
    v1alpha2::ResourceClaim& claim = claims_[name];
    claim.metadata.name = name;
    claim.metadata.namespace_ = "default";
    claim.spec.resource_class_name = "gpu";
    claim.spec.allocation_mode = v1alpha2::kAllocationModeWaitForFirstConsumer;
    return claim;
  }
  static void Allocate(v1alpha2::ResourceClaim& claim,
                       std::vector<std::string> nodes) {
    claim.status.driver_name = "gpu.example.com";
    claim.status.allocation.emplace();
    claim.status.allocation->available_on_nodes = HostIn(std::move(nodes));
  }
  v1alpha2::PodSchedulingContext& Context() {
    context_.emplace();
    context_->metadata.name = "app";
    context_->metadata.uid = "context-uid";
    context_->metadata.owner_references.push_back(
        {"v1", "Pod", "app", "pod-uid", true, true});
    return *context_;
  }
  Verdict PreFilter(std::vector<std::string> names) {
    std::vector<PodClaim> claims;
    for (const std::string& name : names)
      claims.push_back({name, &claims_[name]});
    return cycle_.PreFilter(
        pod_, std::move(claims),
        [this](std::string_view name) -> const v1alpha2::ResourceClass* {
          auto it = classes_.find(std::string(name));
          return it == classes_.end() ? nullptr : it->second;
        },
        context_ ? &*context_ : nullptr);
  }
  static allocator::NodeInfo Node(std::string name) {
    allocator::NodeInfo node;
    node.name = std::move(name);
    return node;
  }

  api::Pod pod_;
  v1alpha2::ResourceClass gpu_class_;
  std::map<std::string, const v1alpha2::ResourceClass*> classes_;
  std::map<std::string, v1alpha2::ResourceClaim> claims_;
  std::optional<v1alpha2::PodSchedulingContext> context_;
  ClassicClaims cycle_;
};

TEST_F(ClassicClaimsTest, PreFilterStopsWithUpstreamReasons) {
  Claim("a").status.deallocation_requested = true;
  EXPECT_EQ(PreFilter({"a"}).reason, "resourceclaim must be reallocated");

  Allocate(Claim("b"), {"worker-0"});
  claims_["b"].status.reserved_for.push_back({"", "pods", "other", "x"});
  EXPECT_EQ(PreFilter({"b"}).reason, "resourceclaim in use");
  claims_["b"].status.allocation->shareable = true;
  EXPECT_TRUE(PreFilter({"b"}).ok());

  Claim("c").spec.resource_class_name = "missing";
  const Verdict missing = PreFilter({"c"});
  EXPECT_EQ(missing.code, Code::kUnschedulable);
  EXPECT_EQ(missing.reason, "resource class missing does not exist");

  Claim("d").spec.allocation_mode = v1alpha2::kAllocationModeImmediate;
  EXPECT_EQ(PreFilter({"d"}).reason, "unallocated immediate resourceclaim");
  // A structured class's claim is allocated by the scheduler, even Immediate.
  gpu_class_.structured_parameters = true;
  EXPECT_TRUE(PreFilter({"d"}).ok());
}

TEST_F(ClassicClaimsTest, ContextOfAnotherPodIsAnError) {
  Claim("a");
  Context().metadata.owner_references[0].uid = "someone-else";
  const Verdict verdict = PreFilter({"a"});
  EXPECT_EQ(verdict.code, Code::kError);
  EXPECT_EQ(verdict.reason,
            "PodSchedulingContext object with UID context-uid is not owned by "
            "Pod default/app");
}

TEST_F(ClassicClaimsTest, FilterHonoursSuitableAndUnsuitableNodes) {
  Claim("a");
  gpu_class_.suitable_nodes = HostIn({"worker-0", "worker-1"});
  v1alpha2::PodSchedulingContext& context = Context();
  context.status.resource_claims.push_back({"a", {"worker-1"}});
  ASSERT_TRUE(PreFilter({"a"}).ok());
  EXPECT_TRUE(cycle_.Filter(Node("worker-0")).ok());
  EXPECT_EQ(cycle_.Filter(Node("worker-1")).reason,
            "resourceclaim cannot be allocated for the node (unsuitable)");
  EXPECT_EQ(cycle_.Filter(Node("worker-2")).reason,
            "excluded by resource class node filter");
}

TEST_F(ClassicClaimsTest, AllocatedElsewhereIsDeallocatedByPostFilter) {
  Allocate(Claim("a"), {"worker-0"});
  Context().spec.selected_node = "worker-0";
  ASSERT_TRUE(PreFilter({"a"}).ok());
  EXPECT_TRUE(cycle_.Filter(Node("worker-0")).ok());
  EXPECT_EQ(cycle_.Filter(Node("worker-1")).reason,
            "resourceclaim not available on the node");
  Verdict verdict;
  const std::optional<Deallocation> deallocation =
      cycle_.PostFilter(pod_, verdict);
  ASSERT_TRUE(deallocation.has_value());
  EXPECT_EQ(deallocation->claim, 0u);
  EXPECT_TRUE(deallocation->classic);
  EXPECT_TRUE(deallocation->clear_selected_node);
  EXPECT_EQ(verdict.reason, "deallocation of ResourceClaim completed");
}

TEST_F(ClassicClaimsTest, PostFilterLeavesImmediateAndForeignClaims) {
  Allocate(Claim("a"), {"worker-0"});
  claims_["a"].spec.allocation_mode = v1alpha2::kAllocationModeImmediate;
  ASSERT_TRUE(PreFilter({"a"}).ok());
  EXPECT_FALSE(cycle_.Filter(Node("worker-1")).ok());
  Verdict verdict;
  EXPECT_FALSE(cycle_.PostFilter(pod_, verdict).has_value());
  EXPECT_EQ(verdict.reason, "still not schedulable");

  Allocate(Claim("b"), {"worker-0"});
  claims_["b"].status.allocation->shareable = true;
  claims_["b"].status.reserved_for.push_back({"", "pods", "other", "x"});
  ASSERT_TRUE(PreFilter({"b"}).ok());
  EXPECT_FALSE(cycle_.Filter(Node("worker-1")).ok());
  EXPECT_FALSE(cycle_.PostFilter(pod_, verdict).has_value());
  EXPECT_EQ(verdict.reason, "still not schedulable");
}

TEST_F(ClassicClaimsTest, PotentialNodesAtMost128Sorted) {
  Claim("a");
  ASSERT_TRUE(PreFilter({"a"}).ok());
  const std::vector<std::string> few = {"worker-b", "worker-a"};
  EXPECT_EQ(cycle_.PotentialNodes(few, 1),
            (std::vector<std::string>{"worker-a", "worker-b"}));
  std::vector<std::string> many;
  for (int i = 0; i < 200; ++i) many.push_back("worker-" + std::to_string(i));
  const auto chosen = cycle_.PotentialNodes(many, 7);
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->size(), 128u);
  EXPECT_TRUE(std::is_sorted(chosen->begin(), chosen->end()));
  EXPECT_EQ(cycle_.PotentialNodes(many, 7), chosen);  // same seed, same set
  // Already published: nothing to do.
  Context().spec.potential_nodes = {"worker-a", "worker-b"};
  ASSERT_TRUE(PreFilter({"a"}).ok());
  EXPECT_EQ(cycle_.PotentialNodes(few, 1), std::nullopt);
}

TEST_F(ClassicClaimsTest, OnePendingClaimSelectsTheNodeAtOnce) {
  Claim("a");
  ASSERT_TRUE(PreFilter({"a"}).ok());
  // One feasible node: PreScore did not run, so the node is asked about.
  const ReserveOutcome outcome = cycle_.Reserve("worker-0", std::nullopt);
  EXPECT_TRUE(outcome.verdict.ok());
  EXPECT_EQ(outcome.selected_node, "worker-0");
  EXPECT_EQ(outcome.potential_nodes, std::vector<std::string>{"worker-0"});
}

TEST_F(ClassicClaimsTest, TwoPendingClaimsWaitForEveryDriver) {
  Claim("a");
  Claim("b");
  Context().spec.potential_nodes = {"worker-0", "worker-1"};
  ASSERT_TRUE(PreFilter({"a", "b"}).ok());
  // Nothing new to publish and no driver has answered yet.
  const ReserveOutcome waiting = cycle_.Reserve("worker-0", std::nullopt);
  EXPECT_EQ(waiting.verdict.code, Code::kPending);
  EXPECT_EQ(waiting.verdict.reason,
            "waiting for resource driver to provide information");
  EXPECT_FALSE(waiting.selected_node.has_value());
  // New potential nodes from PreScore are published first.
  const ReserveOutcome publish = cycle_.Reserve(
      "worker-0", std::vector<std::string>{"worker-0", "worker-2"});
  EXPECT_TRUE(publish.verdict.ok());
  EXPECT_FALSE(publish.selected_node.has_value());
  // Once both drivers answered, the node is selected.
  context_->status.resource_claims = {{"a", {}}, {"b", {"worker-1"}}};
  ASSERT_TRUE(PreFilter({"a", "b"}).ok());
  EXPECT_EQ(cycle_.Reserve("worker-0", std::nullopt).selected_node, "worker-0");
  // Already selected: the pod waits for the allocation.
  context_->spec.selected_node = "worker-0";
  ASSERT_TRUE(PreFilter({"a", "b"}).ok());
  EXPECT_EQ(cycle_.Reserve("worker-0", std::nullopt).verdict.code,
            Code::kPending);
}

TEST_F(ClassicClaimsTest, AllocatedClaimsAreReservedInPreBind) {
  Allocate(Claim("a"), {"worker-0"});
  Allocate(Claim("b"), {"worker-0"});
  claims_["b"].status.reserved_for.push_back({"", "pods", "app", "pod-uid"});
  ASSERT_TRUE(PreFilter({"a", "b"}).ok());
  EXPECT_TRUE(cycle_.Reserve("worker-0", std::nullopt).verdict.ok());
  EXPECT_FALSE(cycle_.HasPendingClassicClaims());
  EXPECT_EQ(cycle_.ClaimsToReserve(pod_), std::vector<size_t>{0});
}

}  // namespace
}  // namespace dralloc::scheduler::classic
