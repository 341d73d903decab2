#include "controller/device_taint_eviction_controller.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/claim_helpers.h"
#include "client/memory_api_client.h"

namespace dralloc::controller {
namespace {

using std::chrono::seconds;

const SystemTime kNow = *ParseUtcTime("2026-09-23T12:00:00Z");

api::DeviceTaint Taint(std::string effect,
                       std::optional<std::string> added = std::nullopt) {
  return {.key = "example.com/broken",
          .value = "yes",
          .effect = std::move(effect),
          .time_added = std::move(added)};
}

api::DeviceToleration Tolerate(std::optional<int64_t> seconds,
                               std::string effect = "NoExecute") {
  return {.key = "example.com/broken",
          .operator_ = "Exists",
          .value = "",
          .effect = std::move(effect),
          .toleration_seconds = seconds};
}

// One slice with device gpu-0 in pool node-a of driver gpu.example.com, one
// claim allocated that device, one pod bound to node-a using the claim.
struct Cluster {
  api::ResourceSlice slice;
  api::ResourceClaim claim;
  api::Pod pod;
  std::vector<api::DeviceTaintRule> rules;
  bool publish_slice = true;               // false: the slice is gone
  std::vector<api::ResourceSlice> others;  // more slices

  explicit Cluster(std::vector<api::DeviceTaint> slice_taints = {},
                   std::vector<api::DeviceToleration> tolerations = {}) {
    slice.metadata.name = "node-a-gpus";
    slice.spec.driver = "gpu.example.com";
    slice.spec.pool.name = "node-a";
    slice.spec.devices.push_back({});
    slice.spec.devices[0].name = "gpu-0";
    slice.spec.devices[0].taints = std::move(slice_taints);
    claim.metadata = {.name = "gpu", .namespace_ = "default"};
    api::AllocationResult allocation;
    api::DeviceRequestAllocationResult result;
    result.request = "gpu";
    result.driver = "gpu.example.com";
    result.pool = "node-a";
    result.device = "gpu-0";
    result.tolerations = std::move(tolerations);
    allocation.devices.results.push_back(result);
    claim.status.allocation = allocation;
    pod.metadata = {.name = "app", .namespace_ = "default"};
    pod.spec.node_name = "node-a";
    pod.spec.resource_claims.push_back(
        {.name = "gpu", .resource_claim_name = "gpu"});
  }

  void AddRule(std::string name, std::optional<std::string> device,
               api::DeviceTaint taint) {
    api::DeviceTaintRule rule;
    rule.metadata.name = std::move(name);
    rule.spec.device_selector = api::DeviceTaintSelector{
        .driver = "gpu.example.com", .device = std::move(device)};
    rule.spec.taint = std::move(taint);
    rules.push_back(rule);
  }

  std::vector<PlannedEviction> Plan() const {
    TaintEvictionInputs inputs;
    inputs.pods = {&pod};
    inputs.claims = {&claim};
    if (publish_slice) inputs.slices = {&slice};
    for (const auto& other : others) inputs.slices.push_back(&other);
    for (const auto& rule : rules) inputs.rules.push_back(&rule);
    inputs.now = kNow;
    return PlanDeviceTaintEvictions(inputs);
  }
};

TEST(DeviceTolerationMatchesTest, FollowsUpstreamRules) {
  const api::DeviceTaint taint = Taint("NoExecute");
  struct Case {
    api::DeviceToleration toleration;
    bool matches;
  };
  const std::vector<Case> cases = {
      {{.key = "", .operator_ = "Exists"}, true},
      {{.key = "example.com/broken", .operator_ = "Exists"}, true},
      {{.key = "example.com/other", .operator_ = "Exists"}, false},
      {{.key = "example.com/broken", .operator_ = "", .value = "yes"}, true},
      {{.key = "example.com/broken", .operator_ = "Equal", .value = "no"},
       false},
      {{.key = "example.com/broken",
        .operator_ = "Exists",
        .value = "",
        .effect = "NoSchedule"},
       false},
      {{.key = "example.com/broken",
        .operator_ = "Exists",
        .value = "",
        .effect = "NoExecute"},
       true},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(api::DeviceTolerationMatches(cases[i].toleration, taint),
              cases[i].matches)
        << "case " << i;
  }
}

TEST(PlanDeviceTaintEvictionsTest, UntoleratedSliceTaintEvictsNow) {
  const Cluster cluster({Taint("NoExecute")});
  const auto plans = cluster.Plan();
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].pod, &cluster.pod);
  EXPECT_EQ(plans[0].evict_at, kNow);
  EXPECT_TRUE(plans[0].rules.empty());
}

