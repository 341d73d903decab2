// Runs the pod usage cases under tests/quota/pods: each file holds one Pod,
// preceded by header lines
//   # usage: <resource>=<quantity>
// naming exactly the usage upstream's pod evaluator computes for it at
// 2026-11-29T12:00:00Z, and optionally
//   # scope-matches: <scope> [<operator> [<value>,...]]
//   # scope-does-not-match: <scope> [<operator> [<value>,...]]
//   # constrained: <name>[,<name>...]     with
//   # missing: <message>                  (or "# missing: none")
// for the scopes the pod is in (operator Exists when omitted) and the
// "must specify" rule for a quota constraining those names.
#include "quota/pod_evaluator.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "golden_case.h"
#include "quota/usage_case_test_util.h"
#include "quota/usage_math.h"

namespace dralloc::quota {
namespace {

namespace fs = std::filesystem;

struct PodCase {
  std::string text;
  api::ResourceList usage;
  std::vector<api::ScopedResourceSelectorRequirement> in_scopes;
  std::vector<api::ScopedResourceSelectorRequirement> out_of_scopes;
  std::vector<std::string> constrained;
  std::optional<std::string> missing;  // "none": no message
};

api::ScopedResourceSelectorRequirement ParseScope(std::string_view text) {
  const std::vector<std::string> words = usage_case::SplitList(text, ' ');
  api::ScopedResourceSelectorRequirement scope;
  if (!words.empty()) scope.scope_name = words[0];
  scope.operator_ = words.size() > 1 ? words[1] : "Exists";
  if (words.size() > 2) scope.values = usage_case::SplitList(words[2]);
  return scope;
}

PodCase ReadCase(const fs::path& path) {
  PodCase c;
  c.text = golden::ReadFile(path);
  for (const std::string& comment : golden::HeaderComments(c.text)) {
    if (auto usage = golden::HeaderValue(comment, "usage")) {
      usage_case::AddUsageLine(*usage, c.usage);
    } else if (auto scope = golden::HeaderValue(comment, "scope-matches")) {
      c.in_scopes.push_back(ParseScope(*scope));
    } else if (auto other =
                   golden::HeaderValue(comment, "scope-does-not-match")) {
      c.out_of_scopes.push_back(ParseScope(*other));
    } else if (auto names = golden::HeaderValue(comment, "constrained")) {
      c.constrained = usage_case::SplitList(*names);
    } else if (auto message = golden::HeaderValue(comment, "missing")) {
      c.missing = std::string(golden::Trim(*message));
    }
  }
  return c;
}

api::ResourceQuota ScopedQuota(api::ScopedResourceSelectorRequirement scope) {
  api::ResourceQuota quota;
  quota.status.hard.emplace("pods", Quantity::FromInt64(10));
  quota.spec.scope_selector.emplace();
  quota.spec.scope_selector->match_expressions.push_back(std::move(scope));
  return quota;
}

class PodUsageCaseTest : public testing::TestWithParam<fs::path> {};

TEST_P(PodUsageCaseTest, MatchesUpstream) {
  const PodCase c = ReadCase(GetParam());
  ASSERT_FALSE(c.usage.empty()) << "a case needs '# usage:' lines";
  std::optional<api::Pod> pod = usage_case::DecodeCaseObject<api::Pod>(
      GetParam(), c.text, /*defaulted=*/false);
  ASSERT_TRUE(pod.has_value()) << "not one decodable Pod";
  const api::ResourceList usage =
      PodEvaluator::Usage(*pod, *ParseUtcTime("2026-11-29T12:00:00Z"));
  EXPECT_TRUE(Equals(usage, c.usage))
      << "got " << PrettyPrint(usage) << "\nwant " << PrettyPrint(c.usage);
  for (const auto& scope : c.in_scopes) {
    EXPECT_TRUE(PodEvaluator::Matches(ScopedQuota(scope), *pod))
        << scope.scope_name << " " << scope.operator_;
  }
  for (const auto& scope : c.out_of_scopes) {
    EXPECT_FALSE(PodEvaluator::Matches(ScopedQuota(scope), *pod))
        << scope.scope_name << " " << scope.operator_;
  }
  if (c.missing.has_value()) {
    const std::optional<std::string> missing =
        PodEvaluator::MissingRequests(c.constrained, *pod);
    EXPECT_EQ(missing.value_or("none"), *c.missing);
  }
}

std::vector<fs::path> CaseFiles() {
  return golden::CaseFiles("tests/quota/pods", {".yaml"});
}

INSTANTIATE_TEST_SUITE_P(Cases, PodUsageCaseTest,
                         testing::ValuesIn(CaseFiles()),
                         [](const testing::TestParamInfo<fs::path>& info) {
                           return golden::TestName(info.param.stem().string());
                         });

TEST(PodUsageCorpus, HasCases) { EXPECT_GE(CaseFiles().size(), 10u); }

TEST(PodEvaluatorTest, MatchingResources) {
  const std::vector<std::string> charged = {
      "pods",
      "count/pods",
      "requests.cpu",
      "limits.memory",
      "ephemeral-storage",
      "hugepages-2Mi",
      "requests.hugepages-1Gi",
      "requests.example.com/gpu",
      "requests.deviceclass.resource.kubernetes.io/gpu"};
  EXPECT_EQ(PodEvaluator::MatchingResources(charged), charged);
  EXPECT_TRUE(
      PodEvaluator::MatchingResources(
          {"count/resourceclaims.resource.k8s.io",
           "gpu.deviceclass.resource.k8s.io/devices", "limits.example.com/gpu",
           "requests.kubernetes.io/x", "services"})
          .empty());
}

TEST(PodEvaluatorTest, UnknownScopeMatchesNoPod) {
  api::Pod pod;
  pod.spec.containers.emplace_back().name = "c";
  EXPECT_FALSE(PodEvaluator::Matches(
      ScopedQuota({"VolumeAttributesClass", "Exists", {}}), pod));
  api::ResourceQuota unscoped = ScopedQuota({"BestEffort", "Exists", {}});
  unscoped.spec.scope_selector.reset();
  EXPECT_TRUE(PodEvaluator::Matches(unscoped, pod));
  unscoped.spec.scopes = {"NotBestEffort"};
  EXPECT_FALSE(PodEvaluator::Matches(unscoped, pod));
}

}  // namespace
}  // namespace dralloc::quota
