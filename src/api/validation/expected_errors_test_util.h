// The "# expect:" header lines of validation case files (test-only), shared
// by the golden validation tests of every API version:
//   # expect: valid
//   # expect: <Type> <field> [detail substring]
// <Type> is a FieldErrorTypeName ("Invalid", "Required", ...); <field> is the
// rendered path, or "-" for an object-level error.
#ifndef DRALLOC_API_VALIDATION_EXPECTED_ERRORS_TEST_UTIL_H_
#define DRALLOC_API_VALIDATION_EXPECTED_ERRORS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/field_error.h"
#include "golden_case.h"

namespace dralloc::api::validation_case {

struct ExpectedError {
  std::string type;
  std::string field;
  std::string detail;
};

struct Expectations {
  bool valid = false;
  std::vector<ExpectedError> errors;
};

// The expectations of a case file's header comments.
inline Expectations ReadExpectations(std::string_view text) {
  Expectations out;
  for (const std::string& comment : golden::HeaderComments(text)) {
    const std::optional<std::string_view> expect =
        golden::HeaderValue(comment, "expect");
    if (!expect) continue;
    std::istringstream words{std::string(*expect)};
    ExpectedError e;
    words >> e.type;
    if (e.type == "valid") {
      out.valid = true;
      continue;
    }
    words >> e.field;
    if (e.field == "-") e.field.clear();
    std::getline(words, e.detail);
    e.detail.erase(0, e.detail.find_first_not_of(' '));
    out.errors.push_back(std::move(e));
  }
  return out;
}

inline std::string Describe(const ErrorList& errors) {
  std::string out;
  for (const FieldError& e : errors) {
    out += "  " + std::string(FieldErrorTypeName(e.type)) + " " +
           (e.field.empty() ? "-" : e.field) + "  (" + e.ToString() + ")\n";
  }
  return out.empty() ? "  (none)\n" : out;
}

// Passes when the (type, field) pairs of `errors` equal the expected ones
// exactly (as a multiset) and every detail substring occurs in its error.
inline void ExpectErrors(const ErrorList& errors,
                         const Expectations& expectations) {
  std::vector<std::pair<std::string, std::string>> got, want;
  for (const FieldError& e : errors) {
    got.emplace_back(FieldErrorTypeName(e.type), e.field);
  }
  for (const ExpectedError& e : expectations.errors) {
    want.emplace_back(e.type, e.field);
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want) << "errors produced:\n" << Describe(errors);
  for (const ExpectedError& e : expectations.errors) {
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

}  // namespace dralloc::api::validation_case

#endif  // DRALLOC_API_VALIDATION_EXPECTED_ERRORS_TEST_UTIL_H_