TEST(PlanDeviceTaintEvictionsTest, OnlyNoExecuteEvicts) {
  EXPECT_TRUE(Cluster({Taint("NoSchedule")}).Plan().empty());
  EXPECT_TRUE(Cluster({Taint("None")}).Plan().empty());
}

TEST(PlanDeviceTaintEvictionsTest, TolerationSecondsCountFromTimeAdded) {
  const Cluster cluster({Taint("NoExecute", "2026-09-23T11:59:50Z")},
                        {Tolerate(30)});
  const auto plans = cluster.Plan();
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].evict_at, kNow + seconds(20));
}

TEST(PlanDeviceTaintEvictionsTest, TolerationWithoutSecondsIsForever) {
  EXPECT_TRUE(
      Cluster({Taint("NoExecute")}, {Tolerate(std::nullopt)}).Plan().empty());
}

// Upstream's claimEvictionTime: among the matching NoExecute tolerations the
// smallest tolerationSeconds wins.
TEST(PlanDeviceTaintEvictionsTest, SmallestTolerationSecondsWinsAsUpstream) {
  const Cluster cluster({Taint("NoExecute", "2026-09-23T11:59:50Z")},
                        {Tolerate(30), Tolerate(15), Tolerate(60)});
  const auto plans = cluster.Plan();
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].evict_at, kNow + seconds(5));
}

// Upstream: any matching NoExecute toleration without tolerationSeconds
// tolerates the taint for ever, whatever the others say.
TEST(PlanDeviceTaintEvictionsTest, ForeverTolerationWinsAsUpstream) {
  EXPECT_TRUE(Cluster({Taint("NoExecute")}, {Tolerate(30), Tolerate({})})
                  .Plan()
                  .empty());
  EXPECT_TRUE(Cluster({Taint("NoExecute")}, {Tolerate({}), Tolerate(30)})
                  .Plan()
                  .empty());
}

// Upstream: a negative tolerationSeconds counts as 0, evicting at timeAdded.
TEST(PlanDeviceTaintEvictionsTest, NegativeTolerationSecondsCountAsZero) {
  const Cluster cluster({Taint("NoExecute", "2026-09-23T11:59:50Z")},
                        {Tolerate(30), Tolerate(-5)});
  const auto plans = cluster.Plan();
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].evict_at, kNow - seconds(10));
}

// Upstream's claimEvictionTime considers only tolerations whose effect is
// NoExecute: one with an empty effect matches the taint (and lets the
// allocator pick the device) but neither delays nor prevents eviction.
TEST(PlanDeviceTaintEvictionsTest, OnlyNoExecuteTolerationsCountAsUpstream) {
  ASSERT_TRUE(
      api::DeviceTolerationMatches(Tolerate({}, ""), Taint("NoExecute")));
  const Cluster forever({Taint("NoExecute", "2026-09-23T11:59:50Z")},
                        {Tolerate({}, "")});
  auto plans = forever.Plan();
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].evict_at, kNow);
  const Cluster mixed({Taint("NoExecute", "2026-09-23T11:59:50Z")},
                      {Tolerate(5, ""), Tolerate(60)});
  plans = mixed.Plan();
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].evict_at, kNow + seconds(50));
}

TEST(PlanDeviceTaintEvictionsTest, RuleTaintEvictsAndNamesTheRule) {
  Cluster cluster;
  cluster.AddRule("gpu-0-broken", "gpu-0", Taint("NoExecute"));
  const auto plans = cluster.Plan();
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].evict_at, kNow);
  EXPECT_EQ(plans[0].rules, std::vector<std::string>{"gpu-0-broken"});
}

TEST(PlanDeviceTaintEvictionsTest, RuleForAnotherDeviceDoesNothing) {
  Cluster cluster;
  cluster.AddRule("gpu-1-broken", "gpu-1", Taint("NoExecute"));
  EXPECT_TRUE(cluster.Plan().empty());
}

TEST(PlanDeviceTaintEvictionsTest,
     RuleByNameEvictsFromADeviceWhoseSliceIsGone) {
  Cluster cluster;
  cluster.publish_slice = false;
  cluster.AddRule("gpu-0-broken", "gpu-0", Taint("NoExecute"));
  const auto plans = cluster.Plan();
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].rules, std::vector<std::string>{"gpu-0-broken"});
}

