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
#include "api/validation/validation.h"
#include "encoding/document_reader.h"
#include "golden_case.h"

namespace dralloc::api {
namespace {

namespace fs = std::filesystem;

const char kCaseRoot[] = "tests/golden/validation";

struct ExpectedError {
  std::string type;
  std::string field;
  std::string detail;
};

struct ValidationCase {
  fs::path path;
  std::string text;
  bool expect_valid = false;
  std::vector<ExpectedError> expected;
};

ValidationCase ReadCase(const fs::path& path) {
  ValidationCase c;
  c.path = path;
  c.text = golden::ReadFile(path);
  for (const std::string& comment : golden::HeaderComments(c.text)) {
    const std::optional<std::string_view> expect =
        golden::HeaderValue(comment, "expect");
    if (!expect) continue;
    std::istringstream words{std::string(*expect)};
    ExpectedError e;
    words >> e.type;
    if (e.type == "valid") {
      c.expect_valid = true;
      continue;
    }
    words >> e.field;
    if (e.field == "-") e.field.clear();
    std::getline(words, e.detail);
    e.detail.erase(0, e.detail.find_first_not_of(' '));
    c.expected.push_back(std::move(e));
  }
  return c;
}

std::vector<fs::path> CaseFiles() {
  return golden::CaseFiles(kCaseRoot, {".yaml", ".json"});
}

std::string Describe(const ErrorList& errors) {
  std::string out;
  for (const FieldError& e : errors) {
    out += "  " + std::string(FieldErrorTypeName(e.type)) + " " +
           (e.field.empty() ? "-" : e.field) + "  (" + e.ToString() + ")\n";
  }
  return out.empty() ? "  (none)\n" : out;
}

void RunCase(const ValidationCase& c) {
  SCOPED_TRACE(c.path.string());
  ASSERT_TRUE(c.expect_valid != !c.expected.empty())
      << "a case needs either '# expect: valid' or '# expect: <Type> <field>' "
         "lines";
  auto documents = encoding::ReadDocuments(c.text, c.path.string());
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_EQ(documents->size(), 1u) << "a case holds exactly one object";
  std::vector<DecodeResult> decoded = DecodeDocument((*documents)[0].json);
  ASSERT_EQ(decoded.size(), 1u);
  ASSERT_TRUE(decoded[0].errors.empty()) << "decode failed:\n"
                                         << Describe(decoded[0].errors);
  const ErrorList errors = Validate(*decoded[0].object);

  std::vector<std::pair<std::string, std::string>> got, want;
  for (const FieldError& e : errors)
    got.emplace_back(FieldErrorTypeName(e.type), e.field);
  for (const ExpectedError& e : c.expected) want.emplace_back(e.type, e.field);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want) << "errors produced:\n" << Describe(errors);

  for (const ExpectedError& e : c.expected) {
    if (e.detail.empty()) continue;
    const bool found =
        std::any_of(errors.begin(), errors.end(), [&](const FieldError& error) {
          return FieldErrorTypeName(error.type) == e.type &&
                 error.field == e.field &&
                 error.ToString().find(e.detail) != std::string::npos;
        });
    EXPECT_TRUE(found) << "no " << e.type << " error at " << e.field
                       << " containing \"" << e.detail << "\"; produced:\n"
                       << Describe(errors);
  }
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
