#include "cel/syntax/source.h"

#include <gtest/gtest.h>

namespace dralloc::cel {
namespace {

TEST(ParserTest, FormatLocatedError) {
  const Source source(
      "ab\ncd\xC3\xA9"
      "ef");
  EXPECT_EQ(FormatLocatedError(source, 0, "m"),
            "ERROR: <input>:1:1: m\n | ab\n | ^");
  EXPECT_EQ(FormatLocatedError(source, 2, "m"),
            "ERROR: <input>:1:3: m\n | ab\n | ..^");
  EXPECT_EQ(FormatLocatedError(source, 3, "m"),
            "ERROR: <input>:2:1: m\n | cd\xC3\xA9"
            "ef\n | ^");
  EXPECT_EQ(FormatLocatedError(source, 7, "m"),
            "ERROR: <input>:2:4: m\n | cd\xC3\xA9"
            "ef\n | ...^");
  EXPECT_EQ(FormatLocatedError(source, 100, "m"),
            "ERROR: <input>:2:6: m\n | cd\xC3\xA9"
            "ef\n | .....^");
  EXPECT_EQ(FormatLocatedError(source, -5, "m"),
            "ERROR: <input>:1:1: m\n | ab\n | ^");
  const Source empty("");
  EXPECT_EQ(FormatLocatedError(empty, 0, "m"),
            "ERROR: <input>:1:1: m\n | \n | ^");
}

TEST(ParserTest, SourceLineAndColumn) {
  const Source source("a\nbc\n\n\xC3\xA9x");
  struct Pos {
    int32_t offset, line, column;
  };
  for (const Pos& p : std::vector<Pos>{{0, 1, 1},
                                       {1, 1, 2},
                                       {2, 2, 1},
                                       {3, 2, 2},
                                       {4, 2, 3},
                                       {5, 3, 1},
                                       {6, 4, 1},
                                       {8, 4, 2},
                                       {9, 4, 3}}) {
    EXPECT_EQ(source.Line(p.offset), p.line) << p.offset;
    EXPECT_EQ(source.Column(p.offset), p.column) << p.offset;
  }
}

// Collects (id, offset, debug string) of every node.

}  // namespace
}  // namespace dralloc::cel