TEST(PlanDeviceTaintEvictionsTest, ClassRuleNeedsThePublishedDevice) {
  Cluster cluster;
  cluster.publish_slice = false;
  cluster.AddRule("gpus-broken", std::nullopt, Taint("NoExecute"));
  cluster.rules[0].spec.device_selector->device_class_name = "gpu";
  EXPECT_TRUE(cluster.Plan().empty());
}

TEST(PlanDeviceTaintEvictionsTest, OnlyTheNewestPoolGenerationCounts) {
  // The tainted slice is generation 1; generation 2 republishes gpu-0
  // without the taint.
  Cluster cluster({Taint("NoExecute")});
  cluster.slice.spec.pool.generation = 1;
  api::ResourceSlice newer = cluster.slice;
  newer.metadata.name = "node-a-gpus-2";
  newer.spec.pool.generation = 2;
  newer.spec.devices[0].taints.clear();
  cluster.others.push_back(newer);
  EXPECT_TRUE(cluster.Plan().empty());
  cluster.others[0].spec.pool.generation = 0;  // now the old one is newest
  EXPECT_EQ(cluster.Plan().size(), 1u);
}

TEST(PlanDeviceTaintEvictionsTest, SkipsUnboundAndTerminatingPods) {
  Cluster unbound({Taint("NoExecute")});
  unbound.pod.spec.node_name.clear();
  EXPECT_TRUE(unbound.Plan().empty());
  Cluster terminating({Taint("NoExecute")});
  terminating.pod.metadata.deletion_timestamp = "2026-09-23T11:00:00Z";
  EXPECT_TRUE(terminating.Plan().empty());
}

TEST(PlanDeviceTaintEvictionsTest, UnallocatedClaimDoesNothing) {
  Cluster cluster({Taint("NoExecute")});
  cluster.claim.status.allocation.reset();
  EXPECT_TRUE(cluster.Plan().empty());
}

api::DeviceTaintRule RuleWithEffect(std::string effect) {
  api::DeviceTaintRule rule;
  rule.metadata.name = "rule";
  rule.metadata.generation = 3;
  rule.spec.taint = Taint(std::move(effect));
  return rule;
}

TEST(RuleEvictionConditionTest, MatchesUpstreamWording) {
  struct Case {
    std::string effect;
    int64_t pending, namespaces, evicted;
    std::string status, reason, message;
  };
  const std::vector<Case> cases = {
      {"NoExecute", 0, 0, 0, "False", "NotStarted", ""},
      {"NoExecute", 1, 1, 0, "True", "PodsPendingEviction",
       "1 pod needs to be evicted in 1 namespace."},
      {"NoExecute", 3, 2, 1, "True", "PodsPendingEviction",
       "3 pods need to be evicted in 2 different namespaces. 1 pod evicted "
       "since starting the controller."},
      {"NoExecute", 0, 0, 5, "False", "Completed",
       "5 pods evicted since starting the controller."},
      {"NoSchedule", 0, 0, 0, "False", "OtherEffect",
       "Eviction only happens for the NoExecute effect."},
      {"None", 2, 1, 0, "False", "NoEffect",
       "0 published devices selected. 0 allocated devices selected. 2 pods "
       "would be evicted in 1 namespace if the effect was NoExecute. This "
       "information will not be updated again. Recreate the DeviceTaintRule "
       "to trigger an update."},
  };
  for (const Case& c : cases) {
    const api::Condition condition = RuleEvictionCondition(
        RuleWithEffect(c.effect), {.pending_pods = c.pending,
                                   .pending_namespaces = c.namespaces,
                                   .evicted_pods = c.evicted});
    EXPECT_EQ(condition.type, "EvictionInProgress");
    EXPECT_EQ(condition.observed_generation, 3);
    EXPECT_EQ(condition.status, c.status) << c.reason;
    EXPECT_EQ(condition.reason, c.reason);
    EXPECT_EQ(condition.message, c.message);
  }
}

