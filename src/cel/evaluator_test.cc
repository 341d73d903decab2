// Core evaluation semantics, data-driven from tests/golden/cel/*.txt.
//
// Each non-comment line is `EXPRESSION => EXPECTED`, where EXPECTED is a CEL
// expression whose value the result must equal with the same kind (1 and 1u
// differ), or `error: SUBSTRING` for a runtime error, or
// `compile error: SUBSTRING`. Lines starting with `unchecked:` compile
// without the type checker (cel-spec's disableCheck).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cel/check/environment.h"
#include "cel/program.h"

namespace dralloc::cel {
namespace {

struct GoldenCase {
  std::string file;
  int line = 0;
  std::string expression;
  std::string expected;
  bool check = true;
};

std::vector<GoldenCase> LoadCases() {
  std::vector<GoldenCase> cases;
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator("tests/golden/cel")) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::ifstream in(path);
    std::string text;
    int line = 0;
    while (std::getline(in, text)) {
      ++line;
      if (text.empty() || text[0] == '#') continue;
      size_t arrow = text.rfind(" => ");
      if (arrow == std::string::npos) continue;
      GoldenCase c;
      c.file = path.filename().string();
      c.line = line;
      c.expression = text.substr(0, arrow);
      c.expected = text.substr(arrow + 4);
      constexpr std::string_view kUnchecked = "unchecked: ";
      if (c.expression.starts_with(kUnchecked)) {
        c.check = false;
        c.expression = c.expression.substr(kUnchecked.size());
      }
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

bool SameKindsDeep(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  if (a.kind() == ValueKind::kList) {
    if (a.list().Size() != b.list().Size()) return false;
    for (size_t i = 0; i < a.list().Size(); ++i) {
      if (!SameKindsDeep(a.list().At(i), b.list().At(i))) return false;
    }
  }
  return true;
}

TEST(CelGolden, AllCases) {
  std::vector<GoldenCase> cases = LoadCases();
  ASSERT_GT(cases.size(), 100u);
  auto env = Environment::NewStandard();
  int failures = 0;
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.file + ":" + std::to_string(c.line) + ": " + c.expression);
    CompileOptions options;
    options.check = c.check;
    auto program = Compile(env, c.expression, options);
    constexpr std::string_view kCompileError = "compile error: ";
    constexpr std::string_view kError = "error: ";
    if (c.expected.starts_with(kCompileError)) {
      std::string want = c.expected.substr(kCompileError.size());
      EXPECT_FALSE(program.ok());
      if (!program.ok()) {
        EXPECT_NE(program.status().message().find(want), std::string::npos)
            << program.status().message();
      }
      continue;
    }
    if (!program.ok()) {
      ADD_FAILURE() << "compile: " << program.status().message();
      ++failures;
      continue;
    }
    Activation activation(*env);
    EvalContext ctx;
    Value got = (*program)->Evaluate(activation, ctx);
    if (c.expected.starts_with(kError)) {
      std::string want = c.expected.substr(kError.size());
      EXPECT_TRUE(got.IsError()) << got.DebugString();
      if (got.IsError()) {
        EXPECT_NE(got.error_message().find(want), std::string::npos)
            << got.error_message();
      }
      continue;
    }
    CompileOptions unchecked;
    unchecked.check = false;
    auto expected_program = Compile(env, c.expected, unchecked);
    ASSERT_TRUE(expected_program.ok()) << expected_program.status().message();
    EvalContext ctx2;
    Value want = (*expected_program)->Evaluate(activation, ctx2);
    bool ok =
        !got.IsError() && EqualBool(got, want) && SameKindsDeep(got, want);
    if (!ok && got.kind() == ValueKind::kDouble &&
        want.kind() == ValueKind::kDouble) {
      ok = std::isnan(got.double_value()) && std::isnan(want.double_value());
    }
    EXPECT_TRUE(ok) << "got " << got.DebugString() << ", want "
                    << want.DebugString();
    failures += ok ? 0 : 1;
  }
  std::cout << "cel golden: " << cases.size() << " cases, " << failures
            << " failed\n";
}

}  // namespace
}  // namespace dralloc::cel
