// Unit tests of the per-kind strategies and the write rules.
#include "registry/strategy.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "api/defaults.h"
#include "api/well_known.h"
#include "registry/name_generator.h"
#include "registry/object_meta_rules.h"
#include "registry/pod_strategy.h"
#include "registry/rest_errors.h"
#include "registry/write_rules.h"

namespace dralloc::registry {
namespace {

class FakeNamespaces : public NamespaceLookup {
 public:
  std::optional<api::StringMap> Labels(std::string_view name) const override {
    auto it = labels.find(std::string(name));
    if (it == labels.end()) return std::nullopt;
    return it->second;
  }
  std::map<std::string, api::StringMap> labels;
};

constexpr const char* kNow = "2024-01-01T00:00:00Z";

const api::ResourceInfo& Info(std::string_view kind) {
  return *api::FindResourceByKind(kind);
}

api::ResourceClaim Claim(bool admin_access) {
  api::ResourceClaim claim;
  claim.metadata.name = "claim";
  claim.metadata.namespace_ = "team";
  api::DeviceRequest request;
  request.name = "gpu";
  request.exactly.emplace();
  request.exactly->device_class_name = "gpu.example.com";
  if (admin_access) request.exactly->admin_access = true;
  claim.spec.devices.requests.push_back(request);
  return claim;
}

struct Fixture : ::testing::Test {
  FakeNamespaces namespaces;
  DeterministicNameGenerator names;
  WriteContext context{.validate = true, .namespaces = &namespaces};
};

using WriteRulesTest = Fixture;

TEST(NameGeneratorTest, SuffixesUseTheAlphabet) {
  RandomNameGenerator random;
  DeterministicNameGenerator deterministic;
  for (NameGenerator* generator :
       std::initializer_list<NameGenerator*>{&random, &deterministic}) {
    const std::string name = generator->GenerateName("pod-");
    ASSERT_EQ(name.size(), 4u + NameGenerator::kSuffixLength);
    for (char c : name.substr(4)) {
      EXPECT_NE(NameGenerator::kAlphabet.find(c), std::string_view::npos);
    }
  }
}

TEST(NameGeneratorTest, DeterministicIsReproducibleAndDistinct) {
  DeterministicNameGenerator a, b;
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string name = a.GenerateName("x-");
    EXPECT_EQ(name, b.GenerateName("x-"));
    EXPECT_TRUE(seen.insert(name).second) << name;
  }
}

TEST_F(WriteRulesTest, CreateSetsServerManagedMetadata) {
  api::Object object(Claim(false));
  api::ObjectMeta& meta = api::MetaOf(object);
  meta.name.clear();
  meta.generate_name = "claim-";
  meta.generation = 7;
  meta.self_link = "/x";
  meta.deletion_timestamp = "2020-01-01T00:00:00Z";
  meta.deletion_grace_period_seconds = 30;
  std::get<api::ResourceClaim>(object).status.reserved_for.emplace_back();
  EXPECT_TRUE(PrepareCreate(Info("ResourceClaim"), object, names, "uid-1",
                            "2024-01-01T00:00:00Z", context)
                  .empty());
  EXPECT_EQ(meta.name.substr(0, 6), "claim-");
  EXPECT_EQ(meta.name.size(), 11u);
  EXPECT_EQ(meta.uid, "uid-1");
  EXPECT_EQ(meta.creation_timestamp, "2024-01-01T00:00:00Z");
  EXPECT_EQ(meta.generation, 1);
  EXPECT_TRUE(meta.self_link.empty());
  EXPECT_FALSE(meta.deletion_timestamp);
  EXPECT_FALSE(meta.deletion_grace_period_seconds);
  EXPECT_EQ(std::get<api::ResourceClaim>(object).status,
            api::ResourceClaimStatus{});
  // Defaults applied.
  EXPECT_EQ(std::get<api::ResourceClaim>(object)
                .spec.devices.requests[0]
                .exactly->allocation_mode,
            "ExactCount");
}

TEST_F(WriteRulesTest, ClusterScopedObjectsHaveNoNamespace) {
  api::Node node;
  node.metadata.name = "n";
  node.metadata.namespace_ = "team";
  api::Object object(node);
  EXPECT_TRUE(
      PrepareCreate(Info("Node"), object, names, "u", kNow, context).empty());
  EXPECT_TRUE(api::MetaOf(object).namespace_.empty());
}

TEST_F(WriteRulesTest, NamespaceStartsActiveWithTheKubernetesFinalizer) {
  api::Namespace ns;
  ns.metadata.name = "team";
  ns.status.phase = "Terminating";
  api::Object object(ns);
  EXPECT_TRUE(
      PrepareCreate(Info("Namespace"), object, names, "u", kNow, context)
          .empty());
  const auto& created = std::get<api::Namespace>(object);
  EXPECT_EQ(created.status.phase, "Active");
  EXPECT_EQ(created.spec.finalizers,
            std::vector<std::string>{std::string(api::kNamespaceFinalizer)});
  EXPECT_TRUE(HasFinalizers(object));
}

TEST_F(WriteRulesTest, ResourceQuotaCreateDropsTheStatusTheClientSent) {
  api::ResourceQuota quota;
  quota.metadata.name = "gpus";
  quota.metadata.namespace_ = "team";
  quota.spec.hard.emplace("count/resourceclaims.resource.k8s.io",
                          Quantity::FromInt64(4));
  quota.status.hard = quota.spec.hard;
  quota.status.used.emplace("count/resourceclaims.resource.k8s.io",
                            Quantity::FromInt64(0));
  api::Object object(quota);
  EXPECT_TRUE(
      PrepareCreate(Info("ResourceQuota"), object, names, "u", kNow, context)
          .empty());
  const auto& created = std::get<api::ResourceQuota>(object);
  EXPECT_TRUE(created.status.hard.empty());
  EXPECT_TRUE(created.status.used.empty());
  EXPECT_EQ(created.spec.hard.size(), 1u);
}

TEST_F(WriteRulesTest, NamespaceUpdateKeepsStatusAndSpecFinalizers) {
  api::Namespace stored;
  stored.metadata.name = "team";
  stored.status.phase = "Active";
  stored.spec.finalizers = {"kubernetes"};
  api::Namespace sent = stored;
  sent.status.phase = "Terminating";
  sent.spec.finalizers.clear();
  sent.metadata.labels["a"] = "b";
  api::Object next(sent);
  EXPECT_TRUE(PrepareUpdate(Info("Namespace"), next, api::Object(stored),
                            WritePart::kObject, context)
                  .empty());
  EXPECT_EQ(std::get<api::Namespace>(next).status.phase, "Active");
  EXPECT_EQ(std::get<api::Namespace>(next).spec.finalizers,
            stored.spec.finalizers);
  EXPECT_EQ(api::MetaOf(next).labels.at("a"), "b");

  api::Object finalized(sent);
  EXPECT_TRUE(PrepareUpdate(Info("Namespace"), finalized, api::Object(stored),
                            WritePart::kFinalize, context)
                  .empty());
  EXPECT_TRUE(std::get<api::Namespace>(finalized).spec.finalizers.empty());
}

TEST_F(WriteRulesTest, StatusWriteKeepsEverythingButStatus) {
  api::Pod stored;
  stored.metadata.name = "pod";
  stored.metadata.namespace_ = "team";
  stored.metadata.labels["keep"] = "me";
  stored.spec.containers.push_back({.name = "c", .image = "i"});
  api::Object stored_object(stored);
  api::ApplyDefaults(stored_object);
  api::Object next = stored_object;
  api::MetaOf(next).labels.clear();
  std::get<api::Pod>(next).spec.node_name = "node";
  std::get<api::Pod>(next).status.phase = "Running";
  const api::ErrorList errors = PrepareUpdate(Info("Pod"), next, stored_object,
                                              WritePart::kStatus, context);
  EXPECT_TRUE(errors.empty()) << api::ToString(errors);
  const auto& written = std::get<api::Pod>(next);
  EXPECT_EQ(written.metadata.labels.at("keep"), "me");
  EXPECT_EQ(written.spec.node_name, "");
  EXPECT_EQ(written.status.phase, "Running");
  EXPECT_EQ(written.metadata.generation, stored.metadata.generation);
}

TEST_F(WriteRulesTest, MainWriteKeepsStatusAndBumpsGenerationOnSpecChange) {
  api::ResourceSlice stored;
  stored.metadata.name = "s";
  stored.metadata.generation = 3;
  stored.metadata.uid = "u";
  stored.metadata.deletion_grace_period_seconds = 5;
  stored.spec.driver = "d.example.com";
  stored.spec.pool.name = "p";
  stored.spec.pool.resource_slice_count = 1;
  stored.spec.node_name = "n";
  api::ResourceSlice sent = stored;
  sent.metadata.uid.clear();
  sent.metadata.deletion_grace_period_seconds.reset();
  sent.metadata.self_link = "/x";
  sent.spec.pool.generation = 2;
  api::Object next(sent);
  EXPECT_TRUE(PrepareUpdate(Info("ResourceSlice"), next, api::Object(stored),
                            WritePart::kObject, context)
                  .empty());
  const api::ObjectMeta& meta = api::MetaOf(next);
  EXPECT_EQ(meta.generation, 4);
  EXPECT_EQ(meta.uid, "u");
  EXPECT_EQ(meta.deletion_grace_period_seconds, 5);
  EXPECT_TRUE(meta.self_link.empty());
}

TEST_F(WriteRulesTest, ImmutableFields) {
  api::ResourceSlice stored;
  stored.metadata.name = "s";
  stored.spec.driver = "d.example.com";
  stored.spec.pool.name = "p";
  stored.spec.pool.resource_slice_count = 1;
  stored.spec.node_name = "n";
  api::ResourceSlice sent = stored;
  sent.spec.driver = "e.example.com";
  sent.spec.node_name = "m";
  api::Object next(sent);
  api::ErrorList errors =
      PrepareUpdate(Info("ResourceSlice"), next, api::Object(stored),
                    WritePart::kObject, context);
  ASSERT_EQ(errors.size(), 2u) << api::ToString(errors);
  EXPECT_EQ(errors[0].field, "spec.driver");
  EXPECT_EQ(errors[0].detail, "field is immutable");
  EXPECT_EQ(errors[1].field, "spec.nodeName");

  api::ResourceClaim claim = Claim(false);
  api::ResourceClaim changed = claim;
  changed.spec.devices.requests[0].name = "other";
  api::Object claim_next(changed);
  errors = PrepareUpdate(Info("ResourceClaim"), claim_next, api::Object(claim),
                         WritePart::kObject, context);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "spec");