TEST(SimulateNoExecuteTest, CountsWhatANoneRuleWouldEvict) {
  Cluster cluster;
  cluster.AddRule("gpu-0-maybe", "gpu-0", Taint("None"));
  TaintEvictionInputs inputs;
  inputs.pods = {&cluster.pod};
  inputs.claims = {&cluster.claim};
  inputs.slices = {&cluster.slice};
  inputs.rules = {&cluster.rules[0]};
  inputs.now = kNow;
  EXPECT_TRUE(PlanDeviceTaintEvictions(inputs).empty());
  const RuleEvictionCounts counts = SimulateNoExecute(inputs, cluster.rules[0]);
  EXPECT_EQ(counts.published_devices, 1);
  EXPECT_EQ(counts.allocated_devices, 1);
  EXPECT_EQ(counts.pending_pods, 1);
  EXPECT_EQ(counts.pending_namespaces, 1);
  EXPECT_EQ(RuleEvictionCondition(cluster.rules[0], counts).message,
            "1 published device selected. 1 allocated device selected. 1 pod "
            "would be evicted in 1 namespace if the effect was NoExecute. This "
            "information will not be updated again. Recreate the "
            "DeviceTaintRule to trigger an update.");
}

// The controller against the in-memory API: what one round writes.
class DeviceTaintEvictionControllerTest : public ::testing::Test {
 protected:
  void SetUp() override { MakeController({}); }
  // A new controller with `options` on new informers (call before Store).
  void MakeController(DeviceTaintEvictionOptions options) {
    controller_.reset();
    informers_.clear();
    for (const api::ResourceInfo* info :
         {&client::PodsResource(), &client::ResourceClaimsResource(),
          &client::ResourceSlicesResource(),
          &client::DeviceTaintRulesResource(),
          &client::DeviceClassesResource()}) {
      informers_.push_back(std::make_unique<client::Informer>(api_, *info));
    }
    controller_ = std::make_unique<DeviceTaintEvictionController>(
        api_, *informers_[0], *informers_[1], *informers_[2], *informers_[3],
        *informers_[4], options);
  }
  // Stores the cluster's objects (the claim with its allocation, the rules).
  void Store(const Cluster& cluster) {
    for (const api::DeviceTaintRule& rule : cluster.rules) {
      auto created = api_.Create(rule);
      ASSERT_TRUE(created.ok()) << created.status().ToString();
    }
    ASSERT_TRUE(api_.Create(cluster.slice).ok());
    api::ResourceClaim claim = cluster.claim;
    auto created = api_.Create(claim);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    claim = std::get<api::ResourceClaim>(**created);
    claim.status = cluster.claim.status;
    ASSERT_TRUE(api_.UpdateStatus(claim).ok());
    api::Pod pod = cluster.pod;
    pod.spec.containers.push_back({});
    pod.spec.containers[0].name = "main";
    pod.spec.containers[0].image = "pause";
    auto stored = api_.Create(pod);
    ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  }
  void Pump() {
    for (auto& informer : informers_) {
      while (*informer->Pump(std::chrono::milliseconds(0)) > 0) {
      }
    }
  }
  // The pod as stored, or nullopt when it is gone.
  std::optional<api::Pod> StoredPod() {
    auto pod = api_.Get(client::PodsResource(), "default", "app");
    if (!pod.ok()) return std::nullopt;
    return std::get<api::Pod>(**pod);
  }
  // The rule's EvictionInProgress condition as stored, if any.
  std::optional<api::Condition> RuleCondition(std::string_view name) {
    auto rule = api_.Get(client::DeviceTaintRulesResource(), "", name);
    if (!rule.ok()) return std::nullopt;
    for (const api::Condition& condition :
         std::get<api::DeviceTaintRule>(**rule).status.conditions) {
      if (condition.type == kEvictionInProgress) return condition;
    }
    return std::nullopt;
  }
  // The stored events with `message`.
  std::vector<api::Event> EventsSaying(std::string_view message) {
    std::vector<api::Event> events = Events();
    std::erase_if(events, [&](const api::Event& event) {
      return event.message != message;
    });
    return events;
  }
  std::vector<api::Event> Events() {
    std::vector<api::Event> events;
    auto list = api_.List(client::ResourceFor<api::Event>());
    if (!list.ok()) return events;
    for (const auto& object : list->items) {
      if (const auto* event = client::As<api::Event>(object)) {
        events.push_back(*event);
      }
    }
    return events;
  }

  client::MemoryApiClient api_;
  std::vector<std::unique_ptr<client::Informer>> informers_;
  std::unique_ptr<DeviceTaintEvictionController> controller_;
};

