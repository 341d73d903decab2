// Golden cases for ParseSpec: every tests/cdi/specs/<case>.{json,yaml} has a
// <case>.expected holding either the normalized JSON of the parsed spec
// (FormatSpecJson, pretty) or the exact error message. Cases are named
// valid_* or invalid_* and must parse or fail accordingly.
// CDI_UPDATE_EXPECTED=1 rewrites the .expected files from the results.
#include "cdi/spec_parser.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "cdi/spec_writer.h"
#include "golden_case.h"

namespace dralloc::cdi {
namespace {

namespace fs = std::filesystem;

const fs::path kCaseRoot = "tests/cdi/specs";

std::vector<fs::path> Cases() {
  return golden::CaseFiles(kCaseRoot, {".json", ".yaml"});
}

fs::path ExpectedFile(const fs::path& input) {
  fs::path expected = input;
  expected.replace_extension(".expected");
  return expected;
}

// What the case produces: the normalized spec or the error line.
std::string Outcome(const StatusOr<Spec>& spec) {
  if (!spec.ok()) return spec.status().message() + "\n";
  return FormatSpecJson(*spec) + "\n";
}

class SpecParserGoldenTest : public testing::TestWithParam<fs::path> {};

TEST_P(SpecParserGoldenTest, MatchesExpected) {
  const fs::path& input = GetParam();
  std::string text = golden::ReadFile(input);
  StatusOr<Spec> spec = ParseSpec(text, input.filename().string());
  std::string outcome = Outcome(spec);
  if (std::getenv("CDI_UPDATE_EXPECTED") != nullptr) {
    std::ofstream(ExpectedFile(input)) << outcome;
  }
  std::string name = input.stem().string();
  if (name.starts_with("valid_")) {
    ASSERT_TRUE(spec.ok()) << spec.status();
    // A normalized spec reads back to the same spec.
    StatusOr<Spec> again = ParseSpec(FormatSpecJson(*spec), "normalized");
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(*again, *spec);
  } else {
    ASSERT_TRUE(name.starts_with("invalid_")) << "case name must say valid_ "
                                                 "or invalid_";
    ASSERT_FALSE(spec.ok()) << Outcome(spec);
    EXPECT_TRUE(spec.status().message().starts_with(
        "cdi spec " + input.filename().string() + ": "))
        << spec.status();
  }
  EXPECT_EQ(outcome, golden::ReadFile(ExpectedFile(input)));
}

INSTANTIATE_TEST_SUITE_P(Cases, SpecParserGoldenTest,
                         testing::ValuesIn(Cases()),
                         [](const testing::TestParamInfo<fs::path>& info) {
                           return golden::TestName(info.param.stem().string());
                         });

TEST(SpecParserCasesTest, EveryExpectedFileHasACase) {
  ASSERT_FALSE(Cases().empty()) << "no cases under " << kCaseRoot;
  for (const fs::path& expected : golden::CaseFiles(kCaseRoot, {".expected"})) {
    fs::path json = expected, yaml = expected;
    json.replace_extension(".json");
    yaml.replace_extension(".yaml");
    EXPECT_TRUE(fs::exists(json) || fs::exists(yaml)) << expected;
  }
}

TEST(SpecParserTest, RejectsOversizedInput) {
  std::string text(kMaxSpecFileBytes + 1, ' ');
  StatusOr<Spec> spec = ParseSpec(text, "big.json");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(spec.status().message().starts_with("cdi spec big.json: "))
      << spec.status();
}

TEST(SpecParserTest, RejectsDeepNesting) {
  std::string text = R"({"cdiVersion":"0.3.0","kind":"a.b/c","devices":)";
  text += std::string(100, '[') + std::string(100, ']') + "}";
  StatusOr<Spec> spec = ParseSpec(text, "deep.json");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
}

TEST(ParseSpecFileTest, ReadsAFileWithItsPathAsOrigin) {
  fs::path file = kCaseRoot / "valid_v040_mount_type.yaml";
  StatusOr<Spec> spec = ParseSpecFile(file);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->cdi_version, "0.4.0");
  fs::path bad = kCaseRoot / "invalid_hook_name.json";
  EXPECT_TRUE(ParseSpecFile(bad).status().message().starts_with(
      "cdi spec " + bad.string() + ": devices[0]"));
  StatusOr<Spec> missing = ParseSpecFile(kCaseRoot / "no-such-file.json");
  EXPECT_EQ(missing.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(missing.status().message().starts_with(
      "cdi spec tests/cdi/specs/no-such-file.json: "))
      << missing.status();
}

}  // namespace
}  // namespace dralloc::cdi