  // Without validation (the in-memory API's fast path) they are not checked.
  WriteContext unchecked{.validate = false, .namespaces = &namespaces};
  api::Object again(changed);
  EXPECT_TRUE(PrepareUpdate(Info("ResourceClaim"), again, api::Object(claim),
                            WritePart::kObject, unchecked)
                  .empty());
}

TEST_F(WriteRulesTest, NoNewFinalizersWhileDeleting) {
  api::ResourceClaim stored = Claim(false);
  stored.metadata.deletion_timestamp = "t";
  stored.metadata.finalizers = {"a"};
  api::ResourceClaim sent = stored;
  sent.metadata.finalizers = {"a", "b"};
  api::Object next(sent);
  api::ErrorList errors =
      PrepareUpdate(Info("ResourceClaim"), next, api::Object(stored),
                    WritePart::kObject, context);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "metadata.finalizers");
}

TEST_F(WriteRulesTest, AdminAccessNeedsTheNamespaceLabel) {
  api::Object object(Claim(true));
  api::ErrorList errors =
      PrepareCreate(Info("ResourceClaim"), object, names, "u", kNow, context);
  ASSERT_EQ(errors.size(), 1u) << api::ToString(errors);
  EXPECT_EQ(errors[0].field, "spec.devices.requests[0].exactly.adminAccess");
  EXPECT_EQ(InvalidMessage(Info("ResourceClaim"), "claim", errors),
            "ResourceClaim.resource.k8s.io \"claim\" is invalid: "
            "spec.devices.requests[0].exactly.adminAccess: Forbidden: admin "
            "access to devices requires the "
            "`resource.kubernetes.io/admin-access: true` label on the "
            "containing namespace");

  namespaces.labels["team"][std::string(api::kAdminAccessLabel)] = "true";
  api::Object allowed(Claim(true));
  EXPECT_TRUE(
      PrepareCreate(Info("ResourceClaim"), allowed, names, "u", kNow, context)
          .empty());

  api::ResourceClaimTemplate tmpl;
  tmpl.metadata.name = "tmpl";
  tmpl.metadata.namespace_ = "other";
  tmpl.spec.spec = Claim(true).spec;
  api::Object template_object(tmpl);
  errors = PrepareCreate(Info("ResourceClaimTemplate"), template_object, names,
                         "u", kNow, context);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field,
            "spec.spec.devices.requests[0].exactly.adminAccess");
}