TEST_F(DeviceTaintEvictionControllerTest, EvictsWithConditionAndEventOnce) {
  Store(Cluster({Taint("NoExecute")}));
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow), std::nullopt);
  Pump();
  controller_->RunOnce(kNow);  // the cache may lag: no second eviction
  EXPECT_EQ(controller_->metrics().pods_evicted, 1u);
  const std::vector<api::Event> events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "Normal");
  EXPECT_EQ(events[0].reason, "DeviceTaintManagerEviction");
  EXPECT_EQ(events[0].message, "Marking for deletion");
  EXPECT_EQ(events[0].source.component, "device-taint-eviction-controller");
  const std::optional<api::Pod> pod = StoredPod();
  ASSERT_TRUE(pod.has_value());  // a bound pod is deleted gracefully
  EXPECT_TRUE(pod->metadata.deletion_timestamp.has_value());
  ASSERT_EQ(pod->status.conditions.size(), 1u);
  EXPECT_EQ(pod->status.conditions[0].type, "DisruptionTarget");
  EXPECT_EQ(pod->status.conditions[0].status, "True");
  EXPECT_EQ(pod->status.conditions[0].reason, "DeletionByDeviceTaintManager");
  EXPECT_EQ(pod->status.conditions[0].message,
            "Device Taint manager: deleting due to NoExecute taint");
}

TEST_F(DeviceTaintEvictionControllerTest, PodChangesMatterOnlyWithTaints) {
  Store(Cluster({Taint("NoSchedule")}));
  Pump();
  EXPECT_TRUE(controller_->PodChangesMatter());  // until the first round
  controller_->RunOnce(kNow);
  EXPECT_FALSE(controller_->PodChangesMatter());

  MakeController({});
  Cluster with_rule;
  with_rule.AddRule("gpu-0-watched", "gpu-0", Taint("NoSchedule"));
  ASSERT_TRUE(api_.Create(with_rule.rules[0]).ok());
  Pump();
  controller_->RunOnce(kNow);
  EXPECT_TRUE(controller_->PodChangesMatter());
}

TEST_F(DeviceTaintEvictionControllerTest, PodChangesMatterWithANoExecuteTaint) {
  Store(Cluster({Taint("NoExecute", "2026-09-23T11:59:50Z")}, {Tolerate(30)}));
  Pump();
  controller_->RunOnce(kNow);
  EXPECT_TRUE(controller_->PodChangesMatter());
}

TEST_F(DeviceTaintEvictionControllerTest, WaitsForTolerationSeconds) {
  Store(Cluster({Taint("NoExecute", "2026-09-23T11:59:50Z")}, {Tolerate(30)}));
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow), kNow + seconds(20));
  EXPECT_EQ(controller_->metrics().pods_evicted, 0u);
  ASSERT_TRUE(StoredPod().has_value());
  EXPECT_FALSE(StoredPod()->metadata.deletion_timestamp.has_value());
  EXPECT_EQ(controller_->RunOnce(kNow + seconds(20)), std::nullopt);
  EXPECT_EQ(controller_->metrics().pods_evicted, 1u);
}

// Upstream's cancelWorkWithEvent: a scheduled eviction that is no longer
// needed while the pod stays gets a Normal "Cancelling deletion" event, once.
TEST_F(DeviceTaintEvictionControllerTest, CancellingDeletionWhenTheTaintGoes) {
  Store(Cluster({Taint("NoExecute", "2026-09-23T11:59:50Z")}, {Tolerate(30)}));
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow), kNow + seconds(20));
  EXPECT_TRUE(Events().empty());
  // The driver removes the taint before the eviction is due.
  auto stored = api_.Get(client::ResourceSlicesResource(), "", "node-a-gpus");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  api::ResourceSlice slice = std::get<api::ResourceSlice>(**stored);
  slice.spec.devices[0].taints.clear();
  ASSERT_TRUE(api_.Update(slice).ok());
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow + seconds(5)), std::nullopt);
  const std::vector<api::Event> events = Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "Normal");
  EXPECT_EQ(events[0].reason, "DeviceTaintManagerEviction");
  EXPECT_EQ(events[0].message, "Cancelling deletion");
  EXPECT_EQ(events[0].source.component, "device-taint-eviction-controller");
  EXPECT_EQ(events[0].involved_object.name, "app");
  EXPECT_EQ(controller_->metrics().evictions_cancelled, 1u);
  controller_->RunOnce(kNow + seconds(30));  // nothing left to cancel
  EXPECT_EQ(Events().size(), 1u);
  EXPECT_EQ(controller_->metrics().pods_evicted, 0u);
  ASSERT_TRUE(StoredPod().has_value());
  EXPECT_FALSE(StoredPod()->metadata.deletion_timestamp.has_value());
}

