// Helpers of the parser tests: expected debug strings and error messages.
#ifndef DRALLOC_CEL_SYNTAX_PARSER_TEST_UTIL_H_
#define DRALLOC_CEL_SYNTAX_PARSER_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "cel/syntax/debug_string.h"
#include "cel/syntax/parser.h"

namespace dralloc::cel::parser_test {

inline std::string ParseToString(std::string_view text,
                                 const ParseOptions& options = {}) {
  StatusOr<ParsedExpr> parsed = Parse(text, options);
  if (!parsed.ok()) return "error: " + parsed.status().message();
  return DebugString(*parsed->root);
}

struct Case {
  std::string_view input;
  std::string_view expected;  // debug string
};

inline void RunCases(const std::vector<Case>& cases,
                     const ParseOptions& options = {}) {
  for (const Case& c : cases) {
    EXPECT_EQ(ParseToString(c.input, options), c.expected)
        << "input: " << c.input;
  }
}

struct ErrorCase {
  std::string_view input;
  std::string_view message;  // substring of the error message
};

inline void RunErrorCases(const std::vector<ErrorCase>& cases,
                          const ParseOptions& options = {}) {
  for (const ErrorCase& c : cases) {
    StatusOr<ParsedExpr> parsed = Parse(c.input, options);
    if (parsed.ok()) {
      ADD_FAILURE() << "input: " << c.input << " parsed as "
                    << DebugString(*parsed->root);
      continue;
    }
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find(c.message), std::string::npos)
        << "input: " << c.input << "\nerror: " << parsed.status().message()
        << "\nwanted: " << c.message;
    EXPECT_EQ(parsed.status().message().rfind("ERROR: <input>:", 0), 0u)
        << parsed.status().message();
  }
}

}  // namespace dralloc::cel::parser_test

#endif  // DRALLOC_CEL_SYNTAX_PARSER_TEST_UTIL_H_