TEST_F(WriteRulesTest, DeletionMarksAndRemoves) {
  api::Namespace ns;
  ns.metadata.name = "team";
  ns.spec.finalizers = {"kubernetes"};
  api::Object object(ns);
  ASSERT_TRUE(HasFinalizers(object));
  MarkForDeletion(object, "now");
  EXPECT_EQ(api::MetaOf(object).deletion_timestamp, "now");
  EXPECT_EQ(api::MetaOf(object).deletion_grace_period_seconds, 0);
  EXPECT_EQ(std::get<api::Namespace>(object).status.phase, "Terminating");
  EXPECT_FALSE(ReadyToRemove(object));
  std::get<api::Namespace>(object).spec.finalizers.clear();
  EXPECT_TRUE(ReadyToRemove(object));

  api::Object claim(Claim(false));
  api::MetaOf(claim).finalizers = {"x"};
  MarkForDeletion(claim, "now");
  EXPECT_FALSE(ReadyToRemove(claim));
  api::MetaOf(claim).finalizers.clear();
  EXPECT_TRUE(ReadyToRemove(claim));
}

TEST(PodStrategyTest, BindingConflicts) {
  api::Pod pod;
  pod.metadata.name = "p";
  pod.metadata.uid = "u1";
  EXPECT_FALSE(BindingConflict(pod, ""));
  EXPECT_FALSE(BindingConflict(pod, "u1"));
  EXPECT_EQ(*BindingConflict(pod, "u2"),
            "Precondition failed: UID in precondition: u2, UID in object "
            "meta: u1");
  pod.spec.node_name = "n";
  EXPECT_EQ(*BindingConflict(pod, ""),
            "pod p is already assigned to node \"n\"");
  pod.spec.node_name.clear();
  pod.metadata.deletion_timestamp = "t";
  EXPECT_EQ(*BindingConflict(pod, ""),
            "pod is being deleted, cannot be assigned to a host");
}