TEST_F(DeviceTaintEvictionControllerTest,
       CancellingDeletionWhenTheClaimIsDeallocated) {
  Store(Cluster({Taint("NoExecute", "2026-09-23T11:59:50Z")}, {Tolerate(30)}));
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow), kNow + seconds(20));
  auto stored = api_.Get(client::ResourceClaimsResource(), "default", "gpu");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  api::ResourceClaim claim = std::get<api::ResourceClaim>(**stored);
  claim.status.allocation.reset();
  ASSERT_TRUE(api_.UpdateStatus(claim).ok());
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow + seconds(5)), std::nullopt);
  EXPECT_EQ(EventsSaying("Cancelling deletion").size(), 1u);
  EXPECT_EQ(controller_->metrics().evictions_cancelled, 1u);
}

// Upstream cancels silently when the pod itself goes away.
TEST_F(DeviceTaintEvictionControllerTest, NoCancellingEventForADeletedPod) {
  Store(Cluster({Taint("NoExecute", "2026-09-23T11:59:50Z")}, {Tolerate(30)}));
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow), kNow + seconds(20));
  ASSERT_TRUE(api_.Delete(client::PodsResource(), "default", "app",
                          client::DeleteOptions{.grace_period_seconds = 0})
                  .ok());
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow + seconds(5)), std::nullopt);
  EXPECT_TRUE(Events().empty());
  EXPECT_EQ(controller_->metrics().evictions_cancelled, 0u);
}

// Upstream's ruleStatusPeriod: a burst of changes costs one write per
// period; the change that came within the period is written when it ends,
// and the loop is told to wake then.
TEST_F(DeviceTaintEvictionControllerTest, RuleStatusWritesWaitForThePeriod) {
  Cluster cluster({}, {Tolerate(5)});
  cluster.AddRule("gpu-0-broken", "gpu-0",
                  Taint("NoExecute", "2026-09-23T12:00:00Z"));
  Store(cluster);
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow), kNow + seconds(5));
  std::optional<api::Condition> condition = RuleCondition("gpu-0-broken");
  ASSERT_TRUE(condition.has_value());
  EXPECT_EQ(condition->status, "True");
  EXPECT_EQ(condition->reason, "PodsPendingEviction");
  EXPECT_EQ(condition->message, "1 pod needs to be evicted in 1 namespace.");
  EXPECT_EQ(condition->observed_generation, 1);
  EXPECT_EQ(condition->last_transition_time, "2026-09-23T12:00:00Z");
  Pump();
  // The pod goes 5 s after the last write: Completed waits until 10 s.
  EXPECT_EQ(controller_->RunOnce(kNow + seconds(5)), kNow + seconds(10));
  EXPECT_EQ(controller_->metrics().pods_evicted, 1u);
  EXPECT_EQ(RuleCondition("gpu-0-broken")->reason, "PodsPendingEviction");
  EXPECT_EQ(controller_->metrics().rule_status_updates, 1u);
  Pump();
  // Then it is written; the recheck after the eviction is still ahead.
  EXPECT_EQ(controller_->RunOnce(kNow + seconds(10)), kNow + seconds(15));
  condition = RuleCondition("gpu-0-broken");
  ASSERT_TRUE(condition.has_value());
  EXPECT_EQ(condition->status, "False");
  EXPECT_EQ(condition->reason, "Completed");
  EXPECT_EQ(condition->message, "1 pod evicted since starting the controller.");
  EXPECT_EQ(condition->last_transition_time, "2026-09-23T12:00:10Z");
  EXPECT_EQ(controller_->metrics().rule_status_updates, 2u);
}

TEST_F(DeviceTaintEvictionControllerTest, RuleStatusPeriodIsAnOption) {
  MakeController({.rule_status_period = std::chrono::seconds(2)});
  Cluster cluster({}, {Tolerate(5)});
  cluster.AddRule("gpu-0-broken", "gpu-0",
                  Taint("NoExecute", "2026-09-23T12:00:00Z"));
  Store(cluster);
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow), kNow + seconds(5));
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow + seconds(1)), kNow + seconds(2));
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow + seconds(2)), kNow + seconds(5));
  EXPECT_EQ(controller_->metrics().rule_status_updates, 1u);  // unchanged
}

