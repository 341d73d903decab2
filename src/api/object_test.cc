// Tests of the Object helpers: DifferingMembers.
#include "api/object.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/kind_traits.h"

namespace dralloc::api {
namespace {

ResourceClaim Claim() {
  ResourceClaim claim;
  claim.api_version = "resource.k8s.io/v1";
  claim.kind = "ResourceClaim";
  claim.metadata.name = "c";
  claim.metadata.labels = {{"a", "1"}};
  claim.spec.devices.requests.emplace_back().name = "gpu";
  return claim;
}

TEST(DifferingMembersTest, KeepsIdentityAndOnlyTheMembersThatDiffer) {
  ResourceClaim before = Claim();
  ResourceClaim after = Claim();
  after.metadata.labels["b"] = "2";
  after.status.reserved_for.emplace_back().name = "pod";

  auto kept = DifferingMembers(Object(before), Object(after));
  ASSERT_TRUE(kept.has_value());
  const auto& kept_before = std::get<ResourceClaim>(kept->first);
  const auto& kept_after = std::get<ResourceClaim>(kept->second);
  EXPECT_EQ(kept_before.kind, "ResourceClaim");
  EXPECT_EQ(kept_after.api_version, "resource.k8s.io/v1");
  EXPECT_EQ(kept_before.metadata, before.metadata);
  EXPECT_EQ(kept_after.metadata, after.metadata);
  // The equal spec is dropped from both; the differing status kept in both.
  EXPECT_EQ(kept_before.spec, ResourceClaimSpec{});
  EXPECT_EQ(kept_after.spec, ResourceClaimSpec{});
  EXPECT_EQ(kept_before.status, before.status);
  EXPECT_EQ(kept_after.status, after.status);
}

TEST(DifferingMembersTest, KeepsDifferingUnknownFields) {
  Event before;
  before.metadata.name = "e";
  before.reason = "Scheduled";
  before.unknown_fields = {{"extra", RawJson{"1", true}}};
  Event after = before;
  auto same = DifferingMembers(Object(before), Object(after));
  ASSERT_TRUE(same.has_value());
  EXPECT_TRUE(std::get<Event>(same->first).unknown_fields.empty());
  EXPECT_TRUE(std::get<Event>(same->second).unknown_fields.empty());
  EXPECT_TRUE(std::get<Event>(same->first).reason.empty());

  after.unknown_fields[0].second = RawJson{"2", true};
  auto changed = DifferingMembers(Object(before), Object(after));
  ASSERT_TRUE(changed.has_value());
  EXPECT_EQ(std::get<Event>(changed->first).unknown_fields,
            before.unknown_fields);
  EXPECT_EQ(std::get<Event>(changed->second).unknown_fields,
            after.unknown_fields);
}

TEST(DifferingMembersTest, DifferentKindsHaveNoCommonMembers) {
  EXPECT_FALSE(DifferingMembers(Object(Claim()), Object(Pod{})).has_value());
}

}  // namespace
// The classic kinds joined the variant without growing it: a Pod is its
// largest alternative (docs/classic-dra.md, section 3).
TEST(ObjectTest, PodIsTheLargestAlternative) {
  ForEachKind([]<typename T>(const KindTraits& traits) {
    EXPECT_LE(sizeof(T), sizeof(Pod)) << traits.kind;
  });
}

// Decoding picks the family by apiVersion: the same kind name decodes to
// the classic alternative in v1alpha2 and to the structured one in v1.
TEST(ObjectTest, DecodingPicksTheFamilyByVersion) {
  const auto classic = DecodeDocument(
      R"({"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim",)"
      R"("metadata":{"name":"c","namespace":"ns"},)"
      R"("spec":{"resourceClassName":"gpu"}})");
  ASSERT_EQ(classic.size(), 1u);
  ASSERT_TRUE(classic[0].object.has_value()) << ToString(classic[0].errors);
  EXPECT_TRUE(
      std::holds_alternative<v1alpha2::ResourceClaim>(*classic[0].object));
  EXPECT_EQ(PreferredVersion(*classic[0].object), kResourceV1alpha2);
  const auto structured = DecodeDocument(
      R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",)"
      R"("metadata":{"name":"c","namespace":"ns"},"spec":{}})");
  ASSERT_TRUE(structured[0].object.has_value());
  EXPECT_TRUE(std::holds_alternative<ResourceClaim>(*structured[0].object));
  // A v1alpha2 kind in another version is no match.
  const auto wrong = DecodeDocument(
      R"({"apiVersion":"resource.k8s.io/v1","kind":"PodSchedulingContext",)"
      R"("metadata":{"name":"p"}})");
  ASSERT_FALSE(wrong[0].object.has_value());
  EXPECT_NE(ToString(wrong[0].errors).find("no matches for kind"),
            std::string::npos);
  // Encoding a classic object in v1 is refused, not reshaped.
  EXPECT_FALSE(EncodeObject(*classic[0].object, kResourceV1).ok());
  EXPECT_TRUE(EncodeObject(*classic[0].object, kResourceV1alpha2).ok());
}

}  // namespace dralloc::api
