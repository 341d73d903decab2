// Runs the claim usage cases under tests/quota/claims: each file holds one
// ResourceClaim, preceded by header lines
//   # usage: <resource>=<quantity>
// naming exactly the usage upstream's evaluator computes for it, and
// optionally
//   # matching: <name>[,<name>...] / # not-matching: <name>[,<name>...]
// for MatchingResources, with the DeviceClasses that exist from
//   # classes: <class>[,<class>...] / # extended-name: <class>=<name>. The
//   claim is defaulted as the API server stores it.
#include "quota/resource_claim_evaluator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "golden_case.h"
#include "quota/resource_names.h"
#include "quota/usage_case_test_util.h"
#include "quota/usage_math.h"

namespace dralloc::quota {
namespace {

namespace fs = std::filesystem;

struct UsageCase {
  std::string text;
  api::ResourceList usage;
  std::vector<std::string> matching;
  std::vector<std::string> not_matching;
  // "# extended-name: <class>=<name>": the classes naming extended resources.
  std::map<std::string, std::string, std::less<>> extended_names;
  // "# classes: a,b": DeviceClasses that exist (besides extended_names').
  std::vector<std::string> classes;

  // The device class mapping these classes make.
  bool IsMapped(std::string_view name) const {
    if (name.starts_with(kImplicitExtendedResourcePrefix)) {
      const std::string_view device_class =
          name.substr(kImplicitExtendedResourcePrefix.size());
      return extended_names.contains(device_class) ||
             std::find(classes.begin(), classes.end(), device_class) !=
                 classes.end();
    }
    for (const auto& [device_class, extended] : extended_names) {
      if (extended == name) return true;
    }
    return false;
  }
};

UsageCase ReadCase(const fs::path& path) {
  UsageCase c;
  c.text = golden::ReadFile(path);
  for (const std::string& comment : golden::HeaderComments(c.text)) {
    if (auto usage = golden::HeaderValue(comment, "usage")) {
      usage_case::AddUsageLine(*usage, c.usage);
    } else if (auto names = golden::HeaderValue(comment, "matching")) {
      c.matching = usage_case::SplitList(*names);
    } else if (auto names = golden::HeaderValue(comment, "not-matching")) {
      for (std::string& name : usage_case::SplitList(*names)) {
        c.not_matching.push_back(std::move(name));
      }
    } else if (auto names = golden::HeaderValue(comment, "classes")) {
      c.classes = usage_case::SplitList(*names);
    } else if (auto mapping = golden::HeaderValue(comment, "extended-name")) {
      const size_t eq = mapping->find('=');
      EXPECT_NE(eq, std::string_view::npos) << comment;
      if (eq != std::string_view::npos) {
        c.extended_names.emplace(golden::Trim(mapping->substr(0, eq)),
                                 golden::Trim(mapping->substr(eq + 1)));
      }
    }
  }
  return c;
}

class ClaimUsageCaseTest : public testing::TestWithParam<fs::path> {};

TEST_P(ClaimUsageCaseTest, MatchesUpstreamUsage) {
  const UsageCase c = ReadCase(GetParam());
  ASSERT_FALSE(c.usage.empty()) << "a case needs '# usage:' lines";
  std::optional<api::ResourceClaim> claim =
      usage_case::DecodeCaseObject<api::ResourceClaim>(GetParam(), c.text,
                                                       /*defaulted=*/true);
  ASSERT_TRUE(claim.has_value()) << "not one decodable ResourceClaim";
  const api::ResourceList usage = ResourceClaimEvaluator::Usage(
      *claim, [&](std::string_view device_class) -> std::optional<std::string> {
        auto it = c.extended_names.find(device_class);
        if (it == c.extended_names.end()) return std::nullopt;
        return it->second;
      });
  EXPECT_TRUE(Equals(usage, c.usage))
      << "got " << PrettyPrint(usage) << "\nwant " << PrettyPrint(c.usage);
  const auto is_mapped = [&c](std::string_view name) {
    return c.IsMapped(name);
  };
  if (!c.matching.empty()) {
    EXPECT_EQ(ResourceClaimEvaluator::MatchingResources(c.matching, is_mapped),
              c.matching);
  }
  if (!c.not_matching.empty()) {
    EXPECT_EQ(
        ResourceClaimEvaluator::MatchingResources(c.not_matching, is_mapped),
        std::vector<std::string>{});
  }
}

std::vector<fs::path> CaseFiles() {
  return golden::CaseFiles("tests/quota/claims", {".yaml"});
}

INSTANTIATE_TEST_SUITE_P(Cases, ClaimUsageCaseTest,
                         testing::ValuesIn(CaseFiles()),
                         [](const testing::TestParamInfo<fs::path>& info) {
                           return golden::TestName(info.param.stem().string());
                         });

TEST(ClaimUsageCorpus, HasCases) { EXPECT_GE(CaseFiles().size(), 8u); }

api::ResourceQuota QuotaWithHard(std::vector<std::string> names) {
  api::ResourceQuota quota;
  for (const std::string& name : names) {
    quota.status.hard.emplace(name, Quantity::FromInt64(1));
  }
  return quota;
}

TEST(ResourceClaimEvaluatorTest, MatchesOnlyUnscopedQuotasOnClaimResources) {
  const ResourceClaimEvaluator::IsMapped nothing;
  EXPECT_TRUE(ResourceClaimEvaluator::Matches(
      QuotaWithHard({"count/resourceclaims.resource.k8s.io"}), nothing));
  EXPECT_TRUE(ResourceClaimEvaluator::Matches(
      QuotaWithHard({"pods", "gpu.deviceclass.resource.k8s.io/devices"}),
      nothing));
  EXPECT_FALSE(
      ResourceClaimEvaluator::Matches(QuotaWithHard({"pods"}), nothing));
  // spec.hard alone does not count until status.hard carries it.
  api::ResourceQuota uncomputed;
  uncomputed.spec.hard.emplace("count/resourceclaims.resource.k8s.io",
                               Quantity::FromInt64(1));
  EXPECT_FALSE(ResourceClaimEvaluator::Matches(uncomputed, nothing));
  api::ResourceQuota scoped =
      QuotaWithHard({"count/resourceclaims.resource.k8s.io"});
  scoped.spec.scopes = {"BestEffort"};
  EXPECT_FALSE(ResourceClaimEvaluator::Matches(scoped, nothing));
}

TEST(ResourceClaimEvaluatorTest, ExtendedNamesMatchWhileAClassMapsThem) {
  const api::ResourceQuota quota =
      QuotaWithHard({"requests.example.com/gpu",
                     "requests.deviceclass.resource.kubernetes.io/gpu"});
  EXPECT_FALSE(ResourceClaimEvaluator::Matches(quota, {}));
  EXPECT_TRUE(ResourceClaimEvaluator::Matches(
      quota, [](std::string_view name) { return name == "example.com/gpu"; }));
  EXPECT_TRUE(ResourceClaimEvaluator::Matches(quota, [](std::string_view name) {
    return name == "deviceclass.resource.kubernetes.io/gpu";
  }));
}

}  // namespace
}  // namespace dralloc::quota