// The period applies within one generation: a rule's new spec is reported
// at once. Its NoSchedule taint no longer evicts, so the pending eviction
// is cancelled with an event.
TEST_F(DeviceTaintEvictionControllerTest, ANewRuleGenerationIsWrittenAtOnce) {
  Cluster cluster({}, {Tolerate(60)});
  cluster.AddRule("gpu-0-broken", "gpu-0",
                  Taint("NoExecute", "2026-09-23T12:00:00Z"));
  Store(cluster);
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow), kNow + seconds(60));
  EXPECT_EQ(RuleCondition("gpu-0-broken")->reason, "PodsPendingEviction");
  auto stored =
      api_.Get(client::DeviceTaintRulesResource(), "", "gpu-0-broken");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  api::DeviceTaintRule rule = std::get<api::DeviceTaintRule>(**stored);
  rule.spec.taint.effect = "NoSchedule";
  ASSERT_TRUE(api_.Update(rule).ok());
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow + seconds(1)), std::nullopt);
  const std::optional<api::Condition> condition = RuleCondition("gpu-0-broken");
  ASSERT_TRUE(condition.has_value());
  EXPECT_EQ(condition->reason, "OtherEffect");
  EXPECT_EQ(condition->observed_generation, 2);
  EXPECT_EQ(condition->last_transition_time, "2026-09-23T12:00:01Z");
  EXPECT_EQ(EventsSaying("Cancelling deletion").size(), 1u);
}

// Upstream queues a status recheck ruleStatusPeriod after each eviction a
// rule causes, so the count catches up with the cache.
TEST_F(DeviceTaintEvictionControllerTest, RechecksRuleStatusAfterAnEviction) {
  Cluster cluster;
  cluster.AddRule("gpu-0-broken", "gpu-0",
                  Taint("NoExecute", "2026-09-23T12:00:00Z"));
  Store(cluster);
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow), kNow + seconds(10));
  EXPECT_EQ(controller_->metrics().pods_evicted, 1u);
  EXPECT_EQ(RuleCondition("gpu-0-broken")->reason, "Completed");
  Pump();
  EXPECT_EQ(controller_->RunOnce(kNow + seconds(10)), std::nullopt);
  EXPECT_EQ(controller_->metrics().rule_status_updates, 1u);
}

// Upstream applies only its own condition (server-side apply); here the
// controller updates the status of its cached copy with only that condition
// replaced. Either way another writer's conditions stay: a stale copy
// conflicts, writes nothing, and the newer rule's event brings a new round.
TEST_F(DeviceTaintEvictionControllerTest, RuleStatusKeepsOtherConditions) {
  Cluster cluster({}, {Tolerate(60)});
  cluster.AddRule("gpu-0-broken", "gpu-0",
                  Taint("NoExecute", "2026-09-23T12:00:00Z"));
  Store(cluster);
  Pump();
  auto stored =
      api_.Get(client::DeviceTaintRulesResource(), "", "gpu-0-broken");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  api::DeviceTaintRule rule = std::get<api::DeviceTaintRule>(**stored);
  api::Condition audited;
  audited.type = "example.com/Audited";
  audited.status = "True";
  audited.reason = "Reviewed";
  audited.last_transition_time = "2026-09-23T11:00:00Z";
  rule.status.conditions.push_back(audited);
  ASSERT_TRUE(api_.UpdateStatus(rule).ok());
  // The controller's cache has not seen that write yet.
  controller_->RunOnce(kNow);
  EXPECT_EQ(controller_->metrics().rule_status_updates, 0u);
  Pump();
  controller_->RunOnce(kNow);
  EXPECT_EQ(controller_->metrics().rule_status_updates, 1u);
  stored = api_.Get(client::DeviceTaintRulesResource(), "", "gpu-0-broken");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  const auto& conditions =
      std::get<api::DeviceTaintRule>(**stored).status.conditions;
  ASSERT_EQ(conditions.size(), 2u);
  EXPECT_EQ(conditions[0].type, "example.com/Audited");
  EXPECT_EQ(conditions[0].reason, "Reviewed");
  EXPECT_EQ(conditions[1].type, "EvictionInProgress");
  EXPECT_EQ(conditions[1].reason, "PodsPendingEviction");
}

}  // namespace
}  // namespace dralloc::controller
