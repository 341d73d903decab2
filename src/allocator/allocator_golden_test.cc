// Runs the data-driven allocator cases under tests/golden/allocator: each
// file holds the objects of one case and, in header comments, the node and
// the expected outcome (format: tests/golden/allocator/README.md).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "allocator/offline_allocation.h"
#include "golden_case.h"

namespace dralloc::allocator {
namespace {

namespace fs = std::filesystem;
constexpr char kCaseRoot[] = "tests/golden/allocator";

struct GoldenCase {
  std::string path;
  std::string node = "node-1";
  std::string expect;                // "allocated", "unsatisfiable", "error"
  std::string error_substring;       // for "error"
  std::vector<std::string> summary;  // for "allocated"
  std::vector<std::string> explain;  // substrings for "unsatisfiable"
};

GoldenCase ParseHeader(const std::string& path, const std::string& text) {
  GoldenCase c;
  c.path = path;
  bool in_summary = false;
  for (const std::string& comment : golden::HeaderComments(text)) {
    if (in_summary && comment.starts_with("   ")) {
      c.summary.push_back(comment.substr(3));
      continue;
    }
    in_summary = false;
    if (auto node = golden::HeaderValue(comment, "node")) {
      c.node = golden::Trim(*node);
    }
    if (auto explain = golden::HeaderValue(comment, "explain")) {
      c.explain.emplace_back(golden::Trim(*explain));
    }
    auto expect_value = golden::HeaderValue(comment, "expect");
    if (!expect_value) continue;
    std::string expect(golden::Trim(*expect_value));
    if (expect.starts_with("error:")) {
      c.expect = "error";
      c.error_substring = golden::Trim(std::string_view(expect).substr(6));
    } else {
      c.expect = expect;
      in_summary = expect == "allocated";
    }
  }
  return c;
}

std::string Requirements(const std::vector<api::NodeSelectorRequirement>& rs) {
  std::vector<std::string> parts;
  for (const auto& r : rs) {
    parts.push_back(fmt::format("{} {} [{}]", r.key, r.operator_,
                                fmt::join(r.values, ",")));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

// The summary grammar of the case files.
std::vector<std::string> Summarize(
    const std::vector<api::ResourceClaim>& claims) {
  std::vector<std::string> lines;
  for (const auto& claim : claims) {
    lines.push_back(fmt::format("claim {}/{}", claim.metadata.namespace_,
                                claim.metadata.name));
    const api::AllocationResult& a = *claim.status.allocation;
    for (const auto& r : a.devices.results) {
      std::string line =
          fmt::format("  {} {}/{}/{}", r.request, r.driver, r.pool, r.device);
      if (r.admin_access.value_or(false)) line += " admin";
      if (r.share_id) line += " share";
      if (!r.consumed_capacity.empty()) {
        std::vector<std::string> parts;
        for (const auto& [name, q] : r.consumed_capacity) {
          parts.push_back(name + ":" + q.ToString());
        }
        line += fmt::format(" consumed={}", fmt::join(parts, ","));
      }
      if (!r.tolerations.empty()) {
        line += fmt::format(" tolerations={}", r.tolerations.size());
      }
      if (!r.binding_conditions.empty()) {
        line += fmt::format(" bindingConditions={}",
                            fmt::join(r.binding_conditions, ","));
      }
      if (!r.binding_failure_conditions.empty()) {
        line += fmt::format(" bindingFailureConditions={}",
                            fmt::join(r.binding_failure_conditions, ","));
      }
      if (!r.skip_node_operations.empty()) {
        line += fmt::format(" skipNodeOperations={}",
                            fmt::join(r.skip_node_operations, ","));
      }
      lines.push_back(line);
    }
    for (const auto& c : a.devices.config) {
      lines.push_back(fmt::format(
          "  config {} {} requests={}", c.source,
          c.opaque ? c.opaque->driver : "",
          c.requests.empty() ? std::string("*")
                             : fmt::format("{}", fmt::join(c.requests, ","))));
    }
    if (!a.node_selector) {
      lines.push_back("  nodeSelector: none");
      continue;
    }
    std::vector<std::string> terms;
    for (const auto& term : a.node_selector->node_selector_terms) {
      std::vector<std::string> parts;
      if (!term.match_expressions.empty()) {
        parts.push_back("labels(" + Requirements(term.match_expressions) + ")");
      }
      if (!term.match_fields.empty()) {
        parts.push_back("fields(" + Requirements(term.match_fields) + ")");
      }
      terms.push_back(fmt::format("{}", fmt::join(parts, " ")));
    }
    lines.push_back(fmt::format("  nodeSelector: {}", fmt::join(terms, " | ")));
  }
  return lines;
}

std::vector<std::string> CaseFiles() {
  std::vector<std::string> files;
  for (const fs::path& path : golden::CaseFiles(kCaseRoot, {".yaml"})) {
    files.push_back(path.string());
  }
  return files;
}

class AllocatorGoldenTest : public testing::TestWithParam<std::string> {};

TEST_P(AllocatorGoldenTest, Case) {
  const std::string text = golden::ReadFile(GetParam());
  GoldenCase c = ParseHeader(GetParam(), text);
  ASSERT_FALSE(c.expect.empty()) << "no '# expect:' line";

  StatusOr<std::vector<api::Object>> objects =
      DecodeManifests(text, GetParam());
  ASSERT_TRUE(objects.ok()) << objects.status();

  int share = 0;
  AllocatorOptions options;
  options.share_id_generator = [&] { return fmt::format("share-{}", ++share); };
  StatusOr<OfflineAllocation> outcome =
      AllocateOffline(std::move(*objects), c.node, options);
  if (c.expect == "error") {
    ASSERT_FALSE(outcome.ok()) << "expected an error containing '"
                               << c.error_substring << "', got success";
    EXPECT_NE(outcome.status().message().find(c.error_substring),
              std::string::npos)
        << "error: " << outcome.status().message();
    return;
  }
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  std::string explanation =
      fmt::format("{}", fmt::join(outcome->allocation.explanation, "\n"));
  if (c.expect == "unsatisfiable") {
    std::vector<std::string> got;
    if (outcome->allocation.allocated) got = Summarize(outcome->claims);
    ASSERT_FALSE(outcome->allocation.allocated)
        << "expected unsatisfiable, got:\n"
        << fmt::format("{}", fmt::join(got, "\n"));
    for (const std::string& want : c.explain) {
      EXPECT_NE(explanation.find(want), std::string::npos)
          << "explanation lacks '" << want << "':\n"
          << explanation;
    }
    return;
  }
  ASSERT_EQ(c.expect, "allocated") << "unknown expectation";
  ASSERT_TRUE(outcome->allocation.allocated) << "unsatisfiable:\n"
                                             << explanation;
  std::vector<std::string> got = Summarize(outcome->claims);
  EXPECT_EQ(fmt::format("{}", fmt::join(got, "\n")),
            fmt::format("{}", fmt::join(c.summary, "\n")));
}

std::string CaseName(const testing::TestParamInfo<std::string>& info) {
  return golden::TestName(
      std::string_view(info.param).substr(sizeof(kCaseRoot)));
}

INSTANTIATE_TEST_SUITE_P(Cases, AllocatorGoldenTest,
                         testing::ValuesIn(CaseFiles()), CaseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(AllocatorGoldenTest);

}  // namespace
}  // namespace dralloc::allocator