TEST(StrategyTest, KindsWithoutRulesUseTheGenericStrategy) {
  EXPECT_EQ(&StrategyFor(api::Object(api::Node{})),
            &StrategyFor(api::Object(api::DeviceClass{})));
  EXPECT_NE(&StrategyFor(api::Object(api::Node{})),
            &StrategyFor(api::Object(api::Namespace{})));
}

// PrepareDeletion: one DELETE after another on the same pod, with the
// deadline each leaves.
TEST(PrepareDeletionTest, GracePeriodOnlyShrinksAndMovesTheDeadline) {
  const auto now = *ParseRfc3339("2024-01-01T00:00:00Z");
  api::Pod pod;
  pod.metadata.name = "p";
  pod.spec.node_name = "node";
  pod.spec.unknown_fields.push_back(
      {"terminationGracePeriodSeconds", api::RawJson{.json = "45"}});
  api::Object object(pod);
  struct Step {
    std::optional<int64_t> grace;
    int seconds_later;  // of the DELETE, after `now`
    DeletionStep step;
    std::string deadline;
    int64_t period;
  };
  const Step steps[] = {
      {std::nullopt, 0, DeletionStep::kStore, "2024-01-01T00:00:45Z", 45},
      {60, 5, DeletionStep::kUnchanged, "2024-01-01T00:00:45Z", 45},
      {std::nullopt, 5, DeletionStep::kUnchanged, "2024-01-01T00:00:45Z", 45},
      {10, 5, DeletionStep::kStore, "2024-01-01T00:00:10Z", 10},
      {-3, 6, DeletionStep::kStore, "2024-01-01T00:00:01Z", 1},
      {0, 7, DeletionStep::kRemove, "2024-01-01T00:00:00Z", 0},
  };
  for (const Step& step : steps) {
    SCOPED_TRACE(step.deadline);
    EXPECT_EQ(PrepareDeletion(object, step.grace,
                              now + std::chrono::seconds(step.seconds_later)),
              step.step);
    const api::ObjectMeta& meta = api::MetaOf(object);
    EXPECT_EQ(meta.deletion_timestamp.value_or(""), step.deadline);
    EXPECT_EQ(meta.deletion_grace_period_seconds.value_or(-1), step.period);
  }
}

TEST(PrepareDeletionTest, UnboundTerminalAndOtherKindsGoAtOnce) {
  const auto now = *ParseRfc3339("2024-01-01T00:00:00Z");
  api::Pod unbound;
  api::Pod done;
  done.spec.node_name = "node";
  done.status.phase = "Failed";
  api::Node node;
  for (api::Object object :
       {api::Object(unbound), api::Object(done), api::Object(node)}) {
    EXPECT_EQ(PrepareDeletion(object, 30, now), DeletionStep::kRemove);
  }
  api::Node kept;
  kept.metadata.finalizers.push_back("example.com/keep");
  api::Object object(kept);
  EXPECT_EQ(PrepareDeletion(object, 30, now), DeletionStep::kStore);
  EXPECT_EQ(api::MetaOf(object).deletion_grace_period_seconds, 0);
  EXPECT_EQ(PrepareDeletion(object, std::nullopt, now),
            DeletionStep::kUnchanged);
}

}  // namespace
}  // namespace dralloc::registry
