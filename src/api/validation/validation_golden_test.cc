// Runs the data-driven validation cases under tests/golden/validation.
//
// A case file holds one object (YAML or JSON) preceded by header comments:
//   # free description
//   # expect: valid
// or one line per expected error:
//   # expect: <Type> <field> [detail substring]
// <Type> is a FieldErrorTypeName ("Invalid", "Required", ...); <field> is the
// rendered path, or "-" for an object-level error. The case passes when the
// (type, field) pairs produced equal the expected ones exactly (as a
// multiset) and every detail substring occurs in its error's text.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "api/codec.h"
#include "api/validation/expected_errors_test_util.h"
#include "api/validation/validation.h"
#include "encoding/document_reader.h"
#include "golden_case.h"

namespace dralloc::api {
namespace {

namespace fs = std::filesystem;

const char kCaseRoot[] = "tests/golden/validation";

struct ValidationCase {
  fs::path path;
  std::string text;
  validation_case::Expectations expect;
};

ValidationCase ReadCase(const fs::path& path) {
  ValidationCase c;
  c.path = path;
  c.text = golden::ReadFile(path);
  c.expect = validation_case::ReadExpectations(c.text);
  return c;
}

std::vector<fs::path> CaseFiles() {
  return golden::CaseFiles(kCaseRoot, {".yaml", ".json"});
}

void RunCase(const ValidationCase& c) {
  SCOPED_TRACE(c.path.string());
  ASSERT_TRUE(c.expect.valid != !c.expect.errors.empty())
      << "a case needs either '# expect: valid' or '# expect: <Type> <field>' "
         "lines";
  auto documents = encoding::ReadDocuments(c.text, c.path.string());
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_EQ(documents->size(), 1u) << "a case holds exactly one object";
  std::vector<DecodeResult> decoded = DecodeDocument((*documents)[0].json);
  ASSERT_EQ(decoded.size(), 1u);
  ASSERT_TRUE(decoded[0].errors.empty())
      << "decode failed:\n"
      << validation_case::Describe(decoded[0].errors);
  validation_case::ExpectErrors(Validate(*decoded[0].object), c.expect);
}

class ValidationGoldenTest : public testing::TestWithParam<fs::path> {};

TEST_P(ValidationGoldenTest, MatchesExpectedErrors) {
  RunCase(ReadCase(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cases, ValidationGoldenTest,
                         testing::ValuesIn(CaseFiles()),
                         [](const testing::TestParamInfo<fs::path>& info) {
                           return golden::TestName(
                               info.param.parent_path().filename().string() +
                               "_" + info.param.stem().string());
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ValidationGoldenTest);

TEST(ValidationGoldenCorpus, HasAtLeastSixtyCases) {
  EXPECT_GE(CaseFiles().size(), 60u);
}

}  // namespace
}  // namespace dralloc::api
