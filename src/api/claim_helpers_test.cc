#include "api/claim_helpers.h"

#include <gtest/gtest.h>

#include "api/validation/limits.h"

namespace dralloc::api {
namespace {

Pod PodWithClaims() {
  Pod pod;
  pod.metadata.name = "p";
  pod.metadata.uid = "pod-uid";
  pod.spec.resource_claims = {
      {.name = "direct", .resource_claim_name = "shared"},
      {.name = "gen", .resource_claim_template_name = "tmpl"},
      {.name = "skipped", .resource_claim_template_name = "tmpl"},
      {.name = "pending", .resource_claim_template_name = "tmpl"},
  };
  pod.status.resource_claim_statuses = {
      {.name = "gen", .resource_claim_name = "p-gen-abc"},
      {.name = "skipped"},
      {.name = "gen", .resource_claim_name = "later-duplicate"},
  };
  return pod;
}

TEST(ClaimNameForTest, ResolvesEachKindOfEntry) {
  const Pod pod = PodWithClaims();
  struct Case {
    size_t entry;
    PodClaimName::Kind kind;
    std::string_view name;
  };
  const Case cases[] = {
      {0, PodClaimName::Kind::kDirect, "shared"},
      {1, PodClaimName::Kind::kGenerated, "p-gen-abc"},  // the first entry
      {2, PodClaimName::Kind::kNotNeeded, ""},
      {3, PodClaimName::Kind::kNotCreated, ""},
  };
  for (const Case& c : cases) {
    const PodClaimName got =
        ClaimNameFor(pod, pod.spec.resource_claims[c.entry]);
    EXPECT_EQ(got.kind, c.kind) << c.entry;
    EXPECT_EQ(got.name, c.name) << c.entry;
  }
  EXPECT_EQ(ClaimStatusFor(pod, "missing"), nullptr);
  ASSERT_NE(ClaimStatusFor(pod, "skipped"), nullptr);
}

TEST(PodClaimNamesTest, ResolvedEntriesThenTheExtendedResourceClaim) {
  Pod pod = PodWithClaims();
  EXPECT_EQ(PodClaimNames(pod),
            (std::vector<std::string>{"shared", "p-gen-abc"}));
  pod.status.extended_resource_claim_status.emplace().resource_claim_name =
      "p-extended-resources-x";
  EXPECT_EQ(PodClaimNames(pod),
            (std::vector<std::string>{"shared", "p-gen-abc",
                                      "p-extended-resources-x"}));
}

TEST(ClaimHelpersTest, Reservations) {
  ResourceClaim claim;
  EXPECT_FALSE(IsReservedFor(claim, "u1"));
  claim.status.reserved_for.push_back(
      {.resource = "widgets", .name = "w", .uid = "u1"});
  EXPECT_TRUE(IsReservedFor(claim, "u1"));
  EXPECT_FALSE(IsReservedForPod(claim, "u1"));  // not a pod
  Pod pod;
  pod.metadata.name = "p";
  pod.metadata.uid = "u2";
  claim.status.reserved_for.push_back(PodConsumerRef(pod));
  EXPECT_TRUE(IsReservedForPod(claim, "u2"));
  EXPECT_EQ(claim.status.reserved_for.back().resource, "pods");
  EXPECT_EQ(claim.status.reserved_for.back().name, "p");
  EXPECT_TRUE(claim.status.reserved_for.back().api_group.empty());

  EXPECT_TRUE(CanBeReserved(claim));
  claim.status.reserved_for.resize(kResourceClaimReservedForMaxSize - 1);
  EXPECT_TRUE(CanBeReserved(claim));
  claim.status.reserved_for.resize(kResourceClaimReservedForMaxSize);
  EXPECT_FALSE(CanBeReserved(claim));
}

TEST(ClaimHelpersTest, OwnershipAndFinalizers) {
  ResourceClaim claim;
  claim.metadata.owner_references.push_back(
      {.api_version = "v1", .kind = "Pod", .name = "p", .uid = "u1"});
  EXPECT_FALSE(IsForPod(claim, "u1"));  // an owner, not the controller
  claim.metadata.owner_references.push_back({.api_version = "v1",
                                             .kind = "Pod",
                                             .name = "q",
                                             .uid = "u2",
                                             .controller = true});
  EXPECT_TRUE(IsForPod(claim, "u2"));
  EXPECT_FALSE(IsForPod(claim, "u3"));

  EXPECT_FALSE(HasFinalizer(claim.metadata, "a/b"));
  claim.metadata.finalizers = {"x", "a/b"};
  EXPECT_TRUE(HasFinalizer(claim.metadata, "a/b"));
}

}  // namespace
}  // namespace dralloc::api
